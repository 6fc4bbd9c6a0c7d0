package io.amqpservlet.spring;

import io.amqpservlet.jetty.AmqpConnectionFactory;
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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code server.shutdown=graceful}: a request in flight when the application closes is answered and settled, and
 * the connection is then closed by the server, as Boot lets an HTTP request in flight finish.
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
}
