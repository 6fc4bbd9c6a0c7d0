package io.amqpservlet.spring;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several broker attachments from properties alone: {@code amqp.servlet.attachments.orders} consumes the queue
 * {@code orders} of one embedded ActiveMQ Artemis, {@code amqp.servlet.attachments.billing} the queue {@code billing}
 * of another, and the single form {@code amqp.servlet.attach} the queue {@code legacy} of the first, side by side.
 * Each has its own settings (its request user, billing its credit), its own health component and its own meters; a
 * broker stopped takes down only the attachment that consumes it, and a health group of another stays up.
 */
@DirtiesContext // its attachments would go on trying the stopped brokers while other classes run
@SpringBootTest(classes = SampleApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"amqp.servlet.attach.request-user=legacy-gateway",
                "amqp.servlet.attachments.orders.request-user=orders-gateway",
                "amqp.servlet.attachments.billing.request-user=billing-gateway",
                "amqp.servlet.attachments.billing.credit=3",
                "management.endpoint.health.group.orders-ready.include=amqpAttachments/orders"})
class NamedAttachmentsTest {
    private static EmbeddedArtemis first;
    private static EmbeddedArtemis second;

    @DynamicPropertySource
    static void brokers(DynamicPropertyRegistry registry) throws Exception {
        first = EmbeddedArtemis.start("orders", "legacy");
        second = EmbeddedArtemis.start("billing");
        registry.add("amqp.servlet.attach.uri", () -> "amqp://127.0.0.1:" + first.port() + "/legacy");
        registry.add("amqp.servlet.attachments.orders.uri", () -> "amqp://127.0.0.1:" + first.port() + "/orders");
        registry.add("amqp.servlet.attachments.billing.uri", () -> "amqp://127.0.0.1:" + second.port() + "/billing");
    }

    @AfterAll
    static void stopBrokers() throws Exception {
        for (EmbeddedArtemis broker : new EmbeddedArtemis[] {first, second}) {
            if (broker != null) {
                broker.close();
            }
        }
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    AmqpServletConnectors connectors;

    @Autowired
    MeterRegistry meters;

    private AmqpBrokerAttachment orders() {
        return connectors.getAttachments().get("orders");
    }

    private AmqpBrokerAttachment billing() {
        return connectors.getAttachments().get("billing");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(20);
        }
    }

    private void awaitAllAttached() throws InterruptedException {
        await(() -> connectors.getAttachment().isAttached() && orders().isAttached() && billing().isAttached(),
                "every attachment attached");
    }

    private Search meter(String name, String connector) {
        return meters.find(name).tag("connector.name", connector);
    }

    private double served(String connector) {
        return meter("amqp.servlet.requests", connector).tag("outcome", "served").functionCounter().count();
    }

    /** The user a request of {@code queue} of {@code broker} is served as, sent by a protonj2 client. */
    private static String whoamiThrough(EmbeddedArtemis broker, String queue) throws Exception {
        try (Client client = Client.create();
             Connection connection = client.connect("127.0.0.1", broker.port(), new ConnectionOptions())) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openSender(queue);
            sender.send(Message.create().to("/whoami").subject("GET").replyTo(replies.address()));
            Delivery delivery = replies.receive(20, TimeUnit.SECONDS);
            assertNotNull(delivery, "no response through " + queue);
            Message<Object> answer = delivery.message();
            assertEquals("200", answer.subject(), queue);
            return new String((byte[]) answer.body(), StandardCharsets.UTF_8);
        }
    }

    private String health(String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + httpPort + "/actuator/health/" + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    @Test
    void eachAttachmentServesItsQueueWithItsOwnSettingsHealthAndMeters() throws Exception {
        awaitAllAttached();
        assertEquals(List.of("orders", "billing"), List.copyOf(connectors.getAttachments().keySet()));
        assertEquals("amqp-attach-orders", orders().getName());
        assertEquals("amqp-attach-billing", billing().getName());
        assertEquals(3, billing().getCredit());
        assertEquals(0, orders().getCredit(), "a setting not given takes the single form's default");
        assertEquals(List.of("orders"), orders().getAddresses());

        String[] connectorNames = {"amqp-attach-orders", "amqp-attach-billing", AmqpServletConnectors.ATTACHMENT_NAME};
        double[] before = new double[connectorNames.length];
        for (int i = 0; i < connectorNames.length; i++) {
            before[i] = served(connectorNames[i]);
            assertEquals(1, meter("amqp.servlet.attach.state", connectorNames[i]).tag("state", "ATTACHED").gauge()
                    .value(), connectorNames[i]);
        }

        assertEquals("{\"name\":\"orders-gateway\",\"authorities\":[]}", whoamiThrough(first, "orders"));
        assertEquals("{\"name\":\"billing-gateway\",\"authorities\":[]}", whoamiThrough(second, "billing"));
        assertEquals("{\"name\":\"legacy-gateway\",\"authorities\":[]}", whoamiThrough(first, "legacy"));
        for (int i = 0; i < connectorNames.length; i++) {
            assertEquals(before[i] + 1, served(connectorNames[i]), "one request counted on " + connectorNames[i]);
        }

        String all = health("amqpAttachments");
        assertTrue(all.startsWith("200 ") && all.contains("\"status\":\"UP\"") && all.contains("\"orders\":{")
                && all.contains("\"billing\":{"), all);
        String one = health("amqpAttachments/billing");
        assertTrue(one.startsWith("200 ") && one.contains("\"status\":\"UP\"")
                && one.contains("\"state\":\"ATTACHED\"") && one.contains("\"credit\":3"), one);
        String single = health("amqpAttachment");
        assertTrue(single.startsWith("200 ") && single.contains("\"status\":\"UP\""), single);
    }

    @Test
    void brokerStoppedTakesDownOnlyItsAttachment() throws Exception {
        awaitAllAttached();
        second.stop();
        try {
            await(() -> !billing().isAttached(), "billing detached once its broker stopped");
            String billing = health("amqpAttachments/billing");
            assertTrue(billing.startsWith("503 ") && billing.contains("\"status\":\"DOWN\"")
                    && billing.contains("\"lastFailure\":\""), billing);
            String orders = health("amqpAttachments/orders");
            assertTrue(orders.startsWith("200 ") && orders.contains("\"status\":\"UP\""), orders);
            String all = health("amqpAttachments");
            assertTrue(all.startsWith("503 ") && all.contains("\"status\":\"DOWN\""), all);
            String single = health("amqpAttachment");
            assertTrue(single.startsWith("200 ") && single.contains("\"status\":\"UP\""), single);
            String group = health("orders-ready");
            assertTrue(group.startsWith("200 ") && group.contains("\"status\":\"UP\"")
                    && group.contains("\"orders\":{") && !group.contains("billing"), group);
            assertEquals(0, meter("amqp.servlet.attach.state", "amqp-attach-billing").tag("state", "ATTACHED")
                    .gauge().value());
            assertEquals(1, meter("amqp.servlet.attach.state", "amqp-attach-orders").tag("state", "ATTACHED")
                    .gauge().value());
            // The other attachments serve on.
            assertEquals("{\"name\":\"orders-gateway\",\"authorities\":[]}", whoamiThrough(first, "orders"));
        } finally {
            second.startAgain();
        }
        await(() -> billing().isAttached(), "billing attached again once its broker is back");
        assertEquals("{\"name\":\"billing-gateway\",\"authorities\":[]}", whoamiThrough(second, "billing"));
    }
}
