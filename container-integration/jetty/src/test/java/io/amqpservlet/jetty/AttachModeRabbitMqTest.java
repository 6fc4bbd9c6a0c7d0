package io.amqpservlet.jetty;

import io.amqpservlet.testbrokers.RabbitMqNode;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attach mode against a real RabbitMQ 3.10 (Debian's rabbitmq-server with its AMQP 1.0 plugin), which offers neither
 * dynamic nodes nor the anonymous relay: clients reply to named queues, and the gateway sends each response on a
 * sender it attaches per reply address. SASL PLAIN as {@code guest}. One broker for the class (it takes seconds to
 * boot); each test uses queues of its own.
 */
@Timeout(180)
class AttachModeRabbitMqTest {
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

    private static String uri(String queue) {
        return "amqp://" + RabbitMqNode.USER + ":" + RabbitMqNode.PASSWORD + "@127.0.0.1:" + broker.amqpPort() + "/"
                + queue;
    }

    private static ConnectionOptions plain() {
        return new ConnectionOptions().user(RabbitMqNode.USER).password(RabbitMqNode.PASSWORD);
    }

    /** A client with named reply queues (RabbitMQ has no dynamic ones) and a sender to the request queue. */
    private static final class Requester implements AutoCloseable {
        final Connection connection;
        final Sender sender;
        final List<Receiver> replies = new ArrayList<>();
        final List<String> replyAddresses = new ArrayList<>();

        Requester(String requestQueue, int replyQueues) throws Exception {
            connection = client.connect("127.0.0.1", broker.amqpPort(), plain());
            for (int i = 0; i < replyQueues; i++) {
                String address = "/queue/replies-" + UUID.randomUUID();
                Receiver r = connection.openReceiver(address); // declares the queue
                r.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
                replies.add(r);
                replyAddresses.add(address);
            }
            sender = connection.openSender(requestQueue);
            sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        Message<Object> receive(int replyQueue) throws Exception {
            Delivery d = replies.get(replyQueue).receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "no response on " + replyAddresses.get(replyQueue) + " within " + WAIT_SECONDS + " s");
            d.accept();
            return d.message();
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    private static String text(Message<Object> m) throws Exception {
        Object body = m.body();
        return body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body);
    }

    @Test
    void requestThroughAQueueIsAnsweredOnASenderToItsNamedReplyQueue() throws Exception {
        String queue = "/queue/orders-" + UUID.randomUUID();
        try (AttachedGateway g = new AttachedGateway(uri(queue), 4).start().awaitAttached(WAIT_SECONDS * 1000);
             Requester r = new Requester(queue, 1)) {
            UUID id = UUID.randomUUID();
            r.sender.send(Message.create("from rabbit".getBytes(StandardCharsets.UTF_8)).subject("PUT").messageId(id)
                    .replyTo(r.replyAddresses.get(0)));
            Message<Object> response = r.receive(0);
            assertEquals("200", response.subject());
            assertEquals(id, response.correlationId());
            assertEquals("PUT", response.property("x-echo-method"));
            // No to on the message: the request-target is the queue's address, as the request link names it.
            assertEquals(queue, response.property("x-echo-path"));
            assertEquals("from rabbit", text(response));
            assertEquals(1, g.work.calls.get());
        }
    }

    @Test
    void atMostOnceRabbitMqSendsEachRequestSettledAndCreditStillBoundsTheServing() throws Exception {
        String queue = "/queue/once-" + UUID.randomUUID();
        int requests = 12;
        try (DeliveryTap tap = new DeliveryTap(broker.amqpPort())) {
            try (AttachedGateway g = new AttachedGateway("amqp://" + RabbitMqNode.USER + ":"
                    + RabbitMqNode.PASSWORD + "@127.0.0.1:" + tap.port() + "/" + queue, 3)) {
                g.attachment.setAtMostOnce(true);
                g.start().awaitAttached(WAIT_SECONDS * 1000);
                Requester r = new Requester(queue, 1);
                for (int i = 0; i < requests; i++) {
                    r.sender.send(Message.create(new byte[10]).subject("POST").messageId("once-" + i)
                            .property("x-sleep-ms", "50").replyTo(r.replyAddresses.get(0)));
                }
                Set<Object> answered = new HashSet<>();
                for (int i = 0; i < requests; i++) {
                    Message<Object> response = r.receive(0);
                    assertEquals("200", response.subject());
                    answered.add(response.correlationId());
                }
                assertEquals(requests, answered.size(), "every request answered once");
                assertEquals(requests, g.work.calls.get());
                // RabbitMQ 3.10 sends beyond the credit now and then (a flow that reaches it while deliveries are on
                // their way counts in full): pre-settled, the extra requests cannot be given back, so they wait for a
                // servlet. What the gateway had (credit, requests served and held) may pass the credit; the servlets
                // never do.
                assertTrue(g.work.mostInside.get() <= 3, "servlet concurrency " + g.work.mostInside.get());
                assertTrue(g.attachment.getMostOutstanding() >= 3, "the whole credit was used: "
                        + g.attachment.getMostOutstanding());
                // RabbitMQ honours snd-settle-mode settled on the request link: every request came settled.
                assertEquals(requests, tap.settledTransfers(), "requests RabbitMQ sent settled");
                assertEquals(0, tap.transfers(), "requests RabbitMQ sent unsettled");
                r.close();
            }
        }
    }

    @Test
    void moreReplyAddressesThanReplyLinksAreServedByEvictingIdleSenders() throws Exception {
        String queue = "/queue/many-" + UUID.randomUUID();
        int addresses = 5;
        try (AttachedGateway g = new AttachedGateway(uri(queue), 2)) {
            g.attachment.setMaxReplyLinks(2);
            g.start().awaitAttached(WAIT_SECONDS * 1000);
            try (Requester r = new Requester(queue, addresses)) {
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < addresses; i++) {
                        String id = "m-" + round + "-" + i;
                        r.sender.send(Message.create(new byte[] {1}).subject("POST").messageId(id)
                                .replyTo(r.replyAddresses.get(i)));
                        assertEquals(id, r.receive(i).correlationId());
                    }
                }
            }
            assertEquals(2 * addresses, g.work.calls.get());
        }
    }

    @Test
    void theGatewayReconnectsAfterTheBrokerRestartsAndServesAgain() throws Exception {
        String queue = "/queue/restart-" + UUID.randomUUID();
        try (AttachedGateway g = new AttachedGateway(uri(queue), 4).start().awaitAttached(WAIT_SECONDS * 1000)) {
            try (Requester r = new Requester(queue, 1)) {
                r.sender.send(Message.create(new byte[] {1}).subject("POST").messageId("before")
                        .replyTo(r.replyAddresses.get(0)));
                assertEquals("before", r.receive(0).correlationId());
            }
            long connects = g.attachment.getConnectCount();
            broker.stop();
            broker.restart();
            Eventually.within(60, () -> g.attachment.getConnectCount() != connects && g.attachment.isAttached(),
                    () -> "the gateway did not attach again after the restart");
            try (Requester r = new Requester(queue, 1)) {
                Set<String> answered = new HashSet<>();
                for (int i = 0; i < 10; i++) {
                    r.sender.send(Message.create(new byte[] {1}).subject("POST").messageId("after-" + i)
                            .replyTo(r.replyAddresses.get(0)));
                }
                for (int i = 0; i < 10; i++) {
                    answered.add(String.valueOf(r.receive(0).correlationId()));
                }
                assertEquals(10, answered.size());
            }
        }
    }
}
