package io.amqpservlet.gateway;

import io.amqpservlet.jetty.EmbeddedArtemis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --health}: liveness and readiness for probes, over real HTTP, without credentials even where every other path
 * needs them; readiness follows a real Artemis broker's attachment (down while the broker is, up again after) and is
 * served on the metrics port of its own too.
 */
@Timeout(120)
class GatewayHealthTest {
    private static final int WAIT_SECONDS = 30;
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void probesNeedNoCredentialsAndSayNoMoreThanAStatus() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
                "--user", "alice:secret", "--health"}));
        g.start();
        try {
            HttpResponse<String> live = get(g.httpPort(), HealthHandler.LIVE);
            assertEquals(200, live.statusCode(), live.body());
            assertEquals("{\"status\":\"UP\"}", live.body());
            HttpResponse<String> ready = get(g.httpPort(), HealthHandler.READY);
            assertEquals(200, ready.statusCode(), ready.body());
            assertEquals("{\"status\":\"UP\",\"server\":\"UP\",\"ports\":{\"up\":2,\"down\":0},"
                    + "\"attachments\":{\"up\":0,\"down\":0}}", ready.body());
            assertEquals("application/json", ready.headers().firstValue("content-type").orElse(null));
            assertEquals("no-store", ready.headers().firstValue("cache-control").orElse(null));
            assertEquals(401, get(g.httpPort(), "/echo").statusCode(), "the servlets still need a user");
            assertEquals(401, get(g.httpPort(), "/health").statusCode(), "only the two paths are open");
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + g.httpPort() + HealthHandler.READY))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
            HttpResponse<String> head = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + g.httpPort() + HealthHandler.READY))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, head.statusCode());
            assertEquals("", head.body());
        } finally {
            g.stop();
        }
    }

    @Test
    void withoutTheOptionTheApplicationHasThePaths() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0"}));
        g.start();
        try {
            assertEquals(404, get(g.httpPort(), HealthHandler.READY).statusCode());
        } finally {
            g.stop();
        }
    }

    @Test
    void readinessFollowsTheAttachmentAndIsOnTheMetricsPort() throws Exception {
        try (EmbeddedArtemis broker = EmbeddedArtemis.start("orders")) {
            Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                    "--metrics-port", "0", "--health", "--attach", "amqp://127.0.0.1:" + broker.port() + "/orders",
                    "--attach-min-reconnect-delay", "50", "--attach-max-reconnect-delay", "200"}));
            g.start();
            try {
                int port = g.metricsPort();
                await(() -> g.attachments().get(0).isAttached(), "attached");
                HttpResponse<String> ready = get(port, HealthHandler.READY);
                assertEquals(200, ready.statusCode(), ready.body());
                assertTrue(ready.body().contains("\"attachments\":{\"up\":1,\"down\":0}"), ready.body());
                assertEquals(200, get(port, "/metrics").statusCode());
                assertEquals(404, get(port, "/echo").statusCode(), "the metrics port serves no application");

                broker.stop();
                await(() -> status(port) == 503, "not ready while the broker is down");
                HttpResponse<String> down = get(port, HealthHandler.READY);
                assertEquals("{\"status\":\"DOWN\",\"server\":\"UP\",\"ports\":{\"up\":1,\"down\":0},"
                        + "\"attachments\":{\"up\":0,\"down\":1}}", down.body());
                assertEquals(200, get(port, HealthHandler.LIVE).statusCode(), "alive all the same");

                broker.startAgain();
                await(() -> status(port) == 200, "ready again once attached again");
            } finally {
                g.stop();
            }
        }
    }

    private int status(int port) {
        try {
            return get(port, HealthHandler.READY).statusCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within " + WAIT_SECONDS + " s: " + what);
            Thread.sleep(20);
        }
    }
}
