package io.amqpservlet.jetty.examples;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.connector.engine.EngineConfig;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The embedded examples of docs/jetty.md, run for both of Jetty's servlet environments. */
class EmbeddedExamplesTest {
    @Test
    void ee11ExampleServesAnAmqpRequest() throws Exception {
        Server server = EmbeddedEe11Example.start(0, 0);
        try {
            assertEquals("hello from ee11, null", get(server, "/hello"));
        } finally {
            server.stop();
        }
    }

    @Test
    void ee10ExampleServesAnAmqpRequest() throws Exception {
        Server server = EmbeddedEe10Example.start(0, 0);
        try {
            assertEquals("hello from ee10, null", get(server, "/hello"));
        } finally {
            server.stop();
        }
    }

    private static String get(Server server, String target) throws Exception {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        long deadline = AmqpRequestClient.now() + 10_000;
        try (AmqpRequestClient client = AmqpRequestClient.connect("127.0.0.1", port, "/", new EngineConfig(), deadline)) {
            AmqpResponse response = client.exchange("GET", target, Map.of(), null, null, deadline);
            assertEquals(200, response.status());
            return response.bodyText();
        }
    }
}
