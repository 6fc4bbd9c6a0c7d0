package io.amqpservlet.gateway;

import io.amqpservlet.gateway.stats.GatewayStatsHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --stats}: the counters the benchmark suite reads, served only when asked for. */
@Timeout(60)
class GatewayStatsTest {
    private static final Pattern ALLOCATED = Pattern.compile("\"allocatedBytes\":(\\d+)");

    @Test
    void statsFlagServesGrowingCountersOverHttpAndAmqp() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0", "--stats"}));
        try {
            g.start();
            long first = allocated(get(g, GatewayStatsHandler.PATH));
            for (int i = 0; i < 20; i++) {
                assertEquals(200, get(g, "/echo").statusCode());
            }
            String body = get(g, GatewayStatsHandler.PATH).body();
            assertTrue(allocated(body) > first, "twenty requests allocate something: " + body);
            assertTrue(body.matches(".*\"cpuNanos\":[1-9]\\d*,\"gcCount\":\\d+,\"gcMillis\":\\d+,\"threads\":[1-9].*"),
                    body);
            Cli amqp = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + GatewayStatsHandler.PATH);
            assertEquals(0, amqp.exit, amqp.toString());
            assertTrue(amqp.text().startsWith("{\"allocatedBytes\":"), amqp.text());
        } finally {
            g.stop();
        }
    }

    @Test
    void floorServesTheEchoServletWithNoWireClosedLoopAndPaced() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0", "--stats"}));
        try {
            g.start();
            HttpResponse<String> r = get(g, GatewayStatsHandler.FLOOR_PATH + "?seconds=0.5&threads=2");
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().matches("\\{\"responses\":[1-9]\\d*,.*\"errors\":\\{},.*"), r.body());
            assertTrue(r.body().contains("\"percentilesMicros\":{\"0.0\":"), r.body());
            HttpResponse<String> paced = get(g, GatewayStatsHandler.FLOOR_PATH + "?seconds=0.5&threads=1&rate=200");
            assertTrue(paced.body().matches("\\{\"responses\":[1-9]\\d*,.*\"errors\":\\{},.*"), paced.body());
            // A path that does not answer 200 with the body echoed is counted as an error, not a response served.
            HttpResponse<String> missing = get(g, GatewayStatsHandler.FLOOR_PATH + "?seconds=0.2&threads=1&path=/nope");
            assertTrue(missing.body().matches(".*\"errors\":\\{\"status 40[45]\":[1-9].*"), missing.body());
            assertEquals(400, get(g, GatewayStatsHandler.FLOOR_PATH + "?seconds=x").statusCode());
        } finally {
            g.stop();
        }
    }

    @Test
    void withoutTheFlagThePathBelongsToTheApp() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0"}));
        try {
            g.start();
            assertEquals(404, get(g, GatewayStatsHandler.PATH).statusCode());
        } finally {
            g.stop();
        }
    }

    private static HttpResponse<String> get(Gateway g, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + g.httpPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long allocated(HttpResponse<String> response) {
        assertEquals(200, response.statusCode());
        return allocated(response.body());
    }

    private static long allocated(String json) {
        Matcher m = ALLOCATED.matcher(json);
        assertTrue(m.find(), json);
        return Long.parseLong(m.group(1));
    }
}
