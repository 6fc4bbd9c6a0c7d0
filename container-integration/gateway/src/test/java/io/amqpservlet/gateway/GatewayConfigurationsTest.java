package io.amqpservlet.gateway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gateway's other configurations: SASL PLAIN users, servlets by class name, a war, graceful stop. */
@Timeout(120)
class GatewayConfigurationsTest {
    @TempDir
    Path dir;

    private static Gateway start(String... args) throws Exception {
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
            assertEquals(67, Cli.request("-u", "alice:wrong", url).exit);
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

    @Test
    void stopLetsAnInFlightRequestFinish() throws Exception {
        Gateway g = start("--amqp-port", "0", "--http-port", "-1", "--stop-timeout", "10000");
        boolean stopped = false;
        try {
            int port = g.amqpPort();
            String url = "amqp://127.0.0.1:" + port + "/slow?ms=1000";
            CompletableFuture<Cli> inFlight = CompletableFuture.supplyAsync(() -> Cli.request("-i", url));
            Thread.sleep(400); // the request is inside the servlet by now
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

    @Test
    void configFileAndLaterOptionsCombine() throws Exception {
        Path config = dir.resolve("g.properties");
        Files.writeString(config, "amqp-port=1234\nhttp-port=-1\nuser.1=alice:a\nuser.2=bob:b\n"
                + "servlet.x=/x=a.B\nbind=0.0.0.0\n");
        GatewayOptions o = GatewayOptions.parse(new String[] {"--config", config.toString(), "--amqp-port=0",
            "--user", "carol:c"});
        assertEquals(0, o.amqpPort());
        assertEquals(-1, o.httpPort());
        assertEquals("0.0.0.0", o.bind());
        assertEquals(3, o.users().size());
        assertEquals("carol", o.users().get(2).name());
        assertEquals("a.B", o.servlets().get("/x"));
        assertTrue(!o.demo());
        GatewayOptions defaults = GatewayOptions.parse(new String[0]);
        assertEquals(5672, defaults.amqpPort());
        assertEquals(8080, defaults.httpPort());
        assertEquals("127.0.0.1", defaults.bind());
        assertTrue(defaults.demo());
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
