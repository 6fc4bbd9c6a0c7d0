package io.amqpservlet.bench.broker;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.gateway.Gateway;
import io.amqpservlet.gateway.GatewayOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The brokered baseline works end to end: the generator's requests go through a real Artemis broker to the
 * responder, whose answers come back to the generator's temporary queue, matched by correlation-id; and the
 * responder answers what the gateway's {@code /echo} answers, so that the broker carries the same messages whichever
 * of the two consumes its queue.
 */
@Timeout(120)
class BrokeredLoadTest {
    @Test
    void generatorGetsEveryAnswerThroughTheBroker() throws Exception {
        try (ArtemisBroker.Running broker = ArtemisBroker.start(0)) {
            LoadOptions o = new LoadOptions().endpoint("amqp://127.0.0.1:" + broker.port() + "/" + ArtemisBroker.QUEUE)
                    .connections(2).window(4).warmupMillis(300).durationMillis(1_500).progress(false);
            LoadResult r = new LoadRun(o, null).run();
            assertTrue(r.responses() > 0, r.describe());
            assertEquals(0, r.errorCount(), () -> "errors: " + r.errors());
        }
    }

    @Test
    void theResponderAnswersAsTheGatewaysEchoDoes() throws Exception {
        byte[] body = "x".repeat(100).getBytes(StandardCharsets.US_ASCII);
        Gateway gateway = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0"}));
        gateway.start();
        try (ArtemisBroker.Running broker = ArtemisBroker.start(0)) {
            AmqpResponse echo = post(gateway.amqpPort(), "/echo", body);
            AmqpResponse responder = post(broker.port(), ArtemisBroker.QUEUE, body);

            assertEquals(200, echo.status());
            assertEquals(echo.status(), responder.status());
            assertEquals(echo.contentType(), responder.contentType());
            assertArrayEquals(echo.body(), responder.body());
            // The same application-properties, the date's value aside (each says when it answered, in the same form).
            Map<String, String> expected = new TreeMap<>(echo.headers());
            Map<String, String> actual = new TreeMap<>(responder.headers());
            DateTimeFormatter.RFC_1123_DATE_TIME.parse(expected.put("date", "(a date)"));
            DateTimeFormatter.RFC_1123_DATE_TIME.parse(actual.put("date", "(a date)"));
            assertEquals(expected, actual);
            assertEquals(5, actual.size(), actual::toString); // http:response, date, x-echo-*, content-length
        } finally {
            gateway.stop();
        }
    }

    /** POSTs {@code body} to {@code /echo} as the generator does, sent to {@code address} on {@code port}. */
    private static AmqpResponse post(int port, String address, byte[] body) throws IOException {
        long deadline = AmqpRequestClient.now() + 20_000;
        try (AmqpRequestClient client = AmqpRequestClient.connect("127.0.0.1", port, address,
                new EngineConfig().saslAnonymous().hostname("127.0.0.1"), deadline)) {
            return client.exchange("POST", "/echo", Map.of(), "application/octet-stream", body, deadline);
        }
    }
}
