package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.client.AmqpClientException;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.ClientTls;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.exceptions.ClientException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.AbstractConnectionFactory;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.security.Principal;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AMQPS: {@link AmqpConnectionFactory} behind Jetty's {@link SslConnectionFactory}, real TLS handshakes with
 * certificates made by {@code keytool}, Apache Qpid protonj2-client 1.1.0 as the client. With
 * {@link AmqpConnectionFactory#setSaslExternal(boolean)}, a client certificate's subject DN is the SASL EXTERNAL
 * identity and so the request's user; without a certificate EXTERNAL is not offered.
 */
@Timeout(60)
class AmqpTlsTest {
    private static final long WAIT_SECONDS = 10;
    private static final long HANDSHAKE_IDLE_MILLIS = 1_000;

    @TempDir
    static Path dir;
    private static TestCertificates certificates;

    private Server server;
    private int tlsPort;
    private int mixedPort;
    private Client client;

    /** Answers with the user, whether the request was secure, and the protocol. */
    static final class WhoAmI extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Principal user = request.getUserPrincipal();
            response.setContentType("text/plain");
            response.getWriter().print((user == null ? "-" : user.getName()) + " secure=" + request.isSecure());
        }
    }

    /**
     * Answers with what Jetty's {@code SecureRequestCustomizer} puts on a TLS request: the cipher suite and the
     * client certificate's subject, or "-" for each that is missing.
     */
    static final class TlsAttributes extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Object cipher = request.getAttribute("jakarta.servlet.request.cipher_suite");
            Object chain = request.getAttribute("jakarta.servlet.request.X509Certificate");
            String subject = chain instanceof java.security.cert.X509Certificate[] certs && certs.length > 0
                    ? certs[0].getSubjectX500Principal().getName() : "-";
            response.setContentType("text/plain");
            response.getWriter().print((cipher == null ? "-" : "cipher") + " " + subject);
        }
    }

    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = TestCertificates.create(dir);
    }

    private SslContextFactory.Server sslContext() {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(certificates.serverKeyStore.toString());
        ssl.setKeyStorePassword(TestCertificates.PASSWORD);
        ssl.setTrustStorePath(certificates.serverTrustStore.toString());
        ssl.setTrustStorePassword(TestCertificates.PASSWORD);
        ssl.setWantClientAuth(true); // a certificate is optional: without one the client may still use ANONYMOUS
        return ssl;
    }

    private static AmqpConnectionFactory amqp() {
        AmqpConnectionFactory amqp = new AmqpConnectionFactory(new org.eclipse.jetty.server.HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true));
        amqp.setSaslExternal(true);
        return amqp;
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        try {
            AmqpConnectionFactory tlsAmqp = amqp();
            // Jetty's own way to put TLS in front of a protocol: it also adds a SecureRequestCustomizer to the
            // HttpConfiguration of every HttpConfiguration.ConnectionFactory, which AmqpConnectionFactory is.
            ServerConnector tls = new ServerConnector(server,
                    AbstractConnectionFactory.getFactories(sslContext(), tlsAmqp));
            tls.setHost("127.0.0.1");
            // Until the handshake is done there is no engine (it needs the certificate) and so no AMQP idle timeout:
            // the connector's idle timeout closes a client that never finishes its handshake.
            tls.setIdleTimeout(HANDSHAKE_IDLE_MILLIS);
            server.addConnector(tls);
            // AMQP and AMQPS on one port: a TLS ClientHello goes to ssl (then amqp), anything else to amqp.
            AmqpConnectionFactory mixedAmqp = amqp();
            ServerConnector mixed = new ServerConnector(server, new DetectorConnectionFactory(
                    new SslConnectionFactory(sslContext(), mixedAmqp.getProtocol())), mixedAmqp);
            mixed.setHost("127.0.0.1");
            server.addConnector(mixed);
            ServletContextHandler context = new ServletContextHandler();
            context.addServlet(new ServletHolder(new WhoAmI()), "/whoami");
            context.addServlet(new ServletHolder(new TlsAttributes()), "/tls");
            server.setHandler(context);
            server.start();
            tlsPort = tls.getLocalPort();
            mixedPort = mixed.getLocalPort();
        } catch (Exception | Error e) {
            server.stop();
            throw e;
        }
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            client.close();
        } finally {
            server.stop();
        }
    }

    private ConnectionOptions tlsOptions(boolean withClientCertificate, String... mechanisms) {
        ConnectionOptions options = new ConnectionOptions();
        options.sslEnabled(true);
        options.sslOptions().trustStoreLocation(certificates.clientTrustStore.toString())
                .trustStorePassword(TestCertificates.PASSWORD).trustStoreType("PKCS12");
        if (withClientCertificate) {
            options.sslOptions().keyStoreLocation(certificates.clientKeyStore.toString())
                    .keyStorePassword(TestCertificates.PASSWORD).keyStoreType("PKCS12");
        }
        for (String m : mechanisms) {
            options.saslOptions().addAllowedMechanism(m);
        }
        return options;
    }

    /** One GET /whoami over a fresh connection: the response body. */
    private String whoAmI(int port, ConnectionOptions options) throws Exception {
        return get(port, options, "/whoami");
    }

    /** One GET of {@code path} over a fresh connection: the response body. */
    private String get(int port, ConnectionOptions options, String path) throws Exception {
        try (Connection connection = client.connect("127.0.0.1", port, options)) {
            Receiver replies = connection.openDynamicReceiver();
            String replyTo = replies.address();
            Sender sender = connection.openSender(path);
            sender.send(Message.create("").subject("GET").messageId("who").replyTo(replyTo));
            Delivery delivery = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(delivery, "no response within " + WAIT_SECONDS + " s");
            Message<Object> response = delivery.message();
            delivery.accept();
            Object body = response.body();
            String text = body instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
                    : String.valueOf(body);
            assertEquals("200", response.subject(), text);
            return text;
        }
    }

    @Test
    void clientCertificateSubjectIsTheUserOverSaslExternal() throws Exception {
        assertEquals(TestCertificates.CLIENT_DN + " secure=true", whoAmI(tlsPort, tlsOptions(true, "EXTERNAL")));
    }

    @Test
    void withoutAClientCertificateExternalIsNotOffered() throws Exception {
        assertEquals("- secure=true", whoAmI(tlsPort, tlsOptions(false, "ANONYMOUS")));
        // A client that will only use EXTERNAL finds no mechanism in common.
        Exception e = assertThrows(Exception.class, () -> whoAmI(tlsPort, tlsOptions(false, "EXTERNAL")));
        assertNotNull(rootOf(e, ClientException.class), e.toString());
    }

    @Test
    void aCertificateHolderMayStillChooseAnonymous() throws Exception {
        assertEquals("- secure=true", whoAmI(tlsPort, tlsOptions(true, "ANONYMOUS")));
    }

    @Test
    void oneDetectingPortServesAmqpsAndPlainAmqp() throws Exception {
        assertEquals(TestCertificates.CLIENT_DN + " secure=true", whoAmI(mixedPort, tlsOptions(true, "EXTERNAL")));
        ConnectionOptions plain = new ConnectionOptions();
        plain.saslOptions().addAllowedMechanism("ANONYMOUS");
        assertEquals("- secure=false", whoAmI(mixedPort, plain));
        plain = new ConnectionOptions();
        plain.saslOptions().addAllowedMechanism("EXTERNAL"); // no TLS, so no EXTERNAL offered
        ConnectionOptions externalOnly = plain;
        assertThrows(Exception.class, () -> whoAmI(mixedPort, externalOnly));
    }

    @Test
    void amqpsRequestsCarryTheTlsAttributes() throws Exception {
        assertEquals("cipher " + TestCertificates.CLIENT_DN, get(tlsPort, tlsOptions(true, "EXTERNAL"), "/tls"));
        assertEquals("cipher -", get(tlsPort, tlsOptions(false, "ANONYMOUS"), "/tls"));
    }

    @Test
    void jettysTlsSetupFindsTheHttpConfigurationToCustomize() {
        // AbstractConnectionFactory.getFactories adds a SecureRequestCustomizer (https scheme, SNI and HSTS checks)
        // to each HttpConfiguration.ConnectionFactory it is given, as it does for Jetty's own HTTP factories.
        AmqpConnectionFactory amqp = new AmqpConnectionFactory();
        AbstractConnectionFactory.getFactories(sslContext(), amqp);
        org.junit.jupiter.api.Assertions.assertNotNull(
                amqp.getHttpConfiguration().getCustomizer(org.eclipse.jetty.server.SecureRequestCustomizer.class));
    }

    @Test
    void externalOnlyServerRefusesAClientWithoutACertificateWithSaslOutcomeAuth() throws Exception {
        // EXTERNAL is the only mechanism: no PLAIN, no ANONYMOUS, SASL required (EngineConfig's defaults).
        Server externalOnly = new Server();
        AmqpConnectionFactory amqp = new AmqpConnectionFactory(new org.eclipse.jetty.server.HttpConfiguration(),
                new EngineConfig());
        amqp.setSaslExternal(true);
        ServerConnector tls = new ServerConnector(externalOnly, new SslConnectionFactory(sslContext(),
                amqp.getProtocol()), amqp);
        tls.setHost("127.0.0.1");
        externalOnly.addConnector(tls);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new WhoAmI()), "/whoami");
        externalOnly.setHandler(context);
        externalOnly.start();
        try {
            int port = tls.getLocalPort();
            assertEquals(TestCertificates.CLIENT_DN + " secure=true", whoAmI(port, tlsOptions(true, "EXTERNAL")));
            // Our client insists on EXTERNAL without a certificate: the server answers sasl-outcome auth (exit 67),
            // where it used to drop the connection (its engine could not be made).
            long deadline = AmqpRequestClient.now() + WAIT_SECONDS * 1000;
            AmqpClientException denied = assertThrows(
                    AmqpClientException.class,
                    () -> AmqpRequestClient.connect("127.0.0.1", port, "/whoami",
                            new EngineConfig().saslExternal(), deadline,
                            ClientTls.create(null, true, null, null)));
            assertEquals(AmqpClientException.LOGIN_DENIED, denied.exitCode(),
                    denied.toString());
            // protonj2 wanting ANONYMOUS finds it not offered and gives up cleanly; the server keeps serving.
            assertThrows(Exception.class, () -> whoAmI(port, tlsOptions(false, "ANONYMOUS")));
            assertEquals(TestCertificates.CLIENT_DN + " secure=true", whoAmI(port, tlsOptions(true, "EXTERNAL")));
        } finally {
            externalOnly.stop();
        }
    }

    @Test
    void aClientThatNeverHandshakesIsClosedByTheConnectorIdleTimeout() throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", tlsPort)) {
            socket.setSoTimeout((int) (10 * HANDSHAKE_IDLE_MILLIS));
            long start = System.nanoTime();
            assertEquals(-1, socket.getInputStream().read(), "the server closes without a word");
            long millis = (System.nanoTime() - start) / 1_000_000;
            org.junit.jupiter.api.Assertions.assertTrue(millis >= HANDSHAKE_IDLE_MILLIS / 2, millis + " ms");
        }
    }

    /**
     * A pause of the server (its selector and its scheduler held up for four idle timeouts, as SIGSTOP or a long GC
     * would) while the client sends heartbeats: once both run again, the late tick gives the selector time to deliver
     * the heartbeats before the silence is judged (a TLS end point reads only when its selector says so), and the
     * connection stays open.
     */
    @Test
    void aPausedServerKeepsATlsConnectionWhoseClientSentHeartbeats() throws Exception {
        Server quick = new Server();
        AmqpConnectionFactory amqp = new AmqpConnectionFactory(new org.eclipse.jetty.server.HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).idleTimeoutMillis(500));
        ServerConnector tls = new ServerConnector(quick, 1, 1, AbstractConnectionFactory.getFactories(sslContext(),
                amqp));
        tls.setHost("127.0.0.1");
        quick.addConnector(tls);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new WhoAmI()), "/whoami");
        quick.setHandler(context);
        quick.start();
        try (Connection connection = client.connect("127.0.0.1", tls.getLocalPort(), tlsOptions(false, "ANONYMOUS"))) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openSender("/whoami");
            sender.send(Message.create("").subject("GET").messageId("before").replyTo(replies.address()));
            assertNotNull(replies.receive(WAIT_SECONDS, TimeUnit.SECONDS), "no first response");
            try (ServerPause pause = new ServerPause().selectors(tls).scheduler(tls)) {
                Thread.sleep(2_000); // protonj2 sends an empty frame at half the 250 ms the server announced
            }
            sender.send(Message.create("").subject("GET").messageId("after").replyTo(replies.address()));
            Delivery after = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(after, "no response after the pause");
            assertEquals("200", after.message().subject());
        } finally {
            quick.stop();
        }
    }

    private static <T extends Throwable> T rootOf(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }
}
