package io.amqpservlet.jetty;

import io.amqpservlet.testbrokers.RabbitMqNode;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The request's user from the message's user-id ({@link AmqpBrokerAttachment#setTrustUserId}) against a real
 * RabbitMQ 3.10 with its AMQP 1.0 plugin, which checks every message's user-id against the user its sender logged in
 * as, with nothing to configure: the one user {@code guest} both sends and attaches.
 */
@Timeout(180)
class AttachUserIdRabbitMqTest {
    private static final long WAIT_SECONDS = 30;
    private static RabbitMqNode broker;
    private static Client client;

    @BeforeAll
    static void startBroker() throws Exception {
        RabbitMqNode.requireInstalled();
        broker = RabbitMqNode.start(null);
        client = Client.create();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (client != null) {
            client.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static ConnectionOptions guest() {
        return new ConnectionOptions().user(RabbitMqNode.USER).password(RabbitMqNode.PASSWORD);
    }

    private static AttachedGateway gateway(String queue) throws Exception {
        AttachedGateway g = new AttachedGateway("amqp://" + RabbitMqNode.USER + ":" + RabbitMqNode.PASSWORD
                + "@127.0.0.1:" + broker.amqpPort() + "/" + queue, 4);
        g.attachment.setTrustUserId(true);
        return g.start().awaitAttached(WAIT_SECONDS * 1000);
    }

    /** Sends a request claiming {@code userId} (null for none) on a connection of its own, replies to a named queue. */
    private static Message<Object> exchange(String queue, String userId) throws Exception {
        try (Connection c = client.connect("127.0.0.1", broker.amqpPort(), guest())) {
            String replyTo = "/queue/replies-" + UUID.randomUUID();
            Receiver replies = c.openReceiver(replyTo);
            replies.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            Message<byte[]> request = Message.create(new byte[] {1}).subject("POST").messageId("m").replyTo(replyTo);
            if (userId != null) {
                request.userId(userId.getBytes(StandardCharsets.UTF_8));
            }
            c.openSender(queue).send(request);
            Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "no response within " + WAIT_SECONDS + " s");
            d.accept();
            return d.message();
        }
    }

    @Test
    void aRequestWithItsSendersUserIdIsServedAsThatUser() throws Exception {
        String queue = "/queue/user-id-" + UUID.randomUUID();
        try (AttachedGateway g = gateway(queue)) {
            assertEquals(RabbitMqNode.USER, exchange(queue, RabbitMqNode.USER).property("x-user"));
            assertNull(exchange(queue, null).property("x-user"), "no user-id, no user");
            assertEquals(2, g.work.calls.get());
        }
    }

    @Test
    void aSpoofedUserIdIsRefusedByTheBrokerAndNeverReachesTheServlet() throws Exception {
        String queue = "/queue/spoofed-" + UUID.randomUUID();
        try (AttachedGateway g = gateway(queue)) {
            try (Connection c = client.connect("127.0.0.1", broker.amqpPort(), guest())) {
                Sender sender = c.openSender(queue);
                sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
                Tracker spoofed = sender.send(Message.create(new byte[] {1}).subject("POST").messageId("spoofed")
                        .replyTo("/queue/nobody").userId("alice".getBytes(StandardCharsets.UTF_8)));
                boolean accepted;
                try {
                    spoofed.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
                    accepted = spoofed.remoteState() != null && spoofed.remoteState().isAccepted();
                } catch (ClientException refused) {
                    accepted = false; // RabbitMQ 3 ends the session: amqp:precondition-failed
                }
                assertFalse(accepted, "the broker took a message whose user-id is not its sender's");
            }
            // The queue is first in, first out: had the spoofed message got in, it would be served first.
            assertEquals(RabbitMqNode.USER, exchange(queue, RabbitMqNode.USER).property("x-user"));
            assertEquals(1, g.work.calls.get(), "only the honest request reached the servlet");
        }
    }
}
