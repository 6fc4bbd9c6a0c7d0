package io.amqpservlet.jetty;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attach mode against a real ActiveMQ Artemis 2.55.0 broker (embedded): gateways consume the broker's {@code orders}
 * queue, clients from other projects (Qpid JMS, protonj2) send requests to the queue with a reply-to of their own,
 * and every response comes back through the broker, correlated.
 */
@Timeout(120)
class AttachModeArtemisTest {
    private static final String QUEUE = "orders";
    private static final long WAIT_SECONDS = 20;

    private EmbeddedArtemis broker;
    private final List<AttachedGateway> gateways = new ArrayList<>();
    private Client client;

    @BeforeEach
    void startBroker() throws Exception {
        broker = EmbeddedArtemis.start(QUEUE);
        client = Client.create();
    }

    @AfterEach
    void stopAll() throws Exception {
        try {
            client.close();
            for (AttachedGateway g : gateways) {
                g.close();
            }
        } finally {
            broker.close();
        }
    }

    private AttachedGateway gateway(int credit) throws Exception {
        AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + broker.port() + "/" + QUEUE, credit);
        gateways.add(g);
        return g.start().awaitAttached(WAIT_SECONDS * 1000);
    }

    /** A protonj2 client with a dynamic reply queue and a sender to the request queue. */
    private final class Requester implements AutoCloseable {
        final org.apache.qpid.protonj2.client.Connection connection;
        final Receiver replies;
        final String replyAddress;
        final Sender sender;

        Requester() throws Exception {
            connection = client.connect("127.0.0.1", broker.port(), new ConnectionOptions());
            replies = connection.openDynamicReceiver();
            replyAddress = replies.address();
            sender = connection.openSender(QUEUE);
            sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        Tracker send(Message<?> request) throws Exception {
            return sender.send(request.replyTo(replyAddress).to(QUEUE));
        }

        Message<Object> receive() throws Exception {
            Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "no response within " + WAIT_SECONDS + " s");
            d.accept();
            return d.message();
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    private static String text(Message<Object> response) throws Exception {
        Object body = response.body();
        return body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(body);
    }

    @Test
    void protonj2RequestThroughTheQueueIsAnsweredToItsDynamicReplyQueueWithTheIdTypeKept() throws Exception {
        gateway(4);
        try (Requester r = new Requester()) {
            UUID id = UUID.randomUUID();
            r.send(Message.create("hello".getBytes(StandardCharsets.UTF_8)).subject("POST").messageId(id)
                    .contentType("text/plain"));
            Message<Object> response = r.receive();
            assertEquals("200", response.subject());
            assertEquals(id, response.correlationId()); // a UUID stays a UUID through the broker and back
            assertEquals("POST", response.property("x-echo-method"));
            assertEquals("/orders", response.property("x-echo-path"));
            assertEquals("hello", text(response));
        }
        assertEquals(1, gateways.get(0).work.calls.get());
        assertSettledEventually();
    }

    @Test
    void responsesToTheBrokerAreHeldWhileTheGatewayStillServesOthersAtMostTheWriteCoalescing() throws Exception {
        AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + broker.port() + "/" + QUEUE, 4);
        g.attachment.getConnectionFactory().setWriteCoalescing(AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS);
        gateways.add(g);
        g.start().awaitAttached(WAIT_SECONDS * 1000);
        try (Requester r = new Requester()) {
            r.send(Message.create("slow".getBytes(StandardCharsets.UTF_8)).subject("POST").messageId("slow")
                    .property("x-sleep-ms", "6000"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (g.work.inside.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(1, g.work.inside.get(), "the slow request is being served");
            Thread.sleep(1_200); // what its arrival left to write is held from then: let that one-second hold end
            long sent = System.nanoTime();
            r.send(Message.create("quick".getBytes(StandardCharsets.UTF_8)).subject("POST").messageId("quick"));
            Message<Object> first = r.receive();
            long waitedMillis = (System.nanoTime() - sent) / 1_000_000;
            assertEquals("quick", first.correlationId());
            assertEquals(1, g.work.inside.get(), "answered while the slow request was still being served");
            assertTrue(waitedMillis >= 1_000, "the attachment's connection held the quick response its factory's "
                    + "write coalescing (1 s), not less: " + waitedMillis + " ms");
            assertEquals("slow", r.receive().correlationId());
        }
        assertSettledEventually();
    }

    @Test
    void aDurableRequestsResponseIsDurableSoTheBrokerKeepsItAsItKeptTheRequest() throws Exception {
        gateway(4);
        try (Requester r = new Requester()) {
            r.send(Message.create("kept").subject("GET").messageId("durable").durable(true));
            Message<Object> durable = r.receive();
            assertEquals("durable", durable.correlationId());
            assertTrue(durable.durable(), "the response to a durable request");
            r.send(Message.create("not kept").subject("GET").messageId("transient").durable(false));
            Message<Object> notDurable = r.receive();
            assertEquals("transient", notDurable.correlationId());
            assertTrue(!notDurable.durable(), "the response to a request that is not durable");
        }
        assertSettledEventually();
    }

    @Test
    void qpidJmsRequestWithATemporaryQueueReplyTo() throws Exception {
        gateway(4);
        ConnectionFactory factory = new JmsConnectionFactory("amqp://127.0.0.1:" + broker.port()
                + "?jms.validatePropertyNames=false");
        try (Connection connection = factory.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            MessageConsumer consumer = session.createConsumer(replies);
            MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
            TextMessage request = session.createTextMessage("from jms");
            request.setJMSType("PUT");
            request.setJMSReplyTo(replies);
            producer.send(request);
            jakarta.jms.Message response = consumer.receive(WAIT_SECONDS * 1000);
            assertNotNull(response, "no response");
            assertEquals(request.getJMSMessageID(), response.getJMSCorrelationID());
            assertEquals("200", response.getJMSType());
            assertEquals("PUT", response.getStringProperty("x-echo-method"));
            if (response instanceof TextMessage t) {
                assertEquals("from jms", t.getText());
            } else {
                BytesMessage b = assertInstanceOf(BytesMessage.class, response);
                byte[] bytes = new byte[(int) b.getBodyLength()];
                b.readBytes(bytes);
                assertEquals("from jms", new String(bytes, StandardCharsets.UTF_8));
            }
        }
        assertSettledEventually();
    }

    @Test
    void protonCPythonRequestWithADynamicReplyQueue() throws Exception {
        PeerClientProcess.requireProtonPython();
        gateway(4);
        List<Map<String, Object>> lines = PeerClientProcess.run(Path.of("src", "test", "python"), 60,
                PeerClientProcess.DEBIAN_PYTHON, "proton_client.py", Integer.toString(broker.port()), "queue", QUEUE);
        assertEquals(1, lines.size(), lines.toString());
        Map<String, Object> response = lines.get(0);
        assertEquals("200", response.get("status"));
        assertEquals(response.get("sent_correlation_id"), response.get("correlation_id"));
        assertEquals(response.get("reply_to"), response.get("to"));
        assertEquals("through the broker", response.get("body_text"));
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = (Map<String, Object>) response.get("properties");
        assertEquals("/orders", properties.get("x-echo-path"));
        assertSettledEventually();
    }

    @Test
    void attachesOverTlsCheckingTheBrokersCertificate(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        try (EmbeddedArtemis tlsBroker = EmbeddedArtemis.startWithTls(certificates.serverKeyStore, QUEUE)) {
            AttachedGateway g = new AttachedGateway("amqps://127.0.0.1:" + tlsBroker.tlsPort() + "/" + QUEUE, 2);
            org.eclipse.jetty.util.ssl.SslContextFactory.Client tls = new org.eclipse.jetty.util.ssl.SslContextFactory.Client();
            tls.setTrustStorePath(certificates.clientTrustStore.toString());
            tls.setTrustStorePassword(TestCertificates.PASSWORD);
            tls.setTrustStoreType("PKCS12");
            g.attachment.setSslContextFactory(tls);
            gateways.add(g);
            g.start().awaitAttached(WAIT_SECONDS * 1000);
            try (org.apache.qpid.protonj2.client.Connection c = client.connect("127.0.0.1", tlsBroker.port(),
                    new ConnectionOptions())) {
                Receiver replies = c.openDynamicReceiver();
                c.openSender(QUEUE).send(Message.create(new byte[] {42}).subject("POST").messageId("tls-1")
                        .replyTo(replies.address()));
                Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
                assertNotNull(d, "no response through the TLS attachment");
                assertEquals("tls-1", d.message().correlationId());
                assertEquals("200", d.message().subject());
            }
            assertEquals(1, g.work.calls.get());
        }
    }

    @Test
    void aBrokerWhoseCertificateIsNotTrustedIsNeverAttached(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        try (EmbeddedArtemis tlsBroker = EmbeddedArtemis.startWithTls(certificates.serverKeyStore, QUEUE)) {
            // The JVM's default trust store does not know the test CA: the handshake fails, again and again.
            AttachedGateway g = new AttachedGateway("amqps://127.0.0.1:" + tlsBroker.tlsPort() + "/" + QUEUE, 2);
            gateways.add(g);
            g.start();
            TlsFailures.awaitSecondConnection(g.attachment); // it keeps trying
            assertTrue(!g.attachment.isAttached(), "attached to an untrusted broker");
            // What an operator reads of it (JMX, the warning logged): TLS failed, and why.
            String failure = TlsFailures.awaitLastFailure(g.attachment);
            assertTrue(failure.startsWith("TLS failed: PKIX path building failed"), "last failure: " + failure);
        }
    }

    @Test
    void threeGatewaysShareOneQueue() throws Exception {
        gateway(2);
        gateway(2);
        gateway(2);
        int requests = 60;
        try (Requester r = new Requester()) {
            for (int i = 0; i < requests; i++) {
                r.send(Message.create(("r" + i).getBytes(StandardCharsets.UTF_8)).subject("POST").messageId("m" + i)
                        .property("x-sleep-ms", "20"));
            }
            List<String> correlations = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                correlations.add(String.valueOf(r.receive().correlationId()));
            }
            assertEquals(requests, correlations.stream().distinct().count());
        }
        int total = 0;
        for (AttachedGateway g : gateways) {
            int calls = g.work.calls.get();
            assertTrue(calls > 0, "every gateway took a share of the work: " + calls);
            total += calls;
        }
        assertEquals(requests, total);
        assertSettledEventually();
    }

    @Test
    void creditNeverExceedsTheConfiguredCapacity() throws Exception {
        try (DeliveryTap tap = new DeliveryTap(broker.port())) {
            AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + tap.port() + "/" + QUEUE, 3);
            gateways.add(g);
            g.start().awaitAttached(WAIT_SECONDS * 1000);
            int requests = 24;
            try (Requester r = new Requester()) {
                for (int i = 0; i < requests; i++) {
                    r.send(Message.create(new byte[10]).subject("POST").messageId("c" + i).property("x-sleep-ms",
                            "50"));
                }
                for (int i = 0; i < requests; i++) {
                    r.receive();
                }
            }
            assertTrue(g.work.mostInside.get() <= 3, "servlet concurrency " + g.work.mostInside.get());
            // Our side, exactly: credit granted plus requests unsettled never passed the capacity.
            assertTrue(g.attachment.getMostOutstanding() <= 3, "outstanding " + g.attachment.getMostOutstanding());
            assertEquals(3, g.attachment.getMostOutstanding(), "the whole capacity was used");
            // The wire agrees: the broker never had more than the capacity out to the gateway when it sent one more.
            assertEquals(requests, tap.transfers(), "requests through the tap");
            assertTrue(tap.most() <= 3, "the broker had " + tap.most() + " unsettled at the gateway");
            assertEquals(3, tap.most(), "the broker used the whole capacity");
            assertSettledEventually();
            gateways.remove(g);
            g.close(); // before the tap, so that it does not reconnect to a closed port
        }
    }

    @Test
    void atMostOnceTheBrokerForgetsEachRequestAsItSendsItAndCreditStillBoundsTheServing() throws Exception {
        try (DeliveryTap tap = new DeliveryTap(broker.port())) {
            AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + tap.port() + "/" + QUEUE, 3);
            g.attachment.setAtMostOnce(true);
            gateways.add(g);
            g.start().awaitAttached(WAIT_SECONDS * 1000);
            int requests = 24;
            try (Requester r = new Requester()) {
                for (int i = 0; i < requests; i++) {
                    r.send(Message.create(new byte[10]).subject("POST").messageId("m" + i).property("x-sleep-ms",
                            "50"));
                }
                Set<Object> answered = new HashSet<>();
                for (int i = 0; i < requests; i++) {
                    Message<Object> response = r.receive();
                    assertEquals("200", response.subject());
                    answered.add(response.correlationId());
                }
                assertEquals(requests, answered.size(), "every request answered once");
            }
            assertEquals(requests, g.work.calls.get());
            assertTrue(g.work.mostInside.get() <= 3, "servlet concurrency " + g.work.mostInside.get());
            // Pre-settled requests are not unsettled anywhere: the credit follows the requests being served instead.
            assertEquals(3, g.attachment.getMostOutstanding(), "credit plus requests being served");
            // On the wire: the broker sent every request settled, none for the gateway to settle.
            assertEquals(requests, tap.settledTransfers(), "requests the broker sent settled");
            assertEquals(0, tap.transfers(), "requests the broker sent unsettled");
            assertSettledEventually();
            gateways.remove(g);
            g.close(); // before the tap, so that it does not reconnect to a closed port
        }
    }

    @Test
    void fiveMebibyteRequestAndResponseThroughTheBroker() throws Exception {
        gateway(2);
        byte[] body = new byte[5 * 1024 * 1024];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i % 251);
        }
        try (Requester r = new Requester()) {
            r.send(Message.create(body).subject("POST").messageId("big"));
            Message<Object> response = r.receive();
            assertEquals("200", response.subject());
            assertArrayEquals(body, assertInstanceOf(byte[].class, response.body()));
        }
        assertSettledEventually();
    }

    @Test
    void aRequestThatExpiredBeforeItWasServedIsAnswered504WithoutTheServlet() throws Exception {
        AttachedGateway g = gateway(2);
        try (Requester r = new Requester()) {
            // Created 10 s ago with a 5 s ttl: expired by our rule (creation-time + ttl), while the broker counts the
            // ttl from its own arrival and still delivers it.
            long created = System.currentTimeMillis() - 10_000;
            r.send(Message.create(new byte[1]).subject("POST").messageId("old").creationTime(created).timeToLive(5_000));
            Message<Object> response = r.receive();
            assertEquals("504", response.subject());
            assertEquals("old", response.correlationId());
        }
        assertEquals(0, g.work.calls.get());
        assertEquals(1, g.attachment.getConnectionFactory().getExpiredRequests());
        assertSettledEventually();
    }

    @Test
    void aRequestTheTimeoutAnswered503IsAcceptedSoTheClientHearsOnceAndTheServletRunsOnce() throws Exception {
        AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + broker.port() + "/" + QUEUE, 2);
        gateways.add(g);
        g.attachment.getConnectionFactory().setRequestTimeout(300);
        g.start().awaitAttached(WAIT_SECONDS * 1000);
        try (Requester r = new Requester()) {
            r.send(Message.create(new byte[1]).subject("POST").messageId("slow").property("x-sleep-ms", "1500"));
            Message<Object> response = r.receive();
            assertEquals("503", response.subject());
            assertEquals("slow", response.correlationId());
            // The servlet finishes 1.2 s after the 503; released, the request would be delivered again and answered
            // again. Wait past that, and then some.
            long lateBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (g.attachment.getConnectionFactory().getLateResponses() == 0) {
                assertTrue(System.nanoTime() < lateBy, "the servlet's late response was not counted");
                Thread.sleep(10);
            }
            Delivery again = r.replies.receive(2, TimeUnit.SECONDS);
            assertTrue(again == null, () -> "a second answer: " + again);
        }
        assertEquals(1, g.work.calls.get(), "the servlet ran " + g.work.calls.get() + " times");
        assertEquals(1, g.attachment.getConnectionFactory().getRequestsTimedOut());
        assertSettledEventually();
    }

    @Test
    void gatewaysReconnectAfterTheBrokerRestartsAndServeAgain() throws Exception {
        AttachedGateway g = gateway(2);
        try (Requester r = new Requester()) {
            r.send(Message.create(new byte[1]).subject("POST").messageId("before"));
            assertEquals("before", r.receive().correlationId());
        }
        long connectsBefore = g.attachment.getConnectCount();
        broker.stop();
        broker.startAgain();
        g.awaitAttached(WAIT_SECONDS * 1000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (g.attachment.getConnectCount() == connectsBefore || !g.attachment.isAttached()) {
            assertTrue(System.nanoTime() < deadline, "no reconnection");
            Thread.sleep(20);
        }
        try (Requester r = new Requester()) {
            r.send(Message.create(new byte[1]).subject("POST").messageId("after"));
            assertEquals("after", r.receive().correlationId());
        }
    }

    @Test
    void aGracefulStopFinishesWhatItHoldsAndLeavesTheRestToTheOtherGateways() throws Exception {
        AttachedGateway first = gateway(4);
        int requests = 24;
        try (Requester r = new Requester()) {
            for (int i = 0; i < requests; i++) {
                r.send(Message.create(new byte[1]).subject("POST").messageId("g" + i).property("x-sleep-ms", "200"));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (first.work.calls.get() < 4) {
                assertTrue(System.nanoTime() < deadline, "the first gateway took no requests");
                Thread.sleep(5);
            }
            Thread stopper = new Thread(() -> {
                try {
                    first.server.stop();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            stopper.start();
            AttachedGateway second = gateway(4);
            java.util.Map<String, Integer> answers = new java.util.HashMap<>();
            for (int i = 0; i < requests; i++) {
                Message<Object> response = r.receive();
                assertEquals("200", response.subject());
                answers.merge(String.valueOf(response.correlationId()), 1, Integer::sum);
            }
            stopper.join(WAIT_SECONDS * 1000);
            assertEquals(requests, answers.size(), "every request answered once: " + answers);
            assertEquals(requests, first.work.calls.get() + second.work.calls.get(),
                    "no request served twice: a graceful stop settles what it served and releases what it did not");
        }
        assertSettledEventually();
    }

    @Test
    void aResponseTheBrokerRefusesSendsTheRequestBackToTheQueueAndTheServletSeesTheRedelivery() throws Exception {
        AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + broker.port() + "/redeliver.orders", 2);
        gateways.add(g);
        g.start().awaitAttached(WAIT_SECONDS * 1000);
        try (org.apache.qpid.protonj2.client.Connection c = client.connect("127.0.0.1", broker.port(),
                new ConnectionOptions())) {
            // The reply-to names an address the broker will not create: it refuses each response, so the gateway
            // modifies the request (delivery-failed), and the broker delivers it again until its limit of three.
            c.openSender("redeliver.orders").send(Message.create(new byte[] {7}).to("/orders").subject("POST")
                    .messageId("refused-1").replyTo("nowhere.replies"));
            Receiver dead = c.openReceiver("dead");
            Delivery d = dead.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "the request was not dead-lettered after its deliveries");
            assertEquals("refused-1", d.message().messageId());
            d.accept();
        }
        assertEquals(3, g.work.calls.get(), "served once per delivery");
        assertEquals(List.of("0", "1", "2"), g.work.deliveryCounts(), "the servlet saw each redelivery");
    }

    /** Every request the gateways took was settled at the broker: nothing is left in flight or in the queue. */
    private void assertSettledEventually() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (broker.messageCount(QUEUE) != 0) {
            assertTrue(System.nanoTime() < deadline, "the queue still holds " + broker.messageCount(QUEUE)
                    + " messages (" + broker.deliveringCount(QUEUE) + " delivered, unsettled)");
            Thread.sleep(10);
        }
    }
}
