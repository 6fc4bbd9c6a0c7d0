package io.amqpservlet.gateway;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.gateway.metrics.GatewayMetrics;
import io.amqpservlet.gateway.stats.AmqpCounter;
import io.amqpservlet.gateway.stats.FloorHandler;
import io.amqpservlet.gateway.stats.GatewayStatsHandler;
import io.amqpservlet.jetty.AmqpServerBudget;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.util.ajax.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --stats}: the process's counters the benchmark suite reads and the AMQP counters an operator reads, served
 * only when asked for; {@code --bench-floor}: the benchmark's floor, only when asked for and only to clients on this
 * machine.
 */
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
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0",
            "--bench-floor"}));
        try {
            g.start();
            HttpResponse<String> r = get(g, FloorHandler.PATH + "?seconds=0.5&threads=2");
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().matches("\\{\"responses\":[1-9]\\d*,.*\"errors\":\\{},.*"), r.body());
            assertTrue(r.body().contains("\"percentilesMicros\":{\"0.0\":"), r.body());
            HttpResponse<String> paced = get(g, FloorHandler.PATH + "?seconds=0.5&threads=1&rate=200");
            assertTrue(paced.body().matches("\\{\"responses\":[1-9]\\d*,.*\"errors\":\\{},.*"), paced.body());
            // A path that does not answer 200 with the body echoed is counted as an error, not a response served.
            HttpResponse<String> missing = get(g, FloorHandler.PATH + "?seconds=0.2&threads=1&path=/nope");
            assertTrue(missing.body().matches(".*\"errors\":\\{\"status 40[45]\":[1-9].*"), missing.body());
            assertEquals(400, get(g, FloorHandler.PATH + "?seconds=x").statusCode());
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

    @Test
    void statsReportTheAmqpPortsCounters() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0", "--stats",
            "--max-connections-per-address", "1"}));
        try {
            g.start();
            for (int i = 0; i < 3; i++) {
                Cli echo = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo", "-d", "x");
                assertEquals(0, echo.exit, echo.toString());
            }
            Cli missing = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/status/404");
            assertEquals(0, missing.exit, missing.toString());
            // An HTTP client on the AMQP port: our header back, then the end of the connection.
            try (Socket http = new Socket("127.0.0.1", g.amqpPort())) {
                http.setSoTimeout(10_000);
                http.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                while (http.getInputStream().read(new byte[64]) >= 0) {
                    // the AMQP header, then the end of the stream
                }
            }

            Map<?, ?> stats = (Map<?, ?>) new JSON().fromJSON(get(g, GatewayStatsHandler.PATH).body());
            Map<?, ?> amqp = (Map<?, ?>) ((Map<?, ?>) stats.get("amqp")).get("amqp");
            assertEquals(Map.of("amqp:connection:framing-error", 1L), amqp.get("connectionErrorsSent"),
                    amqp.toString());
            assertEquals(Map.of(), amqp.get("linkErrorsSent"), amqp.toString());
            for (AmqpCounter c : AmqpCounter.values()) {
                assertTrue(amqp.containsKey(c.jsonName()), c + " in " + amqp);
            }
            assertEquals(4L, amqp.get("requestsServed"), amqp.toString());
            assertEquals(0L, amqp.get("requestsRefused"), amqp.toString());
            assertEquals(0L, amqp.get("connectionsRefused"), amqp.toString());
            assertEquals(AmqpServerBudget.DEFAULT_MAX_BUFFERED_BYTES, amqp.get("maxBufferedBytes"));
            assertEquals(0, ((Object[]) stats.get("attachments")).length, "no --attach");

            // A second connection from this address while one is open: refused by its limit, which the stats name.
            long deadline = AmqpRequestClient.now() + 10_000;
            try (AmqpRequestClient first = AmqpRequestClient.connect("127.0.0.1", g.amqpPort(), "/echo",
                    new EngineConfig(), deadline)) {
                assertThrows(IOException.class, () -> AmqpRequestClient.connect("127.0.0.1", g.amqpPort(), "/echo",
                        new EngineConfig(), deadline).close());
                // The refusal is counted at once; its close's error when the refused connection has ended.
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                do {
                    amqp = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) new JSON().fromJSON(get(g, GatewayStatsHandler.PATH)
                            .body())).get("amqp")).get("amqp");
                } while (!((Map<?, ?>) amqp.get("connectionErrorsSent")).containsKey("amqp:resource-limit-exceeded")
                        && System.nanoTime() < until);
                assertEquals(Map.of("maxConnections", 0L, "maxHandshakingConnections", 0L,
                        "maxConnectionsPerAddress", 1L, "maxHandshakesPerAddress", 0L,
                        "maxFailedLoginsPerAddress", 0L),
                        amqp.get("connectionsRefusedByLimit"), amqp.toString());
                assertEquals(1L, amqp.get("connectionsRefused"), amqp.toString());
                assertEquals(1L, ((Map<?, ?>) amqp.get("connectionErrorsSent")).get("amqp:resource-limit-exceeded"),
                        amqp.toString());
            }
        } finally {
            g.stop();
        }
    }

    @Test
    void anAttachmentThatCannotConnectSaysWhyInTheStats() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // nothing listens there once it is closed
        }
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0", "--stats",
            "--attach", "amqp://127.0.0.1:" + closed + "/orders"}));
        try {
            g.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            Map<?, ?> attachment;
            do {
                Thread.sleep(20);
                Object[] attachments = (Object[]) ((Map<?, ?>) new JSON().fromJSON(
                        get(g, GatewayStatsHandler.PATH).body())).get("attachments");
                assertEquals(1, attachments.length);
                attachment = (Map<?, ?>) attachments[0];
            } while (attachment.get("lastFailure") == null && System.nanoTime() < deadline);
            assertEquals(false, attachment.get("attached"), attachment.toString());
            assertTrue(String.valueOf(attachment.get("lastFailure"))
                    .startsWith("cannot connect to 127.0.0.1:" + closed + ": "),
                    attachment.toString());
        } finally {
            g.stop();
        }
    }

    /**
     * An attachment's errors sent to its broker are its own in the stats. The broker here is the gateway's own AMQP
     * port, whose open announces an idle-time-out (half of 2 s) shorter than the 1.5 s the attachment lets a peer
     * ask for: the attachment closes each connection with {@code amqp:resource-limit-exceeded}.
     */
    @Test
    void anAttachmentsErrorsSentToItsBrokerAreInTheStats() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", String.valueOf(port),
            "--http-port", "0", "--stats", "--idle-timeout", "2000", "--min-peer-idle-timeout", "1500",
            "--attach-idle-timeout", "10000", "--attach", "amqp://127.0.0.1:" + port + "/orders"}));
        try {
            g.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            Map<?, ?> attachment;
            do {
                Thread.sleep(20);
                Object[] attachments = (Object[]) ((Map<?, ?>) new JSON().fromJSON(
                        get(g, GatewayStatsHandler.PATH).body())).get("attachments");
                attachment = (Map<?, ?>) attachments[0];
            } while (((Map<?, ?>) attachment.get("connectionErrorsSent")).isEmpty() && System.nanoTime() < deadline);
            assertEquals(java.util.Set.of("amqp:resource-limit-exceeded"), ((Map<?, ?>) attachment.get("connectionErrorsSent"))
                    .keySet(), attachment.toString());
            assertEquals(Map.of(), attachment.get("sessionErrorsSent"), attachment.toString());
            assertEquals(Map.of(), attachment.get("linkErrorsSent"), attachment.toString());
        } finally {
            g.stop();
        }
    }

    @Test
    void theFloorIsNotServedWithoutTheBenchmarkFlag() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0", "--stats"}));
        try {
            g.start();
            HttpResponse<String> r = get(g, FloorHandler.PATH + "?seconds=600&threads=64");
            assertEquals(404, r.statusCode(), "the path is the app's, and the demo app has none: " + r.body());
            assertEquals(200, get(g, GatewayStatsHandler.PATH).statusCode(), "the counters are served");
        } finally {
            g.stop();
        }
    }

    @Test
    void theFloorAnswersOnlyClientsOnThisMachine() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0",
            "--bench-floor"}));
        try {
            g.start();
            // A connector whose connections have no loopback address (Jetty's in-memory one, 0.0.0.0 at both ends):
            // what a client elsewhere looks like, without sending a byte off this machine.
            LocalConnector elsewhere = new LocalConnector(g.server());
            g.server().addConnector(elsewhere);
            elsewhere.start();
            String answer = elsewhere.getResponse("GET " + FloorHandler.PATH + "?seconds=0.2 HTTP/1.1\r\n"
                    + "Host: gateway\r\nConnection: close\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 403 "), answer);
            assertTrue(answer.contains("clients on this machine only"), answer);
            assertEquals(200, get(g, FloorHandler.PATH + "?seconds=0.2&threads=1").statusCode(), "over loopback");
        } finally {
            g.stop();
        }
    }

    @Test
    void withUsersTheOperatorPathsNeedTheServletsCredentials() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0", "--stats",
            "--metrics", "--user", "alice:secret"}));
        try {
            g.start();
            String basic = "Basic " + Base64.getEncoder().encodeToString("alice:secret".getBytes(StandardCharsets.UTF_8));
            String wrong = "Basic " + Base64.getEncoder().encodeToString("alice:wrong".getBytes(StandardCharsets.UTF_8));
            for (String path : new String[] {GatewayStatsHandler.PATH, GatewayMetrics.PATH}) {
                HttpResponse<String> anonymous = get(g, path);
                assertEquals(401, anonymous.statusCode(), path + ": " + anonymous.body());
                assertTrue(anonymous.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"), path);
                assertEquals(401, get(g, path, wrong).statusCode(), path);
                assertEquals(200, get(g, path, basic).statusCode(), path);
            }
            // Over AMQP the SASL login is the credential, as for the servlets.
            Cli amqp = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + GatewayStatsHandler.PATH, "-u", "alice:secret");
            assertEquals(0, amqp.exit, amqp.toString());
            assertTrue(amqp.text().startsWith("{\"allocatedBytes\":"), amqp.text());
            assertEquals(401, get(g, "/echo").statusCode(), "the servlets as before");
        } finally {
            g.stop();
        }
    }

    private static HttpResponse<String> get(Gateway g, String path, String authorization) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + g.httpPort() + path)).header("Authorization", authorization).build(),
                HttpResponse.BodyHandlers.ofString());
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
