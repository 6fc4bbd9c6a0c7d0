package io.amqpservlet.jetty;

import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.eclipse.jetty.logging.JettyLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator reads of the AMQP errors a broker attachment sends its broker, against a broker played frame by
 * frame ({@link ScriptedBroker}): each close, end and detach (or refusal of an attach) the attachment sends with an
 * error is counted by scope and condition (its getters, its JMX attributes, a watch for meters), as a listener counts
 * those it sends its clients. The broker's own errors are not counted.
 */
@Timeout(60)
class AttachErrorsSentTest {
    private static Open relayOpen() {
        Open open = new Open().containerId("scripted");
        open.offeredCapabilities().add(Capabilities.ANONYMOUS_RELAY);
        return open;
    }

    /** The next connection taken to where its request link has credit. */
    private static void attached(ScriptedBroker b) throws Exception {
        b.accept(relayOpen());
        b.answerAttaches(2, 100); // the request link, and the relay
        b.awaitRequestCredit();
    }

    @Test
    void errorsSentToTheBrokerAreCountedByScopeAndConditionAndShownOverJmx() throws Exception {
        MBeanServer mbeans = MBeanServerFactory.newMBeanServer(); // a server of its own: no other test's beans
        List<String> kinds = new CopyOnWriteArrayList<>();
        try (ScriptedBroker b = new ScriptedBroker();
             LogCapture log = LogCapture.of(JettyLevel.INFO, "io.amqpservlet");
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            g.server.addBean(new MBeanContainer(mbeans));
            g.attachment.watchErrorsSent((scope, condition) -> kinds.add(scope + " " + condition));
            g.start();

            // A link the broker attaches of its own is refused; a first transfer without a delivery-id (AMQP 1.0
            // §2.7.5) detaches the request link, and the attachment closes to connect again.
            attached(b);
            Attach pushed = new Attach().name("pushed").handle(7).role(Role.SENDER).initialDeliveryCount(0);
            pushed.source().present(true).address("elsewhere");
            pushed.target().present(true);
            b.peer.writeFrame(0, pushed);
            Detach refused = b.peer.readUntil(Detach.class);
            assertTrue(refused.error().is(ErrorConditions.NOT_ALLOWED), refused.toString());
            byte[] message = ScriptedBroker.request("replies", null, 10);
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).deliveryTag(new byte[] {0}, 0, 1)
                    .messageFormat(0), message, message.length);
            Detach detached = b.peer.readUntil(Detach.class);
            assertTrue(detached.error().is(ErrorConditions.INVALID_FIELD), detached.toString());
            Close forced = b.peer.readUntil(Close.class);
            assertTrue(forced.error().is(ErrorConditions.CONNECTION_FORCED), forced.toString());
            b.peer.writeFrame(0, new Close());

            // A transfer on a handle no link has ends the session (§2.7.5), and the attachment connects again, saying
            // that the session ended here (not that the broker ended the link that went with it).
            attached(b);
            b.peer.writeTransfer(0, new Transfer().handle(99).deliveryId(0).deliveryTag(new byte[] {0}, 0, 1)
                    .messageFormat(0), message, message.length);
            End end = b.peer.readUntil(End.class);
            assertTrue(end.error().is(ErrorConditions.SESSION_UNATTACHED_HANDLE), end.toString());
            forced = b.peer.readUntil(Close.class);
            assertTrue(forced.error().is(ErrorConditions.CONNECTION_FORCED), forced.toString());
            assertEquals("the session ended here for what the broker sent on it (amqp:session:unattached-handle "
                    + "transfer for handle 99, which is not attached)", forced.error().description().toString());
            b.peer.writeFrame(0, new Close());

            // A frame whose body is no performative closes the connection.
            attached(b);
            b.peer.write(new byte[] {0, 0, 0, 13, 2, 0, 0, 0, (byte) 0xa1, 3, 'b', 'a', 'd'});
            Close decode = b.peer.readUntil(Close.class);
            assertTrue(decode.error().is(ErrorConditions.DECODE_ERROR), decode.toString());

            // The broker's own error: its close is answered, and not counted.
            attached(b);
            Close brokers = new Close();
            brokers.error().condition(ErrorConditions.INTERNAL_ERROR).description("the broker broke");
            b.peer.writeFrame(0, brokers);
            Close answer = b.peer.readUntil(Close.class);
            assertTrue(answer.error().isNull(), answer.toString());
            b.accept(relayOpen());
            b.answerAttaches(2, 100);
            g.awaitAttached(10_000);

            assertEquals(Map.of("amqp:not-allowed", 1L, "amqp:invalid-field", 1L), g.attachment.getLinkErrorsSent());
            assertEquals(Map.of("amqp:session:unattached-handle", 1L), g.attachment.getSessionErrorsSent());
            assertEquals(Map.of("amqp:connection:forced", 2L, "amqp:decode-error", 1L),
                    g.attachment.getConnectionErrorsSent());
            assertEquals(2, g.attachment.getErrorsSent("connection", "amqp:connection:forced"));
            assertEquals(0, g.attachment.getErrorsSent("connection", "amqp:internal-error"), "the broker's, not ours");
            assertEquals(Set.of("link amqp:not-allowed", "link amqp:invalid-field",
                    "session amqp:session:unattached-handle", "connection amqp:connection:forced",
                    "connection amqp:decode-error"), Set.copyOf(kinds));
            assertEquals(5, kinds.size(), "each kind is told once: " + kinds);
            assertEquals(4, log.linesWith("; connecting to ").size(), "a line per connection: " + log.lines());
            assertEquals(List.of(), log.linesWith("\tat "), "no stack trace");
            assertEquals(Map.of(), g.attachment.getConnectionFactory().getConnectionErrorsSent(),
                    "the factory counts its listener's connections only");
            assertEquals(Map.of(), g.attachment.getConnectionFactory().getLinkErrorsSent());

            ObjectName name = mbeans.queryNames(new ObjectName("io.amqpservlet.jetty:type=amqpbrokerattachment,*"),
                    null).iterator().next();
            assertEquals(g.attachment.getLinkErrorsSent(), mbeans.getAttribute(name, "linkErrorsSent"));
            assertEquals(g.attachment.getSessionErrorsSent(), mbeans.getAttribute(name, "sessionErrorsSent"));
            assertEquals(g.attachment.getConnectionErrorsSent(), mbeans.getAttribute(name, "connectionErrorsSent"));

            List<String> later = new CopyOnWriteArrayList<>();
            g.attachment.watchErrorsSent((scope, condition) -> later.add(scope + " " + condition));
            assertEquals(Set.copyOf(kinds), Set.copyOf(later), "a watch added later hears of the kinds so far");

            // A graceful stop's close that the broker does not answer (it drops the socket) is counted all the same.
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
                try {
                    g.server.stop(); // graceful: the attachment closes with amqp:connection:forced
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Close stopped = b.peer.readUntil(Close.class);
            assertTrue(stopped.error().is(ErrorConditions.CONNECTION_FORCED), stopped.toString());
            b.peer.close();
            stopping.get(10, TimeUnit.SECONDS);
            Eventually.until(() -> g.attachment.getErrorsSent("connection", "amqp:connection:forced") == 3,
                    () -> "errors sent: " + g.attachment.getConnectionErrorsSent());
        }
    }
}
