package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.client.ClientTls;
import io.amqpservlet.gateway.ProxiedAmqpPeer;
import io.amqpservlet.testwar.AnnotatedWarServlet;
import io.amqpservlet.testwar.HelloWarServlet;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Our jetty-home module archive installed the way docs/jetty-module.md says, into a fresh {@code $JETTY_BASE} of
 * the real jetty-home 12.1.12 distribution, serving a war from {@code webapps/} to AMQP clients. Runs in
 * {@code integration-test} (failsafe), after {@code package} built the archive and the distribution was unpacked.
 */
@Timeout(180)
class JettyHomeModuleIT {
    private static final String WAR = "hello";
    /**
     * A web application has a SecurityHandler of its own, which replaces the connection's authentication unless
     * its authenticator is {@link AmqpAuthenticator}: the context XML of docs/jetty-module.md. Its login service
     * is the server's only one, amqp-plain's realm.
     */
    private static final String CONTEXT_WITH_AMQP_AUTHENTICATOR = """
            <?xml version="1.0"?>
            <!DOCTYPE Configure PUBLIC "-//Jetty//Configure//EN" "https://jetty.org/configure_10_0.dtd">
            <Configure id="wac" class="org.eclipse.jetty.ee11.webapp.WebAppContext">
              <Set name="contextPath">/hello</Set>
              <Set name="war"><Property name="jetty.webapps"/>/hello.war</Set>
              <Get name="securityHandler">
                <Set name="authenticator"><New class="io.amqpservlet.jetty.AmqpAuthenticator"/></Set>
              </Get>
            </Configure>
            """;

    @TempDir
    Path dir;

    private JettyBase base() throws IOException {
        JettyBase base = JettyBase.create(dir);
        assumeTrue(base != null, "no target/jetty-home or module archive (run mvn verify)");
        base.deployWar(WAR, Map.of(HelloWarServlet.class, "/*"));
        return base;
    }

    private static AmqpResponse amqpGet(int port, String path, EngineConfig config) throws IOException {
        long deadline = AmqpRequestClient.now() + 30_000;
        try (AmqpRequestClient client = AmqpRequestClient.connect("127.0.0.1", port, path, config, deadline)) {
            return client.exchange("GET", path, Map.of(), null, null, deadline);
        }
    }

    @Test
    void addModuleAmqpServesAWarToAmqpClients() throws Exception {
        try (JettyBase base = base()) {
            String added = base.startJar("--add-module=amqp,ee11-deploy");
            assertTrue(added.contains("amqp-base"), added); // our internal module comes with it
            Map<String, Integer> ports = base.start("amqp.port=0",
                    "amqp.connectionProperties=product=RabbitMQ, version=4.0.0,node=rabbit@base");
            int amqp = JettyBase.port(ports, "amqp");
            Client protonj2 = Client.create();
            try {
                assertEquals(Map.of("product", "RabbitMQ", "version", "4.0.0", "node", "rabbit@base"),
                        protonj2.connect("127.0.0.1", amqp).properties(), base.serverLog());
            } finally {
                protonj2.close();
            }

            AmqpResponse r = amqpGet(amqp, "/hello/greet", new EngineConfig().saslAnonymous());
            assertEquals(200, r.status(), base.serverLog());
            assertEquals("hello from war /hello/greet amqp=true user=-", r.bodyText());
            assertEquals(404, amqpGet(amqp, "/nowhere", new EngineConfig().saslAnonymous()).status());
        }
    }

    @Test
    void anAnnotatedWarIsServedWithTheAnnotationsModule() throws Exception {
        try (JettyBase base = base()) {
            base.deployAnnotatedWar("annotated", AnnotatedWarServlet.class);
            base.startJar("--add-module=amqp,ee11-deploy,ee11-annotations"); // as docs/jetty-module.md installs
            int amqp = JettyBase.port(base.start("amqp.port=0"), "amqp");
            AmqpResponse r = amqpGet(amqp, "/annotated/annotated/x", new EngineConfig().saslAnonymous());
            assertEquals(200, r.status(), base.serverLog());
            assertEquals("annotated /annotated/annotated/x", r.bodyText());
        }
    }

