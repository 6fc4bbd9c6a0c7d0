package io.amqpservlet.jetty;

import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.eclipse.jetty.logging.JettyLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An attachment against a broker that does what brokers rarely do, played frame by frame ({@link ScriptedBroker}):
 * what the attachment sends back, and that it keeps serving.
 */
@Timeout(60)
class AttachMisbehavingBrokerTest {
    private static Open relayOpen() {
        Open open = new Open().containerId("scripted");
        open.offeredCapabilities().add(Capabilities.ANONYMOUS_RELAY);
        return open;
    }

    /**
     * AMQP 1.0 §2.6.14: an aborted delivery is discarded, as if never sent, and the broker still has the message to
     * deliver again. The servlet already had the request (its head came before the abort), but its answer must go
     * nowhere: the redelivery's answer is the only one the client gets.
     */
    @Test
    void aRequestTheBrokerAbortsIsNotAnsweredAndItsRedeliveryIsAnsweredOnce() throws Exception {
        try (ScriptedBroker b = new ScriptedBroker();
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            g.start();
            b.accept(relayOpen());
            b.answerAttaches(2, 100); // the request link, and the relay with credit for every response
            b.awaitRequestCredit();
            int relay = b.senderHandle;
            byte[] message = ScriptedBroker.request("replies", null, 1000);
            int aborted = b.takeDeliveryId();
            byte[] tag = {(byte) aborted};
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).deliveryId(aborted).deliveryTag(tag, 0, 1)
                    .messageFormat(0).more(true), message, message.length - 500);
            Eventually.until(() -> g.work.calls.get() == 1, () -> "the servlet was not given the request's head");
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).aborted(true), null, 0);
            int redelivered = b.sendRequest("replies", null);
            Eventually.until(() -> g.work.calls.get() == 2, () -> "the redelivery was not served");

            // A graceful stop waits for every request in flight to finish: whatever the gateway answers, it
            // answers before its close, while this broker accepts each response as it comes.
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
                try {
                    g.server.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            List<Integer> responses = new ArrayList<>();
            List<String> requestOutcomes = new ArrayList<>();
            while (!b.peer.closedByServer()) {
                DescribedList frame;
                try {
                    frame = b.peer.readFrame();
                } catch (AssertionError ended) {
                    break;
                }
                if (b.acceptResponse(frame, relay, responses)) {
                    continue;
                }
                if (frame instanceof Disposition d && d.role() == Role.RECEIVER) {
                    requestOutcomes.add(d.first() + " " + d.state());
                } else if (frame instanceof io.amqpservlet.protocol.types.transport.Close) {
                    b.peer.writeFrame(0, new io.amqpservlet.protocol.types.transport.Close());
                }
            }
            stopped.join();
            assertEquals(1, responses.size(), "one answer, the redelivery's: " + responses);
            assertEquals(1, requestOutcomes.size(), "only the redelivery is settled: " + requestOutcomes);
            assertTrue(requestOutcomes.get(0).startsWith(redelivered + " "), requestOutcomes.toString());
            assertTrue(requestOutcomes.get(0).contains("accepted"), requestOutcomes.toString());
        }
    }

    /**
     * A broker that sends a request larger than the max-message-size the request link announced (AMQP 1.0 §2.7.3)
     * would, were the link ended for it, deliver it again on the next link, and again: the gateway reconnecting at its
     * shortest delay (every connection attaches), and every request in flight with it delivered twice. The request is
     * rejected alone with {@code amqp:link:message-size-exceeded} (so the broker dead-letters it), whether it came in
     * many frames (the servlet had begun it, and does not answer it) or in one, and the next request is served on
     * the same link. Each is one INFO line, and the one no servlet saw counts as refused.
     */
    @Test
    void aRequestOverTheAnnouncedSizeIsRejectedAloneAndTheLinkServesTheNext() throws Exception {
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, "io.amqpservlet.jetty.internal.exchange.ServingHandler");
             ScriptedBroker b = new ScriptedBroker();
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 4)) {
            g.attachment.getConnectionFactory().getEngineConfig().maxMessageSizeBytes(10_000);
            g.start();
            b.accept(relayOpen());
            b.answerAttaches(2, 100);
            b.awaitRequestCredit();
            int relay = b.senderHandle;
            // 30,000 bytes of body in frames of 4,000: the head is in the first, and the servlet is given it.
            int inFrames = b.sendRequestInFrames(ScriptedBroker.request("replies", null, 30_000), 4000);
            // 12,000 bytes in one frame.
            byte[] single = ScriptedBroker.request("replies", null, 12_000);
            int inOneFrame = b.takeDeliveryId();
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).deliveryId(inOneFrame)
                    .deliveryTag(new byte[] {(byte) inOneFrame}, 0, 1).messageFormat(0), single, single.length);
            int served = b.sendRequest("replies", null);

            List<String> outcomes = new ArrayList<>();
            List<String> ends = new ArrayList<>();
            int responses = 0;
            while (outcomes.size() < 3 && ends.isEmpty()) {
                DescribedList frame = b.peer.readFrame();
                if (frame instanceof Transfer t && t.handle() == relay && t.hasDeliveryId()) {
                    responses++;
                    Disposition accept = new Disposition().role(Role.RECEIVER).first(t.deliveryId()).settled(true);
                    accept.state().accepted();
                    b.peer.writeFrame(0, accept);
                } else if (frame instanceof Disposition d && d.role() == Role.RECEIVER) {
                    outcomes.add(d.first() + (d.settled() ? " settled " : " ") + d.state());
                } else if (frame instanceof io.amqpservlet.protocol.types.transport.Detach
                        || frame instanceof io.amqpservlet.protocol.types.transport.Close) {
                    ends.add(frame.toString());
                }
            }
            assertEquals(List.of(), ends, "the link and the connection stay");
            assertEquals(3, outcomes.size(), outcomes.toString());
            for (int i = 0; i < 2; i++) {
                String outcome = outcomes.get(i);
                assertTrue(outcome.startsWith((i == 0 ? inFrames : inOneFrame) + " settled @rejected"), outcome);
                assertTrue(outcome.contains("amqp:link:message-size-exceeded")
                        && outcome.contains("message exceeds 10000 bytes"), outcome);
            }
            assertTrue(outcomes.get(2).startsWith(served + " settled @accepted"), outcomes.toString());
            assertEquals(1, responses, "only the request served is answered");
            List<String> lines = log.linesWith("rejected with amqp:link:message-size-exceeded: the request message "
                    + "exceeds 10000 bytes");
            assertEquals(2, lines.size(), log.lines().toString());
            assertTrue(lines.get(0).contains("INFO") && lines.get(0).contains("AMQP request from 127.0.0.1:"
                    + b.port()), lines.get(0));
            assertEquals(1, g.attachment.getConnectionFactory().getRequestsRefused(),
                    "the request in one frame reached no servlet");
            assertEquals(1, g.attachment.getConnectCount());
            assertTrue(g.attachment.isAttached());
        }
    }

    /**
     * A request link this side ends for what the broker sent on it (here a first transfer without a delivery-id,
     * AMQP 1.0 §2.7.5) is said to have ended here, with the error it ended with, in the close the broker is sent and
     * in the one warning line; and the attachment connects again.
     */
    @Test
    void aRequestLinkEndedForWhatTheBrokerSentIsSaidToEndHereAndTheAttachmentConnectsAgain() throws Exception {
        try (ScriptedBroker b = new ScriptedBroker();
             LogCapture log = LogCapture.of(org.eclipse.jetty.logging.JettyLevel.INFO, "io.amqpservlet");
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            g.start();
            b.accept(relayOpen());
            b.answerAttaches(2, 100);
            b.awaitRequestCredit();
            byte[] message = ScriptedBroker.request("replies", null, 10);
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).deliveryTag(new byte[] {0}, 0, 1)
                    .messageFormat(0), message, message.length);
            io.amqpservlet.protocol.types.transport.Close close =
                    b.peer.readUntil(io.amqpservlet.protocol.types.transport.Close.class);
            String reason = "link orders ended here for what the broker sent on it (amqp:invalid-field first transfer "
                    + "of a delivery has no delivery-id)";
            assertEquals("amqp:connection:forced " + reason, close.error().condition() + " "
                    + close.error().description());
            b.peer.writeFrame(0, new io.amqpservlet.protocol.types.transport.Close());
            String line = log.await("; connecting to ");
            assertTrue(line.contains("broker 127.0.0.1:" + b.port() + ": " + reason + "; connecting to "), line);
            b.accept(relayOpen()); // the next connection
            b.answerAttaches(2, 100);
            g.awaitAttached(10_000);
            assertEquals(1, log.linesWith("; connecting to ").size(), log.lines().toString());
        }
    }

    /**
     * A servlet that answers before its request's body is in has its answer held until the last frame (a delivery is
     * settled once complete). When the broker aborts the delivery instead, the held answer goes nowhere, and the
     * request ends: the attachment holds nothing for it.
     */
    @Test
    void anAnswerHeldForTheRestOfARequestTheBrokerAbortsEndsWithoutGoingOut() throws Exception {
        try (ScriptedBroker b = new ScriptedBroker();
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            java.util.concurrent.atomic.AtomicInteger quick = new java.util.concurrent.atomic.AtomicInteger();
            ((org.eclipse.jetty.ee11.servlet.ServletContextHandler) g.server.getHandler()).addServlet(
                    new org.eclipse.jetty.ee11.servlet.ServletHolder(new jakarta.servlet.http.HttpServlet() {
                        @Override
                        protected void service(jakarta.servlet.http.HttpServletRequest request,
                                               jakarta.servlet.http.HttpServletResponse response) {
                            quick.incrementAndGet();
                            response.setStatus(202); // without reading the body
                        }
                    }), "/quick");
            g.start();
            b.accept(relayOpen());
            b.answerAttaches(2, 100);
            b.awaitRequestCredit();
            int relay = b.senderHandle;
            byte[] message = ScriptedBroker.request("/quick", "replies", null, 1000);
            int aborted = b.takeDeliveryId();
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).deliveryId(aborted)
                    .deliveryTag(new byte[] {(byte) aborted}, 0, 1).messageFormat(0).more(true), message,
                    message.length - 500);
            Eventually.until(() -> quick.get() == 1, () -> "the servlet was not given the request's head");
            b.peer.writeTransfer(0, new Transfer().handle(b.requestHandle).aborted(true), null, 0);
            Eventually.until(() -> g.attachment.getActiveRequests() == 0,
                    () -> "the request whose delivery was aborted is still active");
            int next = b.sendRequest("replies", null);
            List<Integer> responses = new ArrayList<>();
            String outcome = null;
            while (outcome == null) {
                DescribedList frame = b.peer.readFrame();
                if (b.acceptResponse(frame, relay, responses)) {
                    continue;
                }
                if (frame instanceof Disposition d && d.role() == Role.RECEIVER) {
                    outcome = d.first() + " " + d.state();
                }
            }
            assertTrue(outcome.startsWith(next + " @accepted"), outcome);
            assertEquals(1, responses.size(), "only the next request is answered: " + responses);
        }
    }

    /**
     * AMQP 1.0 §2.8.15: a broker that closes with {@code amqp:connection:redirect} names in its info the network host
     * and port to connect to instead, and the hostname to open there. The attachment goes there next (not back to
     * the broker that sent it away, which would send it away again), says where in its one warning line, and
     * attaches there.
     */
    @Test
    void aBrokerThatRedirectsIsFollowedToTheHostAndPortItNames() throws Exception {
        try (ScriptedBroker b = new ScriptedBroker(); ScriptedBroker elsewhere = new ScriptedBroker();
             LogCapture log = LogCapture.of(org.eclipse.jetty.logging.JettyLevel.INFO, "io.amqpservlet");
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            g.start();
            b.accept(relayOpen());
            b.answerAttaches(2, 100);
            g.awaitAttached(10_000);
            io.amqpservlet.protocol.codec.AmqpWriter w = new io.amqpservlet.protocol.codec.AmqpWriter();
            w.startMap();
            w.writeSymbol("hostname");
            w.writeString("orders.example");
            w.writeSymbol("network-host");
            w.writeString("127.0.0.1");
            w.writeSymbol("port");
            w.writeInt(elsewhere.port());
            w.endMap();
            io.amqpservlet.protocol.types.transport.Close redirect = new io.amqpservlet.protocol.types.transport.Close();
            redirect.error().condition(io.amqpservlet.protocol.types.transport.ErrorConditions.CONNECTION_REDIRECT)
                    .description("served elsewhere");
            redirect.error().info().set(w.array(), w.start(), w.length());
            b.peer.writeFrame(0, redirect);

            elsewhere.accept(relayOpen());
            assertEquals("orders.example", elsewhere.gatewayHostname, "the open names the hostname of the redirect");
            elsewhere.answerAttaches(2, 100);
            g.awaitAttached(10_000);
            assertEquals("127.0.0.1:" + elsewhere.port(), g.attachment.getBroker());
            String line = log.await("; connecting to ");
            assertTrue(line.contains("broker 127.0.0.1:" + b.port() + ": the broker closed the connection: "
                    + "amqp:connection:redirect served elsewhere (to 127.0.0.1:" + elsewhere.port()
                    + "); connecting to 127.0.0.1:" + elsewhere.port() + " in "), line);
            String attached = log.await("attached to broker 127.0.0.1:" + elsewhere.port());
            assertTrue(attached.contains("orders"), attached);
        }
    }

    /**
     * A broker without an anonymous relay that drops reply link after reply link with an error (temporary queues
     * deleted, say): each is the broker's doing, said in a warning within the peer-error allowance, not one line per
     * link however many it drops.
     */
    @Test
    void replyLinksTheBrokerEndsAreWarnedOfWithinTheAllowance() throws Exception {
        int links = 3 * io.amqpservlet.jetty.internal.log.PeerLog.LINES_PER_WINDOW;
        try (ScriptedBroker b = new ScriptedBroker();
             LogCapture log = LogCapture.of(org.eclipse.jetty.logging.JettyLevel.INFO, "io.amqpservlet");
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            g.start();
            b.accept(new Open().containerId("scripted")); // no relay: a reply link per reply address
            b.answerAttaches(1, 0);
            b.awaitRequestCredit();
            long start = System.nanoTime();
            for (int i = 0; i < links; i++) {
                b.sendRequest("r" + i, null);
                io.amqpservlet.protocol.types.transport.Attach reply = b.readAttach();
                int handle = reply.handle();
                b.answer(reply, 1);
                b.peer.readUntil(Transfer.class); // the response
                io.amqpservlet.protocol.types.transport.Detach detach =
                        new io.amqpservlet.protocol.types.transport.Detach().handle(handle).closed(true);
                detach.error().condition(io.amqpservlet.protocol.types.transport.ErrorConditions.NOT_FOUND)
                        .description("r" + i + " vanished");
                b.peer.writeFrame(0, detach);
                b.peer.readUntil(io.amqpservlet.protocol.types.transport.Detach.class); // the gateway's answer
            }
            long windows = (System.nanoTime() - start) / 1_000_000 / io.amqpservlet.jetty.internal.log.PeerLog
                    .WINDOW_MILLIS + 1;
            log.await("reply link to r0 ended: amqp:not-found r0 vanished");
            int warned = log.linesWith("reply link to r").size();
            assertTrue(warned >= 1 && warned <= windows * io.amqpservlet.jetty.internal.log.PeerLog.LINES_PER_WINDOW,
                    warned + " lines in " + windows + " windows: " + log.lines());
            assertTrue(g.attachment.isAttached(), "a reply link lost is not the connection lost");
        }
    }
}
