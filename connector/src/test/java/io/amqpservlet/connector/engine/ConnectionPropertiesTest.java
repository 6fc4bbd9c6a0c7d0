package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Open;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The open's properties map (AMQP 1.0 §2.7.1) as configured: symbol keys, string values, in both roles. */
class ConnectionPropertiesTest {
    /** Reads the peer's open properties into a map of key to value text, noting each value's type. */
    private static final class OpenReader implements EngineHandler {
        final Map<String, String> properties = new LinkedHashMap<>();
        boolean propertiesAbsent;

        @Override
        public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
            if (remoteOpen.properties().isNull()) {
                propertiesAbsent = true;
                return null;
            }
            AmqpReader r = remoteOpen.properties().reader(new AmqpReader());
            r.enter();
            while (r.hasNext()) {
                r.next();
                String key = r.type() + ":" + r.getString();
                r.next();
                properties.put(key, r.type() + ":" + r.getString());
            }
            return null;
        }
    }

    @Test
    void bothRolesOfferTheirConfiguredPropertiesAsSymbolKeysAndStringValues() {
        Map<String, String> offered = new LinkedHashMap<>();
        offered.put("product", "RabbitMQ");
        offered.put("version", "4.0.0");
        offered.put("node", "rabbit@gateway");
        OpenReader client = new OpenReader();
        OpenReader server = new OpenReader();
        EnginePair pair = new EnginePair(
                new EngineConfig().saslRequired(false).connectionProperties(Map.of("platform", "test")), client,
                new EngineConfig().saslRequired(false).connectionProperties(offered), server);
        pair.pump();
        assertEquals(Map.of("SYMBOL:product", "STRING:RabbitMQ", "SYMBOL:version", "STRING:4.0.0",
                "SYMBOL:node", "STRING:rabbit@gateway"), client.properties);
        assertEquals(Map.of("SYMBOL:platform", "STRING:test"), server.properties);
    }

    @Test
    void noPropertiesByDefault() {
        OpenReader client = new OpenReader();
        EnginePair pair = new EnginePair(new EngineConfig().saslRequired(false), client,
                new EngineConfig().saslRequired(false), new OpenReader());
        pair.pump();
        assertTrue(client.propertiesAbsent);
        assertTrue(new EngineConfig().connectionProperties().isEmpty());
    }

    @Test
    void keysMustBeAsciiSymbolsAndValuesPresent() {
        EngineConfig config = new EngineConfig();
        assertThrows(IllegalArgumentException.class, () -> config.connectionProperties(Map.of("", "x")));
        assertThrows(IllegalArgumentException.class, () -> config.connectionProperties(Map.of("prodüct", "x")));
        Map<String, String> nullValue = new LinkedHashMap<>();
        nullValue.put("product", null);
        assertThrows(IllegalArgumentException.class, () -> config.connectionProperties(nullValue));
    }
}
