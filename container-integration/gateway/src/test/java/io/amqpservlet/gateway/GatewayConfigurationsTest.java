package io.amqpservlet.gateway;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gateway's other configurations: SASL PLAIN users, servlets by class name, a war, graceful stop. */
@Timeout(120)
class GatewayConfigurationsTest {
    @TempDir
    Path dir;

    /** Starts a gateway with {@code args}, stopping what started if the start fails. */
    static Gateway start(String... args) throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(args));
        try {
            g.start();
        } catch (Exception | Error e) {
            g.stop();
            throw e;
        }
        return g;
    }

    @Test
    void usersLogInWithPlainAndAnonymousIsRefused() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--user", "alice:s3cret:x", "--user", "bob:pw");
        try {
            String url = "amqp://127.0.0.1:" + g.amqpPort() + "/whoami";
            Cli alice = Cli.request("-u", "alice:s3cret:x", url);
            assertEquals(0, alice.exit, alice.toString());
            assertEquals("alice", alice.text());
            assertEquals("bob", Cli.request("-u", "bob:pw", url).text());
            Cli wrong = Cli.request("-u", "alice:wrong", url);
            assertEquals(67, wrong.exit);
            assertTrue(wrong.err.contains("authentication failed (wrong user or password)"), wrong.err);
            assertEquals(67, Cli.request(url).exit, "ANONYMOUS is not offered when users are configured");
            assertEquals(-1, g.httpPort());
        } finally {
            g.stop();
        }
    }

    @Test
    void servletsByClassReplaceTheDemo() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1",
                "--servlet", "/me=io.amqpservlet.gateway.demo.WhoAmIServlet",
                "--servlet", "/s/*=io.amqpservlet.gateway.demo.StatusServlet");
        try {
            String base = "amqp://127.0.0.1:" + g.amqpPort();
            assertEquals("anonymous", Cli.request(base + "/me").text());
            assertTrue(Cli.request("-i", base + "/s/409").text().startsWith("HTTP/1.1 409\r\n"));
            assertTrue(Cli.request("-i", base + "/echo").text().startsWith("HTTP/1.1 404\r\n"));
        } finally {
            g.stop();
        }
    }

    @Test
    void maxConnectionsRefusesTheNextClientWithResourceLimitExceeded() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--max-connections", "1",
                "--max-buffered-bytes", "1m", "--close-timeout", "2000");
        try {
            long deadline = AmqpRequestClient.now() + 10_000;
            try (AmqpRequestClient first = AmqpRequestClient.connect("127.0.0.1", g.amqpPort(), "/echo",
                    new EngineConfig(), deadline)) {
                IOException refused = assertThrows(IOException.class, () -> AmqpRequestClient.connect("127.0.0.1",
                        g.amqpPort(), "/echo", new EngineConfig(), deadline).close());
                assertTrue(String.valueOf(refused.getMessage()).contains("amqp:resource-limit-exceeded"),
                        String.valueOf(refused.getMessage()));
                assertEquals(200, first.exchange("GET", "/echo", Map.of(), null, null, deadline).status());
            }
            // The refused connection and the closed one gave their places back.
            assertEquals(0, Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo").exit);
        } finally {
            g.stop();
        }
    }

    @Test
    void requestTimeoutAnswers503ForARequestSlowerThanIt() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--request-timeout", "300");
        try {
            String base = "amqp://127.0.0.1:" + g.amqpPort();
            assertTrue(Cli.request("-i", base + "/slow?ms=3000").text().startsWith("HTTP/1.1 503\r\n"));
            assertTrue(Cli.request("-i", base + "/slow?ms=10").text().startsWith("HTTP/1.1 200\r\n"));
        } finally {
            g.stop();
        }
        assertEquals(0, GatewayOptions.parse(new String[] {"--request-timeout", "0"}).requestTimeoutMillis());
        assertEquals(AmqpConnectionFactory.DEFAULT_REQUEST_TIMEOUT_MILLIS,
                GatewayOptions.parse(new String[0]).requestTimeoutMillis());
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--request-timeout", "-1"})).getMessage()
                .contains("--request-timeout"));
    }

    @Test
    void writeCoalescingReachesEveryAmqpPortAndAttachment() throws Exception {
        // The attachment's broker is not there: it keeps reconnecting, which does not matter here.
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--write-coalescing", "750",
                "--attach", "amqp://127.0.0.1:1/orders");
        try {
            AmqpConnectionFactory factory = g.server().getConnectors()[0].getConnectionFactory(
                    AmqpConnectionFactory.class);
            assertEquals(750, factory.getWriteCoalescing());
            assertEquals(750, g.attachments().get(0).getConnectionFactory().getWriteCoalescing());
            assertEquals(0, Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo").exit);
        } finally {
            g.stop();
        }
        assertEquals(0, GatewayOptions.parse(new String[] {"--write-coalescing", "0"}).writeCoalescingMicros());
        assertEquals(AmqpConnectionFactory.DEFAULT_WRITE_COALESCING_MICROS,
                GatewayOptions.parse(new String[0]).writeCoalescingMicros());
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--write-coalescing", "1000001"})).getMessage()
                .contains("--write-coalescing"));
    }

    @Test
    void connectionPropertiesAreOfferedInTheOpen() throws Exception {
        Path config = dir.resolve("props.properties");
        Files.writeString(config, "connection-property.1=node=rabbit@gateway\n");
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--config", config.toString(),
                "--connection-property", "product=RabbitMQ", "--connection-property", "version=4.0.0");
        org.apache.qpid.protonj2.client.Client client = org.apache.qpid.protonj2.client.Client.create();
        try {
            Map<String, Object> offered = client.connect("127.0.0.1", g.amqpPort()).properties();
            assertEquals(Map.of("node", "rabbit@gateway", "product", "RabbitMQ", "version", "4.0.0"), offered);
        } finally {
            client.close();
            g.stop();
        }
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--connection-property", "novalue"})).getMessage()
                .contains("--connection-property wants KEY=VALUE"));
        assertTrue(GatewayOptions.parse(new String[0]).connectionProperties().isEmpty());
    }

    @Test
    void budgetOptionsNameTheirErrors() {
        GatewayOptions.UsageException e = assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--max-buffered-bytes", "lots"}));
        assertTrue(e.getMessage().contains("--max-buffered-bytes"), e.getMessage());
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--max-connections", "0"})).getMessage()
                .contains("--max-connections must be from 1"));
    }

    @Test
    void theFailedLoginOptionsReachTheAmqpPortsFactory() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--max-failed-logins-per-address", "3",
                "--failed-logins-window", "5000");
        try {
            AmqpConnectionFactory factory = null;
            for (org.eclipse.jetty.server.Connector c : g.server().getConnectors()) {
                AmqpConnectionFactory f = c.getConnectionFactory(AmqpConnectionFactory.class);
                if (f != null) {
                    factory = f;
                }
            }
            assertNotNull(factory);
            assertEquals(3, factory.getMaxFailedLoginsPerAddress());
            assertEquals(5_000, factory.getFailedLoginsWindowMillis());
        } finally {
            g.stop();
        }
    }

    @Test
    void perAddressLimitsCountTheClientAddressTheProxyProtocolNames() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--proxy-protocol",
                "--max-connections-per-address", "1", "--close-timeout", "1000");
        // Every socket comes from 127.0.0.1, as from a load balancer; its PROXY header names the client.
        try (ProxiedAmqpPeer first = ProxiedAmqpPeer.open(g.amqpPort(), "198.51.100.7").awaitOpen();
             ProxiedAmqpPeer again = ProxiedAmqpPeer.open(g.amqpPort(), "198.51.100.7");
             ProxiedAmqpPeer other = ProxiedAmqpPeer.open(g.amqpPort(), "198.51.100.8")) {
            String refused = again.readUntilClosed();
            assertTrue(refused.contains("amqp:resource-limit-exceeded")
                    && refused.contains("198.51.100.7 has 1 AMQP connections open"), refused);
            assertTrue(first.stillOpenAfter(500) && other.stillOpenAfter(0), "the other clients are served");
        } finally {
            g.stop();
        }
    }

    @Test
    void perAddressOptionsTakeZeroForNoLimit() throws Exception {
        GatewayOptions o = GatewayOptions.parse(new String[] {"--max-connections-per-address", "0",
            "--max-handshakes-per-address", "8", "--proxy-protocol"});
        assertEquals(0, o.maxConnectionsPerAddress());
        assertEquals(8, o.maxHandshakesPerAddress());
        assertTrue(o.proxyProtocol());
        GatewayOptions defaults = GatewayOptions.parse(new String[0]);
        assertEquals(512, defaults.maxConnectionsPerAddress());
        assertEquals(32, defaults.maxHandshakesPerAddress());
        assertTrue(!defaults.proxyProtocol());
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--max-handshakes-per-address", "-1"})).getMessage()
                .contains("--max-handshakes-per-address must be from 0"));
        GatewayOptions logins = GatewayOptions.parse(new String[] {"--max-failed-logins-per-address", "0",
            "--failed-logins-window", "5000"});
        assertEquals(0, logins.maxFailedLoginsPerAddress());
        assertEquals(5_000, logins.failedLoginsWindowMillis());
        assertEquals(10, defaults.maxFailedLoginsPerAddress());
        assertEquals(60_000, defaults.failedLoginsWindowMillis());
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--max-failed-logins-per-address", "-1"})).getMessage()
                .contains("--max-failed-logins-per-address must be from 0"));
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--failed-logins-window", "0"}));
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--failed-logins-window", "86400001"}));
        Path config = dir.resolve("proxy.properties");
        Files.writeString(config, "proxy-protocol=yes\n");
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--config", config.toString()})).getMessage()
                .contains("--proxy-protocol is true or false"));
    }

    @Test
    void attachTimeoutsReachTheAttachment() throws Exception {
        Gateway set = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
            "--attach", "amqp://127.0.0.1:1/orders", "--attach-idle-timeout", "4000", "--attach-timeout", "1500"}));
        assertEquals(4000, set.attachments().get(0).getIdleTimeout());
        assertEquals(1500, set.attachments().get(0).getAttachTimeout());
        Gateway defaults = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
            "--attach", "amqp://127.0.0.1:1/orders"}));
        assertEquals(60_000, defaults.attachments().get(0).getIdleTimeout());
        assertEquals(10_000, defaults.attachments().get(0).getAttachTimeout());
        assertEquals(0, GatewayOptions.parse(new String[] {"--attach-idle-timeout", "0"}).attachIdleTimeoutMillis());
        assertTrue(assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--attach-timeout", "0"})).getMessage()
                .contains("--attach-timeout must be from 1"));
    }

    @Test
    void unknownServletClassFailsToBuild() {
        assertThrows(ClassNotFoundException.class, () -> new Gateway(GatewayOptions.parse(new String[] {
            "--amqp-port", "0", "--servlet", "/x=no.such.Servlet"})));
    }

    @Test
    void warDirectoryIsDeployedAtRoot() throws Exception {
        assertWarServed(webApp());
    }

    @Test
    void warFileIsDeployedAtRoot() throws Exception {
        Path app = webApp();
        Path war = dir.resolve("app.war");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(war));
             Stream<Path> files = Files.walk(app)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                zip.putNextEntry(new ZipEntry(app.relativize(f).toString().replace('\\', '/')));
                zip.write(Files.readAllBytes(f));
                zip.closeEntry();
            }
        }
        assertWarServed(war);
    }

    /** An exploded web application: a static file and WhoAmIServlet mapped by web.xml. */
    private Path webApp() throws Exception {
        Path war = dir.resolve("app");
        Files.createDirectories(war.resolve("WEB-INF"));
        Files.writeString(war.resolve("hello.txt"), "static hello\n");
        Files.writeString(war.resolve("WEB-INF/web.xml"), String.join("\n",
                "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.1\">",
                "  <servlet><servlet-name>who</servlet-name>",
                "    <servlet-class>io.amqpservlet.gateway.demo.WhoAmIServlet</servlet-class></servlet>",
                "  <servlet-mapping><servlet-name>who</servlet-name><url-pattern>/who</url-pattern></servlet-mapping>",
                "</web-app>"));
        return war;
    }

    private static void assertWarServed(Path war) throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--war", war.toString());
        try {
            String base = "amqp://127.0.0.1:" + g.amqpPort();
            Cli file = Cli.request(base + "/hello.txt");
            assertEquals(0, file.exit, file.toString());
            assertEquals("static hello\n", file.text());
            assertEquals("anonymous", Cli.request(base + "/who").text());
        } finally {
            g.stop();
        }
    }

    private static final String HELLO_SERVLET = String.join("\n",
            "package user;",
            "public class Hello extends jakarta.servlet.http.HttpServlet {",
            "  @Override protected void doGet(jakarta.servlet.http.HttpServletRequest q,",
            "      jakarta.servlet.http.HttpServletResponse r) throws java.io.IOException {",
            "    r.getWriter().print(\"hello from a user class\");",
            "  }",
            "}");

    @Test
    void servletClassFromTheClasspathOptionIsServed() throws Exception {
        Path classes = dir.resolve("classes");
        JavaSource.compile(dir.resolve("src"), classes, "user.Hello", HELLO_SERVLET);
        assertThrows(ClassNotFoundException.class, () -> new Gateway(GatewayOptions.parse(new String[] {
            "--amqp-port", "0", "--servlet", "/hello=user.Hello"})), "not on the gateway's own class path");
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "-cp", classes.toString(),
                "--servlet", "/hello=user.Hello");
        try {
            Cli r = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/hello");
            assertEquals(0, r.exit, r.toString());
            assertEquals("hello from a user class", r.text());
        } finally {
            g.stop();
        }
    }

    @Test
    void annotatedServletInAWarIsServed() throws Exception {
        Path war = dir.resolve("annotated");
        Files.createDirectories(war.resolve("WEB-INF"));
        // No web.xml at all: the servlet is declared by @WebServlet only.
        JavaSource.compile(dir.resolve("src"), war.resolve("WEB-INF/classes"), "user.Annotated", String.join("\n",
                "package user;",
                "@jakarta.servlet.annotation.WebServlet(\"/annotated\")",
                "public class Annotated extends jakarta.servlet.http.HttpServlet {",
                "  @Override protected void doGet(jakarta.servlet.http.HttpServletRequest q,",
                "      jakarta.servlet.http.HttpServletResponse r) throws java.io.IOException {",
                "    r.getWriter().print(\"found by its annotation\");",
                "  }",
                "}"));
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--war", war.toString());
        try {
            Cli r = Cli.request("-i", "amqp://127.0.0.1:" + g.amqpPort() + "/annotated");
            assertEquals(0, r.exit, r.toString());
            assertTrue(r.text().startsWith("HTTP/1.1 200\r\n"), r.text());
            assertEquals("found by its annotation", r.body());
        } finally {
            g.stop();
        }
    }

    @Test
    void missingWarFailsToStartWithOneLine() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int status = GatewayMain.serve(new String[] {"--amqp-port", "0", "--http-port", "0", "--war",
            dir.resolve("missing.war").toString()}, new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                new java.io.PrintStream(err, true));
        assertEquals(GatewayMain.START_FAILED, status);
        String text = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.contains("missing.war: no such file or directory"), text);
    }

    @Test
    void aBindAddressThatIsNoHostFailsToStartSayingSo() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int status = GatewayMain.serve(new String[] {"--amqp-port", "0", "--http-port", "-1", "--bind",
            "no-such-host.invalid"}, new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                new java.io.PrintStream(err, true));
        assertEquals(GatewayMain.START_FAILED, status);
        String text = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals("amqp-servlet: cannot start: --bind no-such-host.invalid: no such host or address"
                + System.lineSeparator(), text);
    }

    @Test
    void warThatFailsToDeployFailsToStart() throws Exception {
        Path war = dir.resolve("broken");
        Files.createDirectories(war.resolve("WEB-INF"));
        Files.writeString(war.resolve("WEB-INF/web.xml"), String.join("\n",
                "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.1\">",
                "  <servlet><servlet-name>gone</servlet-name>",
                "    <servlet-class>no.such.Servlet</servlet-class><load-on-startup>1</load-on-startup></servlet>",
                "  <servlet-mapping><servlet-name>gone</servlet-name><url-pattern>/x</url-pattern></servlet-mapping>",
                "</web-app>"));
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int status = GatewayMain.serve(new String[] {"--amqp-port", "0", "--http-port", "-1", "--war",
            war.toString()}, new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                new java.io.PrintStream(err, true));
        String text = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(GatewayMain.START_FAILED, status, text);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("amqp-servlet: cannot start: --war " + war + " failed to deploy: "), text);
        assertTrue(text.contains("no.such.Servlet") && !text.contains("{"), text);
    }

    @Test
    void usersAreRequiredOverHttpTooWithBasicAuth() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "0", "--user", "alice:s3cret");
        try {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.URI whoami = java.net.URI.create("http://127.0.0.1:" + g.httpPort() + "/whoami");
            java.net.http.HttpResponse<String> anonymous = http.send(java.net.http.HttpRequest.newBuilder(whoami)
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(401, anonymous.statusCode(), "HTTP is no way around the SASL login");
            assertTrue(anonymous.headers().firstValue("www-authenticate").orElse("").startsWith("Basic"));
            String basic = "Basic " + java.util.Base64.getEncoder().encodeToString(
                    "alice:s3cret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            java.net.http.HttpResponse<String> alice = http.send(java.net.http.HttpRequest.newBuilder(whoami)
                    .header("Authorization", basic).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, alice.statusCode());
            assertEquals("alice", alice.body());
            Cli amqp = Cli.request("-u", "alice:s3cret", "amqp://127.0.0.1:" + g.amqpPort() + "/whoami");
            assertEquals("alice", amqp.text(), amqp.toString());
        } finally {
            g.stop();
        }
    }

    @Test
    void acceptBacklogAppliesToEveryPort() throws Exception {
        for (String[] args : new String[][] {{}, {"--accept-backlog", "77"}}) {
            String[] all = new String[args.length + 4];
            System.arraycopy(new String[] {"--amqp-port", "0", "--http-port", "0"}, 0, all, 0, 4);
            System.arraycopy(args, 0, all, 4, args.length);
            Gateway g = new Gateway(GatewayOptions.parse(all));
            int expected = args.length == 0 ? GatewayOptions.DEFAULT_ACCEPT_BACKLOG : 77;
            for (org.eclipse.jetty.server.Connector c : g.server().getConnectors()) {
                assertEquals(expected, ((org.eclipse.jetty.server.ServerConnector) c).getAcceptQueueSize());
            }
        }
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--accept-backlog", "0"}));
    }

    /**
     * Counts {@link #entered} down as a request enters it, then answers 200 after {@code ?ms=N} milliseconds: the
     * request is past the gateway's {@code GracefulHandler} then, which answers 503 to one that reaches it once a stop
     * has begun.
     */
    public static final class InFlightServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;
        static volatile CountDownLatch entered = new CountDownLatch(1);

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            entered.countDown();
            try {
                Thread.sleep(Long.parseLong(request.getParameter("ms")));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            response.setStatus(200);
            response.getWriter().print("slept");
        }
    }

    @Test
    void stopLetsAnInFlightRequestFinish() throws Exception {
        InFlightServlet.entered = new CountDownLatch(1);
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--stop-timeout", "10000",
                "--servlet", "/slow=" + InFlightServlet.class.getName());
        boolean stopped = false;
        try {
            int port = g.amqpPort();
            String url = "amqp://127.0.0.1:" + port + "/slow?ms=1000";
            CompletableFuture<Cli> inFlight = CompletableFuture.supplyAsync(() -> Cli.request("-i", url));
            // Stop only once the request is inside the servlet: one that arrives after the stop has begun is
            // released, one dispatched but not yet through the GracefulHandler is answered 503, and a connect after
            // the connector stopped fails.
            assertTrue(InFlightServlet.entered.await(10, TimeUnit.SECONDS), "the request never reached the servlet");
            long start = System.nanoTime();
            g.stop();
            stopped = true;
            long stopMillis = (System.nanoTime() - start) / 1_000_000;
            Cli r = inFlight.get(10, TimeUnit.SECONDS);
            assertEquals(0, r.exit, r.toString());
            assertTrue(r.text().startsWith("HTTP/1.1 200\r\n"), r.toString());
            assertTrue(stopMillis >= 300, "stop waited only " + stopMillis + " ms");
            assertEquals(7, Cli.request("amqp://127.0.0.1:" + port + "/echo").exit, "the port is closed after stop");
        } finally {
            if (!stopped) {
                g.stop();
            }
        }
    }

    /** A config file's bad key or value is named with the file, as a person reads it: not "----amqp-port". */
    @Test
    void aBadConfigKeyNamesTheFileAndTheKey() throws Exception {
        Path typo = Files.writeString(dir.resolve("typo.properties"), "amqpport=1\n");
        assertEquals("config " + typo + ": unknown key amqpport (keys are the options' names without the leading --,"
                + " such as amqp-port)", assertThrows(GatewayOptions.UsageException.class,
                        () -> GatewayOptions.parse(new String[] {"--config", typo.toString()})).getMessage());
        Path dashes = Files.writeString(dir.resolve("dashes.properties"), "--amqp-port=1\n");
        assertEquals("config " + dashes + ": unknown key --amqp-port (keys are the options' names without the"
                + " leading --, such as amqp-port)", assertThrows(GatewayOptions.UsageException.class,
                        () -> GatewayOptions.parse(new String[] {"--config", dashes.toString()})).getMessage());
        Path value = Files.writeString(dir.resolve("value.properties"), "user.1=alice\n");
        assertEquals("config " + value + ": --user wants name:password, got alice",
                assertThrows(GatewayOptions.UsageException.class,
                        () -> GatewayOptions.parse(new String[] {"--config", value.toString()})).getMessage());
    }

    @Test
    void configFileAndLaterOptionsCombine() throws Exception {
        Path config = dir.resolve("g.properties");
        Files.writeString(config, "amqp-port=1234\nhttp-port=-1\nuser.1=alice:a\nuser.2=bob:b\n"
                + "servlet.x=/x=a.B\nbind=0.0.0.0\nclasspath.1=a.jar\nclasspath.2=b:c\n");
        GatewayOptions o = GatewayOptions.parse(new String[] {"--config", config.toString(), "--amqp-port=0",
            "--user", "carol:c"});
        assertEquals(0, o.amqpPort());
        assertEquals(-1, o.httpPort());
        assertEquals("0.0.0.0", o.bind());
        assertEquals(3, o.users().size());
        assertEquals("carol", o.users().get(2).name());
        assertEquals("a.B", o.servlets().get("/x"));
        assertEquals(java.util.List.of("a.jar", "b", "c"), o.classpath());
        assertTrue(!o.demo());
        GatewayOptions defaults = GatewayOptions.parse(new String[0]);
        assertEquals(5672, defaults.amqpPort());
        assertEquals(8080, defaults.httpPort());
        assertEquals("127.0.0.1", defaults.bind());
        assertTrue(defaults.demo());
    }

    @Test
    void usageErrorsNameTheOption() {
        GatewayOptions.UsageException unknown = assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--foo"}));
        assertEquals("Unknown option: '--foo'", unknown.getMessage());
        GatewayOptions.UsageException missing = assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--http-port"}));
        assertTrue(missing.getMessage().contains("--http-port"), missing.getMessage());
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertEquals(0, GatewayMain.serve(new String[] {"--help"}, new java.io.PrintStream(out, true), System.err));
        assertTrue(out.toString().contains("--accept-backlog"), out.toString());
        assertEquals(GatewayMain.USAGE, GatewayMain.serve(new String[] {"--foo"},
                new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                new java.io.PrintStream(new java.io.ByteArrayOutputStream())));
    }

    /**
     * Each option of both commands has an order of its own: picocli breaks ties in the order reflection lists the
     * methods, which differs from run to run, so --help (and docs/gateway.md's copy of it) would vary.
     */
    @Test
    void theHelpListsTheOptionsInOneOrder() {
        // A command with its mixins: their options are listed together.
        for (Class<?>[] classes : new Class<?>[][] {{GatewayCommand.class, EngineLimitOptions.class},
            {RequestCommand.class}}) {
            Class<?> command = classes[0];
            java.util.Map<Integer, String> byOrder = new java.util.TreeMap<>();
            java.util.List<java.lang.reflect.AnnotatedElement> elements = new java.util.ArrayList<>();
            for (Class<?> c : classes) {
                elements.addAll(java.util.List.of(c.getDeclaredMethods()));
                elements.addAll(java.util.List.of(c.getDeclaredFields()));
            }
            for (java.lang.reflect.AnnotatedElement element : elements) {
                picocli.CommandLine.Option option = element.getAnnotation(picocli.CommandLine.Option.class);
                if (option == null || option.usageHelp() || option.versionHelp()) {
                    continue;
                }
                String name = String.join(", ", option.names());
                String before = byOrder.put(option.order(), name);
                assertEquals(null, before, command.getSimpleName() + ": " + name + " has the order of " + before);
            }
            assertTrue(byOrder.size() > 10, command + ": " + byOrder);
        }
    }

    /** docs/gateway.md shows both commands' --help as they print it. */
    @Test
    void theHelpOnThePageIsTheHelp() throws Exception {
        String page = Files.readString(Path.of("..", "..", "docs", "gateway.md"));
        for (String[] help : new String[][] {{"`bin/amqp-servlet --help`:", GatewayOptions.usage()},
            {"`bin/amqp-servlet request --help`:", RequestCommand.usage()}}) {
            int from = page.indexOf("```\n", page.indexOf(help[0])) + 4;
            assertEquals(help[1], page.substring(from, page.indexOf("```\n", from)), help[0]);
        }
    }

    /** Options that do not go together are a bad command line (exit 2, with the hint), not a failed start. */
    @Test
    void optionsThatDoNotGoTogetherAreUsageErrors() {
        String[][] commandLines = {
            {"--amqp-port", "0", "--http-port", "-1", "--amqps-port", "0"},
            {"--amqp-port", "-1", "--http-port", "-1"},
            {"--amqp-port", "-1", "--http-port", "-1", "--attach", "amqp://127.0.0.1:1"},
            {"--amqp-port", "-1", "--http-port", "-1", "--attach", "amqp://127.0.0.1:1/orders",
                "--attach-trust-user-id", "--attach-request-user", "alice"},
            {"--amqp-port", "-1", "--http-port", "-1", "--attach", "amqp://127.0.0.1:1/orders",
                "--attach-min-reconnect-delay", "500", "--attach-max-reconnect-delay", "100"},
            {"--amqp-port", "-1", "--http-port", "-1", "--attach", "amqp://127.0.0.1:1/orders",
                "--attach-sasl-external"},
            // Options for one port that is off, and clear-text clients on a port that needs certificates.
            {"--amqp-port", "0", "--http-port", "-1", "--amqp-on-http-port"},
            {"--amqp-port", "0", "--http-port", "-1", "--amqp-on-amqps-port"},
            {"--amqp-port", "0", "--http-port", "-1", "--amqp-on-https-port"},
            {"--amqp-port", "-1", "--http-port", "-1", "--amqps-port", "0", "--tls-keystore", "server.p12",
                "--tls-client-auth", "need", "--amqp-on-amqps-port"},
        };
        for (String[] args : commandLines) {
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int status = GatewayMain.serve(args, new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                    new java.io.PrintStream(err, true));
            String text = err.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(GatewayMain.USAGE, status, String.join(" ", args) + ": " + text);
            assertEquals(2, text.lines().count(), text);
            assertTrue(text.endsWith("Try 'amqp-servlet --help' for more information." + System.lineSeparator()),
                    text);
        }
    }

    @Test
    void theOperatorOptionsAreOffUnlessGivenOnTheCommandLineOrInAConfigFile() throws Exception {
        GatewayOptions defaults = GatewayOptions.parse(new String[0]);
        assertTrue(!defaults.stats() && !defaults.metrics() && !defaults.benchFloor() && !defaults.health());
        assertEquals(60_000, defaults.tlsReloadIntervalMillis());
        assertEquals(-1, defaults.metricsPort());
        assertEquals(null, defaults.requestLog());

        GatewayOptions port = GatewayOptions.parse(new String[] {"--metrics-port", "0"});
        assertTrue(port.metrics(), "a metrics port turns the metrics on");
        assertEquals(0, port.metricsPort());

        Path config = dir.resolve("ops.properties");
        Files.writeString(config, "stats=true\nmetrics=true\nrequest-log=/var/log/gw/yyyy_mm_dd.log\n"
                + "bench-floor=true\nhealth=true\ntls-reload-interval=0\n");
        GatewayOptions o = GatewayOptions.parse(new String[] {"--config", config.toString()});
        assertTrue(o.stats() && o.metrics() && o.benchFloor() && o.health());
        assertEquals(0, o.tlsReloadIntervalMillis());
        assertEquals(-1, o.metricsPort(), "metrics on the HTTP ports");
        assertEquals("/var/log/gw/yyyy_mm_dd.log", o.requestLog());

        GatewayOptions.UsageException bad = assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--metrics-port", "x"}));
        assertTrue(bad.getMessage().contains("--metrics-port"), bad.getMessage());
        GatewayOptions.UsageException negative = assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--tls-reload-interval", "-1"}));
        assertTrue(negative.getMessage().contains("--tls-reload-interval"), negative.getMessage());
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThrows(GatewayOptions.UsageException.class, () -> GatewayOptions.parse(new String[] {"--nope", "1"}));
        assertThrows(GatewayOptions.UsageException.class, () -> GatewayOptions.parse(new String[] {"--amqp-port"}));
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--amqp-port", "70000"}));
        assertThrows(GatewayOptions.UsageException.class, () -> GatewayOptions.parse(new String[] {"--user", "x"}));
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--servlet", "noslash=a.B"}));
    }
}
