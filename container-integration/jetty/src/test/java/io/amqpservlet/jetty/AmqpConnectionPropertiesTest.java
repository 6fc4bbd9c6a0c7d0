package io.amqpservlet.jetty;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection properties a factory's open offers, as set one by one, as a map, and as the jetty-home module's
 * text; {@code LinkPairInteropTest} reads them from a real client.
 */
class AmqpConnectionPropertiesTest {
    @Test
    void setOneByOneKeepsTheOrderAndNullRemoves() {
        AmqpConnectionFactory f = new AmqpConnectionFactory();
        assertTrue(f.getConnectionProperties().isEmpty());
        f.setConnectionProperty("product", "RabbitMQ");
        f.setConnectionProperty("version", "4.0.0");
        f.setConnectionProperty("node", "rabbit@here");
        f.setConnectionProperty("version", "4.1.0");
        assertEquals(List.of("product", "version", "node"), List.copyOf(f.getConnectionProperties().keySet()));
        assertEquals("4.1.0", f.getConnectionProperties().get("version"));
        f.setConnectionProperty("node", null);
        assertEquals(Map.of("product", "RabbitMQ", "version", "4.1.0"), f.getConnectionProperties());
        assertEquals(f.getConnectionProperties(), f.getEngineConfig().connectionProperties());
        assertThrows(IllegalArgumentException.class, () -> f.setConnectionProperty("", "x"));
    }

    @Test
    void theModulesTextIsCommaSeparatedPairs() {
        assertEquals(Map.of(), AmqpConnectionFactory.connectionPropertiesOf(""));
        assertEquals(Map.of(), AmqpConnectionFactory.connectionPropertiesOf(null));
        Map<String, String> p = AmqpConnectionFactory.connectionPropertiesOf(" product=RabbitMQ, version = 4.0.0,"
                + "node=rabbit@host,empty=");
        assertEquals(List.of("product", "version", "node", "empty"), List.copyOf(p.keySet()));
        assertEquals("4.0.0", p.get("version"));
        assertEquals("rabbit@host", p.get("node"));
        assertEquals("", p.get("empty"));
        assertThrows(IllegalArgumentException.class, () -> AmqpConnectionFactory.connectionPropertiesOf("product"));
        assertThrows(IllegalArgumentException.class, () -> AmqpConnectionFactory.connectionPropertiesOf("=x"));
    }
}
