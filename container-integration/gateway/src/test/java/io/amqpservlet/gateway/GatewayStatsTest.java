package io.amqpservlet.gateway;

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