    @Test
    void theDocsListEveryFileOfTheArchive() throws IOException {
        Path archive;
        try (var found = Files.newDirectoryStream(Path.of("target"), "amqp-servlet-jetty-module-*.zip")) {
            archive = found.iterator().next();
        }
        String name = archive.getFileName().toString();
        String version = name.substring("amqp-servlet-jetty-module-".length(), name.length() - ".zip".length());
        Set<String> files = new TreeSet<>();
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            zip.stream().filter(e -> !e.isDirectory()).forEach(e -> files.add(e.getName()));
        }
        // The page's first block lists the archive, a path per line, a comment after two spaces.
        String page = Files.readString(Path.of("..", "..", "docs", "jetty-module.md"));
        int start = page.indexOf("```\n") + 4;
        Set<String> listed = new TreeSet<>();
        for (String line : page.substring(start, page.indexOf("```", start)).split("\n")) {
            listed.add(line.split("  ", 2)[0].trim().replace("<version>", version));
        }
        assertEquals(files, listed);
    }

    @Test
    void amqpPlainChecksUsersOfARealmFile() throws Exception {
        try (JettyBase base = base()) {
            base.startJar("--add-module=amqp,amqp-plain,ee11-deploy");
            // The module installs a commented template, so the base starts before any user is added.
            assertTrue(Files.readString(base.base.resolve("etc/amqp-realm.properties")).contains("# alice:"));
            base.write("etc/amqp-realm.properties", "alice: secret, user\n".getBytes(StandardCharsets.UTF_8));
            base.write("webapps/" + WAR + ".xml", CONTEXT_WITH_AMQP_AUTHENTICATOR.getBytes(StandardCharsets.UTF_8));
            int amqp = JettyBase.port(base.start("amqp.port=0", "amqp.anonymousAllowed=false",
                    "amqp.maxFailedLoginsPerAddress=1"), "amqp");

            AmqpResponse r = amqpGet(amqp, "/hello/me", new EngineConfig().saslPlain("alice", "secret"));
            assertEquals("hello from war /hello/me amqp=true user=alice", r.bodyText(), base.serverLog());
            IOException refused = assertThrows(IOException.class,
                    () -> amqpGet(amqp, "/hello/me", new EngineConfig().saslPlain("alice", "wrong")));
            assertTrue(String.valueOf(refused.getMessage()).contains("authentication failed (wrong user or password)"),
                    refused.toString());
            // amqp.maxFailedLoginsPerAddress=1: the address has failed its one login, so even the right password
            // is refused (sys-temp) until one comes back a minute later.
            IOException limited = assertThrows(IOException.class,
                    () -> amqpGet(amqp, "/hello/me", new EngineConfig().saslPlain("alice", "secret")));
            assertTrue(String.valueOf(limited.getMessage()).contains("try again later"),
                    limited + base.serverLog());
        }
    }

    @Test
    void amqpsServesTlsClientsAndSaslExternalNamesTheCertificateSubject() throws Exception {
        TestCertificates certificates = TestCertificates.create(Files.createDirectories(dir.resolve("tls")));
        try (JettyBase base = base()) {
            base.startJar("--add-module=amqps,amqp-plain,ee11-deploy");
            base.write("etc/amqp-realm.properties", "alice: secret, user\n".getBytes(StandardCharsets.UTF_8));
            base.write("webapps/" + WAR + ".xml", CONTEXT_WITH_AMQP_AUTHENTICATOR.getBytes(StandardCharsets.UTF_8));
            Map<String, Integer> ports = base.start("amqp.ssl.port=0", "amqp.ssl.saslExternal=true",
                    "jetty.sslContext.keyStorePath=" + certificates.serverKeyStore,
                    "jetty.sslContext.keyStorePassword=" + TestCertificates.PASSWORD,
                    "jetty.sslContext.trustStorePath=" + certificates.serverTrustStore,
                    "jetty.sslContext.trustStorePassword=" + TestCertificates.PASSWORD,
                    "jetty.sslContext.wantClientAuth=true");
            int amqps = JettyBase.port(ports, "ssl");

            ConnectionOptions options = new ConnectionOptions();
            options.sslEnabled(true);
            options.sslOptions().trustStoreLocation(certificates.clientTrustStore.toString())
                    .trustStorePassword(TestCertificates.PASSWORD).trustStoreType("PKCS12")
                    .keyStoreLocation(certificates.clientKeyStore.toString())
                    .keyStorePassword(TestCertificates.PASSWORD).keyStoreType("PKCS12");
            options.saslOptions().addAllowedMechanism("EXTERNAL");
            try (Client client = Client.create();
                 Connection connection = client.connect("127.0.0.1", amqps, options)) {
                Receiver replies = connection.openDynamicReceiver();
                String replyTo = replies.address();
                connection.openSender("/hello/tls").send(Message.create("")
                        .subject("GET").messageId("tls-1").replyTo(replyTo));
                Delivery d = replies.receive(30, TimeUnit.SECONDS);
                assertTrue(d != null, "no response; " + base.serverLog());
                Object body = d.message().body();
                assertEquals("hello from war /hello/tls amqp=true user=" + TestCertificates.CLIENT_DN,
                        body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body));
            }
        }
    }

    @Test
    void amqpsDetectServesAmqpAndAmqpsOnOnePort() throws Exception {
        TestCertificates certificates = TestCertificates.create(Files.createDirectories(dir.resolve("tls")));
        try (JettyBase base = base()) {
            base.startJar("--add-module=amqps,amqps-detect,ee11-deploy");
            Map<String, Integer> ports = base.start("amqp.ssl.port=0",
                    "jetty.sslContext.keyStorePath=" + certificates.serverKeyStore,
                    "jetty.sslContext.keyStorePassword=" + TestCertificates.PASSWORD);
            assertEquals(1, ports.size(), ports.toString()); // one connector, with and without TLS
            int port = JettyBase.port(ports, "amqp");

            AmqpResponse plain = amqpGet(port, "/hello/plain", new EngineConfig().saslAnonymous());
            assertEquals("hello from war /hello/plain amqp=true user=-", plain.bodyText(), base.serverLog());
            long deadline = AmqpRequestClient.now() + 30_000;
            ClientTls tls = ClientTls.create(null, true, null, null);
            try (AmqpRequestClient client = AmqpRequestClient.connect("127.0.0.1", port, "/hello/tls",
                    new EngineConfig().saslAnonymous(), deadline, tls)) {
                AmqpResponse r = client.exchange("GET", "/hello/tls", Map.of(), null, null, deadline);
                assertEquals("hello from war /hello/tls amqp=true user=-", r.bodyText(), base.serverLog());
            }
        }
    }

    @Test
    void amqpDetectServesHttpAndAmqpOnOnePort() throws Exception {
        try (JettyBase base = base()) {
            base.startJar("--add-module=http,amqp-detect,ee11-deploy");
            Map<String, Integer> ports = base.start("jetty.http.port=0");
            assertEquals(1, ports.size(), ports.toString()); // one connector, both protocols
            int port = JettyBase.port(ports, "http/1.1");

            AmqpResponse r = amqpGet(port, "/hello/a", new EngineConfig().saslAnonymous());
            assertEquals("hello from war /hello/a amqp=true user=-", r.bodyText(), base.serverLog());

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> h = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/hello/b")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, h.statusCode());
            assertEquals("hello from war /hello/b amqp=false user=-", h.body());
        }
    }

    @Test
    void amqpAttachServesAQueueOfARealBroker() throws Exception {
        try (JettyBase base = base(); EmbeddedArtemis broker = EmbeddedArtemis.start("hello");
             Client client = Client.create()) {
            base.startJar("--add-module=amqp,amqp-attach,ee11-deploy");
            base.start("amqp.port=0", "amqp.attach.uri=amqp://127.0.0.1:" + broker.port() + "/hello",
                    "amqp.attach.credit=4");
            Connection connection = client.connect("127.0.0.1", broker.port(), new ConnectionOptions());
            Receiver replies = connection.openDynamicReceiver();
            String replyTo = replies.address();
            connection.openSender("hello").send(Message.create().to("/hello/queued").subject("GET")
                    .messageId("attach-1").replyTo(replyTo));
            Delivery d = replies.receive(30, TimeUnit.SECONDS);
            assertTrue(d != null, "no response through the broker; server log: " + base.serverLog());
            Message<Object> response = d.message();
            assertEquals("200", response.subject());
            assertEquals("attach-1", response.correlationId());
            Object body = response.body();
            assertEquals("hello from war /hello/queued amqp=true user=-",
                    body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body));
        }
    }

    @Test
    void amqpAttachLogsInWithItsCertificateAndTakesEachUserFromTheBrokerValidatedUserId() throws Exception {
        TestCertificates certificates = TestCertificates.create(Files.createDirectories(dir.resolve("tls")));
        try (JettyBase base = base();
             SecuredArtemis broker = new SecuredArtemis("hello").user("alice", "alice-pw")
                     .plugin(new UserIdCheckPlugin()).tlsWithClientCertificates(certificates, "gateway").start();
             Client client = Client.create()) {
            // amqp-plain brings the realm the war's security handler (with AmqpAuthenticator) needs.
            base.startJar("--add-module=amqp,amqp-plain,amqp-attach,ee11-deploy");
            base.write("webapps/" + WAR + ".xml", CONTEXT_WITH_AMQP_AUTHENTICATOR.getBytes(StandardCharsets.UTF_8));
            base.start("amqp.port=0", "amqp.attach.uri=amqps://127.0.0.1:" + broker.tlsPort() + "/hello",
                    "amqp.attach.credit=4",
                    "amqp.attach.keyStorePath=" + certificates.clientKeyStore,
                    "amqp.attach.keyStorePassword=" + TestCertificates.PASSWORD,
                    "amqp.attach.trustStorePath=" + certificates.clientTrustStore,
                    "amqp.attach.trustStorePassword=" + TestCertificates.PASSWORD,
                    "amqp.attach.saslExternal=true", "amqp.attach.trustUserId=true");
            Connection alice = client.connect("127.0.0.1", broker.port(),
                    new ConnectionOptions().user("alice").password("alice-pw"));
            Receiver replies = alice.openDynamicReceiver();
            String[] userIds = {"alice", null};
            String[] seen = {"alice", "-"};
            for (int i = 0; i < userIds.length; i++) {
                Message<String> request = Message.create("").to("/hello/queued").subject("GET")
                        .messageId("attach-" + i).replyTo(replies.address());
                if (userIds[i] != null) {
                    request.userId(userIds[i].getBytes(StandardCharsets.UTF_8));
                }
                alice.openSender("hello").send(request);
                Delivery d = replies.receive(30, TimeUnit.SECONDS);
                assertTrue(d != null, "no response through the broker; server log: " + base.serverLog());
                Object body = d.message().body();
                assertEquals("hello from war /hello/queued amqp=true user=" + seen[i],
                        body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body));
            }
            assertEquals(java.util.Set.of("gateway", "alice"), broker.sessionUsers(),
                    "the server logged in as gateway, its certificate's user");
        }
    }

    @Test
    void amqpProxyProtocolHasThePerAddressLimitsCountTheClientTheBalancerNames() throws Exception {
        try (JettyBase base = base()) {
            base.startJar("--add-module=amqp,amqp-proxy-protocol,ee11-deploy");
            int amqp = JettyBase.port(base.start("amqp.port=0", "amqp.maxConnectionsPerAddress=1",
                    "amqp.closeTimeout=1000"), "amqp");
            try (ProxiedAmqpPeer first = ProxiedAmqpPeer.open(amqp, "198.51.100.7").awaitOpen();
                 ProxiedAmqpPeer again = ProxiedAmqpPeer.open(amqp, "198.51.100.7");
                 ProxiedAmqpPeer other = ProxiedAmqpPeer.open(amqp, "198.51.100.8")) {
                String refused = again.readUntilClosed();
                assertTrue(refused.contains("198.51.100.7 has 1 AMQP connections open"), refused + base.serverLog());
                assertTrue(first.stillOpenAfter(500) && other.stillOpenAfter(0), base.serverLog());
            }
        }
    }

    @Test
    void theRequestlogModuleRecordsAmqpRequestsAsHttpOnes() throws Exception {
        try (JettyBase base = base()) {
            base.startJar("--add-module=amqp,http,requestlog,ee11-deploy");
            Map<String, Integer> ports = base.start("amqp.port=0", "jetty.http.port=0",
                    "jetty.requestlog.filePath=" + base.base.resolve("logs/requests.log"));
            int amqp = JettyBase.port(ports, "amqp");
            int http = JettyBase.port(ports, "http/1.1");
            AmqpResponse overAmqp = amqpGet(amqp, "/hello/over-amqp", new EngineConfig().saslAnonymous());
            assertEquals(200, overAmqp.status(), base.serverLog());
            HttpResponse<String> overHttp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + http + "/hello/over-http")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, overHttp.statusCode());
            // The module's writer is asynchronous, and Jetty logs a request as it ends it, after the answer left.
            Path log = base.base.resolve("logs/requests.log");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String lines = "";
            while (System.nanoTime() < deadline && !(lines.contains("over-amqp") && lines.contains("over-http"))) {
                Thread.sleep(50);
                lines = Files.exists(log) ? Files.readString(log) : "";
            }
            String amqpLine = lines.lines().filter(l -> l.contains("/hello/over-amqp")).findFirst().orElse(null);
            assertTrue(amqpLine != null, lines + base.serverLog());
            // The module's format: client - user [time] "request line" status size "referer" "agent".
            assertTrue(amqpLine.startsWith("127.0.0.1 - - ["), amqpLine);
            // The request line's protocol is the connection's; the size, the response body's.
            assertTrue(amqpLine.contains("\"GET /hello/over-amqp amqp\" 200 " + overAmqp.body().length + " "),
                    amqpLine);
            String httpLine = lines.lines().filter(l -> l.contains("/hello/over-http")).findFirst().orElse(null);
            assertTrue(httpLine != null && httpLine.contains("\"GET /hello/over-http HTTP/1.1\" 200 "), lines);
        }
    }

    @Test
    void theJmxModuleShowsTheAmqpConnectorsLimitsAndCounts() throws Exception {
        int registryPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            registryPort = free.getLocalPort();
        }
        try (JettyBase base = base()) {
            base.startJar("--add-module=amqp,jmx-remote,ee11-deploy");
            int amqp = JettyBase.port(base.start("amqp.port=0", "jetty.jmxremote.rmiregistryport=" + registryPort,
                    "jetty.jmxremote.rmiserverport=0", "amqp.writeCoalescing=350", "amqp.handleMax=31",
                    "amqp.maxLinksPerConnection=40", "amqp.maxLinkBytesPerConnection=45000", "amqp.maxUnsettledSentDeliveries=50",
                    "amqp.maxBufferedMessagesPerLink=60", "amqp.maxBufferedBytesPerConnection=70000",
                    "amqp.minPeerIdleTimeout=5000", "amqp.partialFrameTimeout=12000",
                    "amqp.maxFailedLoginsPerAddress=7", "amqp.failedLoginsWindowMillis=30000", "amqp.maxDecodeDepth=16",
                    "amqp.maxDecodeElements=5000"), "amqp");
            assertEquals(200, amqpGet(amqp, "/hello/counted", new EngineConfig().saslAnonymous()).status(),
                    base.serverLog());
            // amqp.minPeerIdleTimeout on a real connection: a client that announces 1 s (half its 2 s) is refused.
            IOException refused = assertThrows(IOException.class, () -> amqpGet(amqp, "/hello/refused",
                    new EngineConfig().saslAnonymous().idleTimeoutMillis(2_000)));
            assertTrue(String.valueOf(refused.getMessage()).contains("amqp:resource-limit-exceeded: idle-time-out "
                    + "1000 ms is below the shortest this side keeps, 5000 ms"), refused + base.serverLog());
            javax.management.remote.JMXServiceURL url = new javax.management.remote.JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://localhost:" + registryPort + "/jmxrmi");
            try (javax.management.remote.JMXConnector jmx = javax.management.remote.JMXConnectorFactory.connect(url)) {
                javax.management.MBeanServerConnection mbeans = jmx.getMBeanServerConnection();
                java.util.Set<javax.management.ObjectName> factories = mbeans.queryNames(
                        new javax.management.ObjectName("io.amqpservlet.jetty:type=amqpconnectionfactory,*"), null);
                assertEquals(1, factories.size(), factories + "; " + base.serverLog());
                javax.management.ObjectName factory = factories.iterator().next();
                assertEquals(1L, mbeans.getAttribute(factory, "requestsServed"));
                assertEquals(4096, mbeans.getAttribute(factory, "maxConnections"));
                assertEquals(512, mbeans.getAttribute(factory, "maxConnectionsPerAddress"));
                assertEquals(32, mbeans.getAttribute(factory, "maxHandshakesPerAddress"));
                assertEquals(7, mbeans.getAttribute(factory, "maxFailedLoginsPerAddress"));
                assertEquals(30_000L, mbeans.getAttribute(factory, "failedLoginsWindowMillis"));
                assertEquals(350L, mbeans.getAttribute(factory, "writeCoalescing"));
                assertEquals(255, mbeans.getAttribute(factory, "channelMax"), "amqp.channelMax's default");
                assertEquals(31, mbeans.getAttribute(factory, "handleMax"));
                assertEquals(40, mbeans.getAttribute(factory, "maxLinksPerConnection"));
                assertEquals(45_000, mbeans.getAttribute(factory, "maxLinkBytesPerConnection"));
                assertEquals(50, mbeans.getAttribute(factory, "maxUnsettledSentDeliveries"));
                assertEquals(60, mbeans.getAttribute(factory, "maxBufferedMessagesPerLink"));
                assertEquals(70_000L, mbeans.getAttribute(factory, "maxBufferedBytesPerConnection"));
                assertEquals(5_000L, mbeans.getAttribute(factory, "minPeerIdleTimeout"));
                assertEquals(12_000L, mbeans.getAttribute(factory, "partialFrameTimeout"));
                assertEquals(1024, mbeans.getAttribute(factory, "maxDeliveriesInFlight"));
                assertEquals(16, mbeans.getAttribute(factory, "sessionIncomingWindow"));
                assertEquals(10_000L, mbeans.getAttribute(factory, "saslTimeout"));
                assertEquals(16, mbeans.getAttribute(factory, "maxDecodeDepth"));
                assertEquals(5_000, mbeans.getAttribute(factory, "maxDecodeElements"));
                // The refusal above, read over remote JMX as a map from condition to count.
                assertEquals(java.util.Map.of("amqp:resource-limit-exceeded", 1L),
                        mbeans.getAttribute(factory, "connectionErrorsSent"));
                assertEquals(java.util.Map.of(), mbeans.getAttribute(factory, "linkErrorsSent"));
                assertEquals(1, mbeans.queryNames(
                        new javax.management.ObjectName("io.amqpservlet.jetty:type=amqpserverbudget,*"), null).size());
            }
        }
    }
}
