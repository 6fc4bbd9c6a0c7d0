package io.amqpservlet.spring;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.EmbeddedArtemis;
import io.amqpservlet.spring.sample.SampleApplication;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code server.shutdown=graceful}: a request in flight when the application closes is answered and settled, and
 * the connection is then closed by the server, as Boot lets an HTTP request in flight finish; every broker
 * attachment, the named ones too, stops taking requests and answers those it holds.
 */
class GracefulShutdownTest {
    @Test
    void requestInFlightIsAnsweredAndSettledBeforeTheConnectionCloses() throws Exception {
        ConfigurableApplicationContext app = new SpringApplicationBuilder(SampleApplication.class)
                .properties("server.port=0", "amqp.servlet.port=0", "server.shutdown=graceful",
                        "spring.lifecycle.timeout-per-shutdown-phase=20s")
                .run();
        int port = app.getEnvironment().getProperty(AmqpListenerPort.PROPERTY, Integer.class);
        AmqpConnectionFactory factory = app.getBean(AmqpServletConnectors.class).getListenerFactory();
        try (Client client = Client.create();
             Connection connection = client.connect("127.0.0.1", port, new ConnectionOptions())) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openAnonymousSender();
            Tracker tracker = sender.send(Message.create().to("/slow?ms=1500").subject("GET")
                    .replyTo(replies.address()));
            // Close only once the request is in flight: one that arrives after the graceful stop has begun is
            // released. The listener counts it served as it hands it to Jetty, and from then on the connection stays
            // open until it is answered.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (factory.getRequestsServed() < 1) {
                assertTrue(System.nanoTime() < deadline, "the request never reached the controller");
                Thread.sleep(10);
            }
            CompletableFuture<Void> closed = CompletableFuture.runAsync(app::close);

            Delivery delivery = replies.receive(10, TimeUnit.SECONDS);
            assertNotNull(delivery, "the request in flight was not answered");
            assertEquals("200", delivery.message().subject());
            assertEquals("slept 1500", new String((byte[]) delivery.message().body()));
            tracker.awaitSettlement(10, TimeUnit.SECONDS);
            assertTrue(tracker.remoteSettled());
            assertTrue(tracker.remoteState().isAccepted(), String.valueOf(tracker.remoteState()));

            closed.get(20, TimeUnit.SECONDS);
            assertTrue(!app.isActive());
        } finally {
            app.close();
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(10);
        }
    }

    @Test
    void everyAttachmentStopsTakingRequestsAndAnswersThoseInFlight() throws Exception {
        List<String> queues = List.of("legacy", "orders", "billing");
        try (EmbeddedArtemis artemis = EmbeddedArtemis.start(queues.toArray(new String[0]))) {
            String broker = "amqp://127.0.0.1:" + artemis.port() + "/";
            ConfigurableApplicationContext app = new SpringApplicationBuilder(SampleApplication.class)
                    .properties("server.port=0", "server.shutdown=graceful",
                            "spring.lifecycle.timeout-per-shutdown-phase=20s",
                            "amqp.servlet.attach.uri=" + broker + "legacy",
                            "amqp.servlet.attachments.orders.uri=" + broker + "orders",
                            "amqp.servlet.attachments.billing.uri=" + broker + "billing")
                    .run();
            try (Client client = Client.create();
                 Connection connection = client.connect("127.0.0.1", artemis.port(), new ConnectionOptions())) {
                AmqpServletConnectors connectors = app.getBean(AmqpServletConnectors.class);
                List<AmqpBrokerAttachment> attachments = new ArrayList<>();
                attachments.add(connectors.getAttachment());
                attachments.add(connectors.getAttachments().get("orders"));
                attachments.add(connectors.getAttachments().get("billing"));
                for (AmqpBrokerAttachment a : attachments) {
                    await(a::isAttached, a.getName() + " attached");
                }
                Receiver replies = connection.openDynamicReceiver();
                List<Tracker> trackers = new ArrayList<>();
                for (String queue : queues) {
                    trackers.add(connection.openSender(queue).send(Message.create().to("/slow?ms=1500")
                            .subject("GET").replyTo(replies.address())));
                }
                for (AmqpBrokerAttachment a : attachments) {
                    await(() -> a.getConnectionFactory().getRequestsServed() >= 1, a.getName() + " serving");
                }
                CompletableFuture<Void> closed = CompletableFuture.runAsync(app::close);

                // Each attachment's connection stops as a listener's does: the broker's credit taken back, so a
                // request sent now stays in its queue.
                for (AmqpBrokerAttachment a : attachments) {
                    await(() -> a.getConnectionFactory().getConnections().isShutdown(),
                            a.getName() + " was not stopped gracefully");
                }
                Tracker late = connection.openSender("orders").send(Message.create().to("/slow?ms=1")
                        .subject("GET").replyTo(replies.address()));
                late.awaitSettlement(10, TimeUnit.SECONDS);

                for (int i = 0; i < queues.size(); i++) {
                    Delivery delivery = replies.receive(10, TimeUnit.SECONDS);
                    assertNotNull(delivery, "a request in flight was not answered");
                    assertEquals("200", delivery.message().subject());
                    assertEquals("slept 1500", new String((byte[]) delivery.message().body()));
                }
                for (Tracker tracker : trackers) {
                    tracker.awaitSettlement(10, TimeUnit.SECONDS);
                    assertTrue(tracker.remoteState().isAccepted(), String.valueOf(tracker.remoteState()));
                }
                closed.get(20, TimeUnit.SECONDS);
                assertTrue(!app.isActive());
                for (AmqpBrokerAttachment a : attachments) {
                    assertEquals("STOPPED", a.getState(), a.getName());
                }
                assertEquals(1, artemis.messageCount("orders"), "the request sent during the stop was not taken");
                assertEquals(0, artemis.messageCount("legacy") + artemis.messageCount("billing"));
            } finally {
                app.close();
            }
        }
    }
}
