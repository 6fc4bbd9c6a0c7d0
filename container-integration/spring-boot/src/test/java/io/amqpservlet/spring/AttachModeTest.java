package io.amqpservlet.spring;

import io.amqpservlet.jetty.EmbeddedArtemis;
import io.amqpservlet.spring.sample.SampleApplication;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attach mode from properties alone: the sample consumes the queue {@code orders} of an embedded ActiveMQ Artemis
 * ({@code amqp.servlet.attach.uri}), answers through the broker, names its requests' user
 * ({@code amqp.servlet.attach.request-user}, which Spring Security sees), and reports the attachment's health and
 * its meters (amqp-servlet-micrometer's, tagged {@code connector.name} {@code amqp-attach}).
 */
@DirtiesContext // its attachment would go on trying the stopped broker while other classes run
@SpringBootTest(classes = SampleApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"amqp.servlet.attach.request-user=gateway", "amqp.servlet.attach.credit=4"})
class AttachModeTest {
    private static EmbeddedArtemis artemis;

    @DynamicPropertySource
    static void broker(DynamicPropertyRegistry registry) throws Exception {
        artemis = EmbeddedArtemis.start("orders");
        registry.add("amqp.servlet.attach.uri", () -> "amqp://127.0.0.1:" + artemis.port() + "/orders");
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (artemis != null) {
            artemis.close();
        }
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    AmqpServletConnectors connectors;

    @Autowired
    MeterRegistry meters;

    private Search attachmentMeter(String name) {
        return meters.find(name).tag("connector.name", AmqpServletConnectors.ATTACHMENT_NAME);
    }

    private Message<Object> callThroughBroker(String method, String path) throws Exception {
        try (Client client = Client.create();
             Connection connection = client.connect("127.0.0.1", artemis.port(), new ConnectionOptions())) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openSender("orders");
            sender.send(Message.create().to(path).subject(method).replyTo(replies.address()));
            Delivery delivery = replies.receive(20, TimeUnit.SECONDS);
            assertNotNull(delivery, "no response through the broker");
            return delivery.message();
        }
    }

    private String health() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + httpPort + "/actuator/health/amqpAttachment")).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    @Test
    void servesTheQueueAndReportsTheAttachmentUp() throws Exception {
        assertNull(connectors.getListener(), "no amqp.servlet.port, no listener");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!connectors.getAttachment().isAttached() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        String health = health();
        assertTrue(health.startsWith("200 ") && health.contains("\"status\":\"UP\"")
                && health.contains("\"state\":\"ATTACHED\""), health);
        assertEquals(1, attachmentMeter("amqp.servlet.attach.state").tag("state", "ATTACHED").gauge().value());
        assertTrue(attachmentMeter("amqp.servlet.attach.connects").functionCounter().count() >= 1);
        assertEquals(0, attachmentMeter("amqp.servlet.attach.consecutive.failures").gauge().value());
        double served = attachmentMeter("amqp.servlet.requests").tag("outcome", "served").functionCounter().count();

        Message<Object> order = callThroughBroker("GET", "/orders/1");
        assertEquals("200", order.subject());
        assertEquals("{\"id\":\"1\",\"item\":\"tea\",\"quantity\":2}",
                new String((byte[]) order.body(), StandardCharsets.UTF_8));

        Message<Object> who = callThroughBroker("GET", "/whoami");
        assertEquals("200", who.subject());
        assertEquals("{\"name\":\"gateway\",\"authorities\":[]}", new String((byte[]) who.body(),
                StandardCharsets.UTF_8));
        assertEquals(served + 2, attachmentMeter("amqp.servlet.requests").tag("outcome", "served")
                .functionCounter().count(), "both requests count on the attachment's meters");
        assertTrue(meters.find("amqp.servlet.connections").meters().isEmpty(),
                "no listener, and an attachment has no connection meters");
    }

    @Test
    void attachmentIsDownWhileTheBrokerIsGone() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!connectors.getAttachment().isAttached() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        artemis.stop();
        try {
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (connectors.getAttachment().isAttached() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            String health = health();
            assertTrue(health.startsWith("503 ") && health.contains("\"status\":\"DOWN\""), health);
            // Why, in the details: the broker's going away ended the last connection.
            assertTrue(health.contains("\"lastFailure\":\""), health);
        } finally {
            artemis.startAgain();
        }
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!connectors.getAttachment().isAttached() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(connectors.getAttachment().isAttached(), connectors.getAttachment().getState());
    }
}
