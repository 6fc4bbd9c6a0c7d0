package io.amqpservlet.spring;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.spring.actuate.AmqpBrokerAttachmentHealthIndicator;
import io.amqpservlet.spring.actuate.AmqpServletHealthAutoConfiguration;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code amqp.servlet.attachments.<name>.*}: each name is an attachment with the single form's settings and defaults;
 * the map alone is enough for the starter to add its connectors and health; an entry without a uri, or with a name
 * that cannot name a connector and a health component, stops the application with a message that names it; and the
 * configuration metadata describes the map for IDEs.
 */
class NamedAttachmentsPropertiesTest {
    private final WebApplicationContextRunner context = new WebApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(AmqpServletAutoConfiguration.class, AmqpServletHealthAutoConfiguration.class));

    private static AmqpServletConnectors connectorsWith(AmqpServletProperties properties, Server server) {
        AmqpServletConnectors connectors = new AmqpServletConnectors(properties, name -> {
            throw new AssertionError("no bundle");
        }, () -> null);
        connectors.customize(server);
        return connectors;
    }

    @Test
    void eachNamedAttachmentTakesItsSettingsAndTheSingleFormsDefaults() {
        AmqpServletProperties properties = new AmqpServletProperties();
        properties.setRequestTimeout(Duration.ofSeconds(7));
        properties.getAttach().setUri("amqp://127.0.0.1:5672/legacy");
        properties.getAttach().setCredit(9);
        AmqpServletProperties.Attach orders = new AmqpServletProperties.Attach();
        orders.setUri("amqp://app:secret@a:5672,b:5673/orders");
        orders.setCredit(5);
        orders.setRequestTimeout(Duration.ofSeconds(2));
        orders.setMaxReplyLinks(3);
        orders.setAtMostOnce(true);
        AmqpServletProperties.Attach billing = new AmqpServletProperties.Attach();
        billing.setUri("amqp://127.0.0.1:5674/billing");
        properties.getAttachments().put("orders", orders);
        properties.getAttachments().put("billing", billing);
        Server server = new Server();
        AmqpServletConnectors connectors = connectorsWith(properties, server);

        assertEquals(List.of("orders", "billing"), List.copyOf(connectors.getAttachments().keySet()));
        assertEquals(List.of("amqp-attach", "amqp-attach-orders", "amqp-attach-billing"),
                Arrays.stream(server.getConnectors()).map(Connector::getName).toList());
        AmqpBrokerAttachment madeOrders = connectors.getAttachments().get("orders");
        assertEquals(List.of("a:5672", "b:5673"), madeOrders.getBrokers());
        assertEquals(List.of("orders"), madeOrders.getAddresses());
        assertEquals(5, madeOrders.getCredit());
        assertEquals(2000, madeOrders.getConnectionFactory().getRequestTimeout());
        assertEquals(3, madeOrders.getMaxReplyLinks());
        assertTrue(madeOrders.isAtMostOnce());

        // Not given: the defaults the single form has, not the single form's values (its credit 9).
        AmqpBrokerAttachment madeBilling = connectors.getAttachments().get("billing");
        AmqpServletProperties.Attach defaults = new AmqpServletProperties.Attach();
        assertEquals(defaults.getCredit(), madeBilling.getCredit());
        assertEquals(7000, madeBilling.getConnectionFactory().getRequestTimeout(), "the listener's request timeout");
        assertEquals(defaults.getAttachTimeout().toMillis(), madeBilling.getAttachTimeout());
        assertEquals(defaults.getMinReconnectDelay().toMillis(), madeBilling.getMinReconnectDelay());
        assertEquals(defaults.getMaxReconnectDelay().toMillis(), madeBilling.getMaxReconnectDelay());
        assertEquals(defaults.getMaxReplyLinks(), madeBilling.getMaxReplyLinks());
        assertEquals(defaults.getReplyLinkIdleTimeout().toMillis(), madeBilling.getReplyLinkIdleTimeout());
        assertEquals(defaults.isAtMostOnce(), madeBilling.isAtMostOnce());

        assertEquals(9, connectors.getAttachment().getCredit(), "the single form is unchanged beside them");
        assertTrue(madeOrders.getConnectionFactory() != madeBilling.getConnectionFactory()
                && madeOrders.getConnectionFactory() != connectors.getAttachment().getConnectionFactory(),
                "a factory, and so a count of requests, of each attachment's own");
    }

    @Test
    void theMapAloneAddsTheConnectorsAndOneHealthComponentPerName() {
        context.withPropertyValues("amqp.servlet.attachments.orders.uri=amqp://127.0.0.1:5672/orders",
                "amqp.servlet.attachments.billing.uri=amqp://127.0.0.1:5672/billing").run(app -> {
                    assertNull(app.getStartupFailure());
                    AmqpServletConnectors connectors = app.getBean(AmqpServletConnectors.class);
                    assertEquals(List.of("orders", "billing"), List.copyOf(connectors.getAttachmentNames()));
                    assertTrue(app.getBeansOfType(AmqpBrokerAttachmentHealthIndicator.class).isEmpty(),
                            "no amqp.servlet.attach.uri, no amqpAttachment");
                    CompositeHealthContributor all = app.getBean("amqpAttachmentsHealthContributor",
                            CompositeHealthContributor.class);
                    assertNotNull(all.getContributor("orders"));
                    assertNotNull(all.getContributor("billing"));
                    assertNull(all.getContributor("legacy"));
                });
        context.run(app -> assertTrue(app.getBeansOfType(AmqpServletConnectors.class).isEmpty(),
                "no property, nothing added"));
    }

    @Test
    void anEntryWithoutUriOrWithAnUnusableNameStopsTheApplication() {
        context.withPropertyValues("amqp.servlet.attachments.orders.credit=4").run(app -> {
            Throwable failure = app.getStartupFailure();
            assertNotNull(failure);
            assertTrue(messages(failure).contains("amqp.servlet.attachments.orders.uri is not set"), messages(failure));
        });
        context.withPropertyValues("amqp.servlet.attachments[a/b].uri=amqp://127.0.0.1:5672/orders").run(app -> {
            Throwable failure = app.getStartupFailure();
            assertNotNull(failure);
            assertTrue(messages(failure).contains("the name 'a/b' is not letters, digits"), messages(failure));
        });
    }

    @Test
    void aNameThatIsNotLettersDigitsDashesAndUnderscoresIsRefused() {
        AmqpServletProperties properties = new AmqpServletProperties();
        AmqpServletProperties.Attach orders = new AmqpServletProperties.Attach();
        orders.setUri("amqp://127.0.0.1:5672/orders");
        properties.getAttachments().put("orders.eu", orders);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> connectorsWith(properties, new Server()));
        assertTrue(refused.getMessage().contains("'orders.eu'"), refused.getMessage());
    }

    @Test
    void metadataDescribesTheMapForIdes() throws IOException {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertNotNull(in, "the configuration processor's metadata");
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        // The processor lists a map of objects as one property of its type: IDEs complete each entry's settings
        // (uri, credit, ...) from that type, the class of amqp.servlet.attach.*, whose settings the metadata lists.
        assertTrue(metadata.contains("\"name\": \"amqp.servlet.attachments\",\n      \"type\": \"java.util.Map<"
                + "java.lang.String,io.amqpservlet.spring.AmqpServletProperties$Attach>\""), metadata);
        assertTrue(metadata.contains("Broker attachments by name"), "its description from the field's javadoc");
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
