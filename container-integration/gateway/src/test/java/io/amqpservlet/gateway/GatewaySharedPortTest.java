package io.amqpservlet.gateway;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.client.ClientTls;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.gateway.metrics.GatewayMetrics;
import io.amqpservlet.gateway.stats.GatewayStatsHandler;
import io.amqpservlet.jetty.TestCertificates;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.eclipse.jetty.util.ajax.JSON;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One port for two kinds of client, over real sockets: {@code --amqp-on-http-port} (AMQP and HTTP/1.1 and h2c on the
 * HTTP port), {@code --amqp-on-amqps-port} (AMQPS and clear-text AMQP on the AMQPS port) and
 * {@code --amqp-on-https-port} (AMQP and HTTP/1.1, both over TLS, on the HTTPS port). Clients: the project's
 * {@link AmqpRequestClient} and request CLI, protonj2-client 1.1.0 (with and without TLS), the JDK's
 * {@link HttpClient} (with and without TLS), and raw sockets (and TLS sockets) for bytes that are neither.
 */
@Timeout(120)
class GatewaySharedPortTest {
    @TempDir
    static Path dir;
    private static TestCertificates certificates;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = TestCertificates.create(dir);
    }

    private static long deadline() {
        return AmqpRequestClient.now() + 10_000;
    }

    private static HttpResponse<String> http(HttpClient.Version version, int port, String path) throws Exception {
        return HttpClient.newBuilder().version(version).build().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Map<?, ?> amqpStats(Gateway g, String port) throws Exception {
        Map<?, ?> stats = (Map<?, ?>) new JSON().fromJSON(http(HttpClient.Version.HTTP_1_1, g.httpPort(),
                GatewayStatsHandler.PATH).body());
        return (Map<?, ?>) ((Map<?, ?>) stats.get("amqp")).get(port);
    }

    /** Waits up to 10 s for {@code condition}, checking it again whenever it does not hold yet. */
    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(10);
        }
    }

    @Test
    void theHttpPortServesAmqpAndHttpWithItsOwnAmqpLimitsAndCounters() throws Exception {
        Gateway g = GatewayConfigurationsTest.start("--amqp-port", "0", "--http-port", "0", "--amqp-on-http-port",
                "--max-connections", "1", "--close-timeout", "1000", "--stats", "--metrics");
        try {
            assertTrue(g.httpPort() > 0 && g.amqpPort() > 0 && g.amqpPort() != g.httpPort());
            try (AmqpRequestClient amqp = AmqpRequestClient.connect("127.0.0.1", g.httpPort(), "/echo",
                    new EngineConfig(), deadline())) {
                AmqpResponse echo = amqp.exchange("POST", "/echo/over-amqp", Map.of(), "text/plain",
                        "on the HTTP port".getBytes(StandardCharsets.UTF_8), deadline());
                assertEquals(200, echo.status());
                assertEquals("on the HTTP port", echo.bodyText());
                assertEquals("/echo/over-amqp", echo.headers().get("x-echo-path"));

                // HTTP/1.1 and h2c (the JDK's client upgrades to it) on the same port, as without the option.
                HttpResponse<String> h1 = http(HttpClient.Version.HTTP_1_1, g.httpPort(), "/status/202");
                assertEquals(202, h1.statusCode());
                HttpResponse<String> h2c = http(HttpClient.Version.HTTP_2, g.httpPort(), "/whoami");
                assertEquals(HttpClient.Version.HTTP_2, h2c.version());
                assertEquals("anonymous", h2c.body());

                // The port's AMQP has --max-connections of its own, as every AMQP port has: a second AMQP client is
                // refused there, while the AMQP port still takes one and HTTP clients are not AMQP connections.
                IOException refused = assertThrows(IOException.class, () -> AmqpRequestClient.connect("127.0.0.1",
                        g.httpPort(), "/echo", new EngineConfig(), deadline()).close());
                assertTrue(String.valueOf(refused.getMessage()).contains("amqp:resource-limit-exceeded"),
                        String.valueOf(refused.getMessage()));
                try (AmqpRequestClient other = AmqpRequestClient.connect("127.0.0.1", g.amqpPort(), "/echo",
                        new EngineConfig(), deadline())) {
                    assertEquals(200, other.exchange("GET", "/echo", Map.of(), null, null, deadline()).status());
                    assertEquals(200, http(HttpClient.Version.HTTP_1_1, g.httpPort(), "/echo").statusCode());
                    // The counters and meters name the port: each port's AMQP connections under its own name.
                    Map<?, ?> onHttp = amqpStats(g, "http");
                    assertEquals(1L, onHttp.get("connectionsOpen"), onHttp.toString());
                    assertEquals(1L, amqpStats(g, "amqp").get("connectionsOpen"));
                    await("the refusal is counted on the HTTP port",
                            () -> uncheckedStat(g, "http", "connectionsRefused") == 1);
                    assertEquals(0L, amqpStats(g, "amqp").get("connectionsRefused"));
                    java.util.List<GatewayMetricsTest.Sample> samples = GatewayMetricsTest.parse(http(
                            HttpClient.Version.HTTP_1_1, g.httpPort(), GatewayMetrics.PATH).body());
                    assertEquals(1, GatewayMetricsTest.value(samples, "amqp_servlet_connections",
                            Map.of("connector_name", "http", "state", "open")));
                    assertEquals(1, GatewayMetricsTest.value(samples, "amqp_servlet_requests_total",
                            Map.of("connector_name", "http")));
                }
            }
            await("the AMQP connections on the HTTP port are closed",
                    () -> uncheckedStat(g, "http", "connectionsOpen") == 0);
            // Its place is free again.
            try (AmqpRequestClient again = AmqpRequestClient.connect("127.0.0.1", g.httpPort(), "/echo",
                    new EngineConfig(), deadline())) {
                assertEquals(200, again.exchange("GET", "/echo", Map.of(), null, null, deadline()).status());
            }
        } finally {
            g.stop();
        }
    }

    private static long uncheckedStat(Gateway g, String port, String counter) {
        try {
            return ((Number) amqpStats(g, port).get(counter)).longValue();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void stopLetsAnAmqpRequestOnTheHttpPortFinish() throws Exception {
        GatewayConfigurationsTest.InFlightServlet.entered = new CountDownLatch(1);
        Gateway g = GatewayConfigurationsTest.start("--amqp-port", "-1", "--http-port", "0", "--amqp-on-http-port",
                "--stop-timeout", "10000",
                "--servlet", "/slow=" + GatewayConfigurationsTest.InFlightServlet.class.getName());
        boolean stopped = false;
        try {
            String url = "amqp://127.0.0.1:" + g.httpPort() + "/slow?ms=1000";
            CompletableFuture<Cli> inFlight = CompletableFuture.supplyAsync(() -> Cli.request("-i", url));
            assertTrue(GatewayConfigurationsTest.InFlightServlet.entered.await(10, TimeUnit.SECONDS),
                    "the request never reached the servlet");
            // The stop waits for a request in flight on the HTTP port's AMQP as for one on the AMQP port.
            g.stop();
            stopped = true;
            Cli r = inFlight.get(10, TimeUnit.SECONDS);
            assertTrue(r.text().startsWith("HTTP/1.1 200\r\n"), r.toString());
        } finally {
            if (!stopped) {
                g.stop();
            }
        }
    }

    @Test
    void withUsersTheAmqpOnTheHttpPortNeedsTheirSaslLogin() throws Exception {
        Gateway g = GatewayConfigurationsTest.start("--amqp-port", "-1", "--http-port", "0", "--amqp-on-http-port",
                "--user", "alice:s3cret");
        try {
            String url = "amqp://127.0.0.1:" + g.httpPort() + "/whoami";
            Cli alice = Cli.request("-u", "alice:s3cret", url);
            assertEquals(0, alice.exit, alice.toString());
            assertEquals("alice", alice.text());
            assertEquals(67, Cli.request("-u", "alice:wrong", url).exit);
            assertEquals(67, Cli.request(url).exit, "ANONYMOUS is not offered when users are configured");
            assertEquals(401, http(HttpClient.Version.HTTP_1_1, g.httpPort(), "/whoami").statusCode());
        } finally {
            g.stop();
        }
    }

    /** Sends {@code bytes} on a new connection to {@code port} and reads until the server closes it. */
    private static byte[] answerTo(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            try {
                return s.getInputStream().readAllBytes();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server did not close the connection", e);
            }
        }
    }

    private static String statusLine(byte[] response) {
        String text = new String(response, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n");
        return end < 0 ? text : text.substring(0, end);
    }

    @Test
    void bytesThatAreNeitherGetWhatTheHttpPortAnswersWithoutTheOption() throws Exception {
        byte[][] inputs = {
            "\u0000\u0001 garbage\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
            // A TLS client hello on the clear-text port.
            {0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00, '\r', '\n', '\r', '\n'},
            // Starts as AMQP does, then is not: four bytes tell, and HTTP gets the connection.
            "AMQ\u0000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
            // The same, as a request of a method nobody knows: HTTP answers it as any request.
            "AMQX /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
        };
        Gateway plain = GatewayConfigurationsTest.start("--amqp-port", "-1", "--http-port", "0");
        Gateway shared = GatewayConfigurationsTest.start("--amqp-port", "0", "--http-port", "0",
                "--amqp-on-http-port");
        try {
            for (byte[] input : inputs) {
                String today = statusLine(answerTo(plain.httpPort(), input));
                assertTrue(today.startsWith(input[0] == 'A' && input[3] == 'X' ? "HTTP/1.1 200" : "HTTP/1.1 400"),
                        today);
                assertEquals(today, statusLine(answerTo(shared.httpPort(), input)), Arrays.toString(input));
            }
            // A protocol header of AMQP that the engine does not speak gets what the AMQP port answers it: the
            // header the engine does speak, then the close (AMQP 1.0 §2.2).
            byte[] badVersion = {'A', 'M', 'Q', 'P', 9, 9, 9, 9};
            byte[] onTheAmqpPort = answerTo(shared.amqpPort(), badVersion);
            assertEquals("AMQP", new String(onTheAmqpPort, 0, 4, StandardCharsets.US_ASCII));
            assertArrayEquals(onTheAmqpPort, answerTo(shared.httpPort(), badVersion));
        } finally {
            plain.stop();
            shared.stop();
        }
    }

    @Test
    void proxyProtocolReachesTheAmqpOnTheHttpPort() throws Exception {
        Gateway g = GatewayConfigurationsTest.start("--amqp-port", "-1", "--http-port", "0", "--amqp-on-http-port",
                "--proxy-protocol", "--max-connections-per-address", "1", "--close-timeout", "1000");
        try (ProxiedAmqpPeer first = ProxiedAmqpPeer.open(g.httpPort(), "198.51.100.7").awaitOpen();
             ProxiedAmqpPeer again = ProxiedAmqpPeer.open(g.httpPort(), "198.51.100.7");
             ProxiedAmqpPeer other = ProxiedAmqpPeer.open(g.httpPort(), "198.51.100.8")) {
            String refused = again.readUntilClosed();
            assertTrue(refused.contains("amqp:resource-limit-exceeded")
                    && refused.contains("198.51.100.7 has 1 AMQP connections open"), refused);
            assertTrue(first.stillOpenAfter(200) && other.stillOpenAfter(0), "the other clients are served");
            // HTTP behind the same balancer: its PROXY header, then the request.
            String get = "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            String proxiedHttp = new String(answerTo(g.httpPort(), ("PROXY TCP4 198.51.100.7 127.0.0.1 40000 8080\r\n"
                    + get).getBytes(StandardCharsets.US_ASCII)), StandardCharsets.ISO_8859_1);
            assertTrue(proxiedHttp.startsWith("HTTP/1.1 200"), proxiedHttp);
            // Jetty's ProxyConnectionFactory serves a connection whose first 16 bytes are no PROXY header as it is.
            String direct = new String(answerTo(g.httpPort(), get.getBytes(StandardCharsets.US_ASCII)),
                    StandardCharsets.ISO_8859_1);
            assertTrue(direct.startsWith("HTTP/1.1 200"), direct);
        } finally {
            g.stop();
        }
    }

    private Gateway startAmqps(String clientAuth, String... more) throws Exception {
        String[] args = {"--amqp-port", "-1", "--http-port", "-1", "--amqps-port", "0", "--amqp-on-amqps-port",
            "--tls-keystore", certificates.serverKeyStore.toString(),
            "--tls-keystore-password", TestCertificates.PASSWORD,
            "--tls-truststore", certificates.serverTrustStore.toString(), "--tls-client-auth", clientAuth};
        String[] all = Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return GatewayConfigurationsTest.start(all);
    }

    private static ConnectionOptions protonj2(boolean tls, String mechanism) {
        ConnectionOptions o = new ConnectionOptions();
        if (tls) {
            o.sslEnabled(true);
            o.sslOptions().trustStoreLocation(certificates.clientTrustStore.toString())
                    .trustStorePassword(TestCertificates.PASSWORD).trustStoreType("PKCS12")
                    .keyStoreLocation(certificates.clientKeyStore.toString())
                    .keyStorePassword(TestCertificates.PASSWORD).keyStoreType("PKCS12");
        }
        o.saslOptions().addAllowedMechanism(mechanism);
        return o;
    }

    private static String whoAmI(Connection c) throws Exception {
        Receiver replies = c.openDynamicReceiver();
        c.openSender("/whoami").send(Message.create("").subject("GET").messageId("who").replyTo(replies.address()));
        Delivery d = replies.receive(10, TimeUnit.SECONDS);
        assertNotNull(d, "no response");
        Object body = d.message().body();
        return body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body);
    }

    @Test
    void theAmqpsPortServesClearTextAmqpWithTheSameFactory() throws Exception {
        // The AMQP and HTTP ports too: the stats over HTTP, and the AMQP port's answer to compare with.
        Gateway g = startAmqps("want", "--max-connections", "2", "--close-timeout", "1000", "--stats",
                "--amqp-port", "0", "--http-port", "0");
        try (Client client = Client.create()) {
            int port = g.amqpsPort();
            // TLS with a certificate: SASL EXTERNAL names its subject; clear text on the same port: anonymous.
            try (Connection tls = client.connect("127.0.0.1", port, protonj2(true, "EXTERNAL"));
                 Connection clear = client.connect("127.0.0.1", port, protonj2(false, "ANONYMOUS"))) {
                assertEquals(TestCertificates.CLIENT_DN, whoAmI(tls));
                assertEquals("anonymous", whoAmI(clear));
                // One factory for both kinds: its counters have both, and its limit holds for both together.
                Map<?, ?> counters = amqpStats(g, "amqps");
                assertEquals(2L, counters.get("connectionsOpen"), counters.toString());
                assertEquals(0L, amqpStats(g, "amqp").get("connectionsOpen"));
                IOException refused = assertThrows(IOException.class, () -> AmqpRequestClient.connect("127.0.0.1",
                        port, "/echo", new EngineConfig(), deadline()).close());
                assertTrue(String.valueOf(refused.getMessage()).contains("amqp:resource-limit-exceeded"),
                        String.valueOf(refused.getMessage()));
                await("the refusal is counted on the AMQPS port",
                        () -> uncheckedStat(g, "amqps", "connectionsRefused") == 1);
                await("both requests are counted on the AMQPS port",
                        () -> uncheckedStat(g, "amqps", "requestsServed") == 2);
            }
            // Bytes that are no TLS handshake get what the AMQP port answers them: a protocol header, then the close.
            byte[] http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            byte[] onTheAmqpPort = answerTo(g.amqpPort(), http);
            assertEquals("AMQP", new String(onTheAmqpPort, 0, 4, StandardCharsets.US_ASCII));
            assertArrayEquals(onTheAmqpPort, answerTo(port, http));
        } finally {
            g.stop();
        }
    }

    @Test
    void theAmqpsPortWithClearTextAmqpStillServesTheRequestClientOverTls() throws Exception {
        Gateway g = startAmqps("none");
        try {
            Cli tls = Cli.request("-k", "amqps://127.0.0.1:" + g.amqpsPort() + "/bytes/100000");
            assertEquals(0, tls.exit, tls.err);
            assertEquals(100_000, tls.out.length);
            Cli clear = Cli.request("amqp://127.0.0.1:" + g.amqpsPort() + "/whoami");
            assertEquals(0, clear.exit, clear.toString());
            assertEquals("anonymous", clear.text());
        } finally {
            g.stop();
        }
    }

    private Gateway startHttps(String clientAuth, String... more) throws Exception {
        String[] args = {"--amqp-port", "-1", "--http-port", "-1", "--https-port", "0", "--amqp-on-https-port",
            "--tls-keystore", certificates.serverKeyStore.toString(),
            "--tls-keystore-password", TestCertificates.PASSWORD,
            "--tls-truststore", certificates.serverTrustStore.toString(), "--tls-client-auth", clientAuth};
        String[] all = Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return GatewayConfigurationsTest.start(all);
    }

    /** A TLS context that trusts the test server's certificate and presents no certificate of its own. */
    private static SSLContext trustingTheServer() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certificates.clientTrustStore)) {
            trust.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }

    private static HttpResponse<String> https(HttpClient.Version version, int port, String path, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://localhost:" + port + path));
        if (body != null) {
            request.POST(HttpRequest.BodyPublishers.ofString(body));
        }
        return HttpClient.newBuilder().sslContext(trustingTheServer()).version(version).build()
                .send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code bytes} over TLS on a new connection to {@code port} and reads until the server closes it. */
    private static byte[] answerOverTlsTo(int port, byte[] bytes) throws Exception {
        try (SSLSocket s = (SSLSocket) trustingTheServer().getSocketFactory().createSocket("localhost", port)) {
            s.setSoTimeout(10_000);
            s.startHandshake();
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            try {
                return s.getInputStream().readAllBytes();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server did not close the connection", e);
            }
        }
    }

    @Test
    void theHttpsPortServesAmqpOverTlsAndHttpsWithItsOwnAmqpLimitsAndCounters() throws Exception {
        // The HTTP port too, for the stats; the AMQPS port, whose factory the HTTPS port's AMQP is made as.
        Gateway g = startHttps("want", "--max-connections", "2", "--close-timeout", "1000", "--stats",
                "--metrics", "--http-port", "0", "--amqps-port", "0");
        try (Client client = Client.create()) {
            int port = g.httpsPort();
            // AMQP over TLS with a certificate: SASL EXTERNAL names its subject, as on the AMQPS port.
            try (Connection tls = client.connect("127.0.0.1", port, protonj2(true, "EXTERNAL"))) {
                assertEquals(TestCertificates.CLIENT_DN, whoAmI(tls));
                // The project's client over TLS, trusting the server's certificate, without one of its own.
                ClientTls trust = ClientTls.create(dir.resolve("server.crt"), false, null, null);
                try (AmqpRequestClient amqp = AmqpRequestClient.connect("127.0.0.1", port, "/echo",
                        new EngineConfig(), deadline(), trust)) {
                    AmqpResponse echo = amqp.exchange("POST", "/echo/over-tls", Map.of(), "text/plain",
                            "on the HTTPS port".getBytes(StandardCharsets.UTF_8), deadline());
                    assertEquals(200, echo.status());
                    assertEquals("on the HTTPS port", echo.bodyText());

                    // HTTP/1.1 over TLS on the same port, as without the option; a client that would rather have
                    // HTTP/2 gets HTTP/1.1 (no h2 without ALPN).
                    HttpResponse<String> h1 = https(HttpClient.Version.HTTP_1_1, port, "/echo?x=1", "over tls");
                    assertEquals(200, h1.statusCode());
                    assertEquals("over tls", h1.body());
                    HttpResponse<String> h2 = https(HttpClient.Version.HTTP_2, port, "/whoami", null);
                    assertEquals(HttpClient.Version.HTTP_1_1, h2.version());
                    assertEquals("anonymous", h2.body());

                    // The port's AMQP has --max-connections of its own: a third AMQP client is refused there,
                    // while the AMQPS port still takes one and the HTTPS clients were no AMQP connections.
                    IOException refused = assertThrows(IOException.class, () -> AmqpRequestClient.connect(
                            "127.0.0.1", port, "/echo", new EngineConfig(), deadline(), trust).close());
                    assertTrue(String.valueOf(refused.getMessage()).contains("amqp:resource-limit-exceeded"),
                            String.valueOf(refused.getMessage()));
                    try (AmqpRequestClient other = AmqpRequestClient.connect("127.0.0.1", g.amqpsPort(), "/echo",
                            new EngineConfig(), deadline(), trust)) {
                        assertEquals(200, other.exchange("GET", "/echo", Map.of(), null, null, deadline()).status());
                        Map<?, ?> onHttps = amqpStats(g, "https");
                        assertEquals(2L, onHttps.get("connectionsOpen"), onHttps.toString());
                        assertEquals(1L, amqpStats(g, "amqps").get("connectionsOpen"));
                        await("the refusal is counted on the HTTPS port",
                                () -> uncheckedStat(g, "https", "connectionsRefused") == 1);
                        assertEquals(0L, amqpStats(g, "amqps").get("connectionsRefused"));
                        java.util.List<GatewayMetricsTest.Sample> samples = GatewayMetricsTest.parse(http(
                                HttpClient.Version.HTTP_1_1, g.httpPort(), GatewayMetrics.PATH).body());
                        assertEquals(2, GatewayMetricsTest.value(samples, "amqp_servlet_connections",
                                Map.of("connector_name", "https", "state", "open")));
                    }
                }
            }
            await("the AMQP connections on the HTTPS port are closed",
                    () -> uncheckedStat(g, "https", "connectionsOpen") == 0);
            // The request CLI over TLS, a body in several transfers.
            Cli big = Cli.request("-k", "amqps://127.0.0.1:" + port + "/bytes/100000");
            assertEquals(0, big.exit, big.err);
            assertEquals(100_000, big.out.length);
        } finally {
            g.stop();
        }
    }

    @Test
    void bytesOverTlsThatAreNeitherGetWhatTheHttpsPortAnswersWithoutTheOption() throws Exception {
        Gateway plain = GatewayConfigurationsTest.start("--amqp-port", "-1", "--http-port", "-1",
                "--https-port", "0", "--tls-keystore", certificates.serverKeyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD);
        Gateway shared = startHttps("none", "--amqps-port", "0");
        try {
            for (String input : new String[] {"\u0000\u0001 garbage\r\n\r\n", "AMQ\u0000\r\n\r\n",
                "AMQX /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"}) {
                byte[] bytes = input.getBytes(StandardCharsets.ISO_8859_1);
                String today = statusLine(answerOverTlsTo(plain.httpsPort(), bytes));
                assertTrue(today.startsWith(input.startsWith("AMQX") ? "HTTP/1.1 200" : "HTTP/1.1 400"), today);
                assertEquals(today, statusLine(answerOverTlsTo(shared.httpsPort(), bytes)), input);
            }
            // An AMQP header of a version the engine does not speak: what the AMQPS port answers it.
            byte[] badVersion = {'A', 'M', 'Q', 'P', 9, 9, 9, 9};
            byte[] onTheAmqpsPort = answerOverTlsTo(shared.amqpsPort(), badVersion);
            assertEquals("AMQP", new String(onTheAmqpsPort, 0, 4, StandardCharsets.US_ASCII));
            assertArrayEquals(onTheAmqpsPort, answerOverTlsTo(shared.httpsPort(), badVersion));
        } finally {
            plain.stop();
            shared.stop();
        }
    }

    @Test
    void withUsersTheAmqpOnTheHttpsPortNeedsTheirSaslLogin() throws Exception {
        Gateway g = startHttps("none", "--user", "alice:s3cret");
        try {
            String url = "amqps://127.0.0.1:" + g.httpsPort() + "/whoami";
            Cli alice = Cli.request("-k", "-u", "alice:s3cret", url);
            assertEquals(0, alice.exit, alice.toString());
            assertEquals("alice", alice.text());
            assertEquals(67, Cli.request("-k", "-u", "alice:wrong", url).exit);
            assertEquals(67, Cli.request("-k", url).exit, "ANONYMOUS is not offered when users are configured");
            assertEquals(401, https(HttpClient.Version.HTTP_1_1, g.httpsPort(), "/whoami", null).statusCode());
        } finally {
            g.stop();
        }
    }

    @Test
    void proxyProtocolReachesTheAmqpOnTheHttpsPortBeforeTls() throws Exception {
        Gateway g = startHttps("none", "--proxy-protocol", "--max-connections-per-address", "1",
                "--close-timeout", "1000");
        javax.net.ssl.SSLSocketFactory tls = trustingTheServer().getSocketFactory();
        try (ProxiedAmqpPeer first = ProxiedAmqpPeer.open(g.httpsPort(), "198.51.100.7", tls).awaitOpen();
             ProxiedAmqpPeer again = ProxiedAmqpPeer.open(g.httpsPort(), "198.51.100.7", tls);
             ProxiedAmqpPeer other = ProxiedAmqpPeer.open(g.httpsPort(), "198.51.100.8", tls)) {
            String refused = again.readUntilClosed();
            assertTrue(refused.contains("amqp:resource-limit-exceeded")
                    && refused.contains("198.51.100.7 has 1 AMQP connections open"), refused);
            assertTrue(first.stillOpenAfter(200) && other.stillOpenAfter(0), "the other clients are served");
            // HTTPS behind the same balancer, and a client that sends no PROXY header: served as they are.
            assertEquals(200, https(HttpClient.Version.HTTP_1_1, g.httpsPort(), "/echo", null).statusCode());
        } finally {
            g.stop();
        }
    }
}
