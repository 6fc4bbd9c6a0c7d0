package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.exceptions.ClientConnectionSecuritySaslException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.logging.JettyLevel;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limit of failed SASL logins per source address ({@link AmqpServerBudget#setMaxFailedLoginsPerAddress}, docs/
 * jetty.md, "Limits per source address"), with a real Jetty server checking PLAIN against a {@code HashLoginService}:
 * protonj2-client 1.1.0 from 127.0.0.1 guesses until its address has no failed login left, after which even the
 * right password is refused with outcome {@code sys-temp} before it is checked; a peer bound to 127.0.0.2 logs in
 * meanwhile; and once the allowance refills, the right password from 127.0.0.1 works again.
 */
@Timeout(60)
class FailedLoginsPerAddressTest {
    private static final String LISTENER = "io.amqpservlet.jetty.internal.exchange.ListenerHandler";
    private static final int MAX_FAILED = 3;
    /** One failed login comes back every 3 s: far longer than a login on loopback, short for the test to wait. */
    private static final long WINDOW_MILLIS = 9_000;

    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;
    private Client client;

    private void start() throws Exception {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("right"), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        factory = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig());
        factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        factory.getServerBudget().setMaxFailedLoginsPerAddress(MAX_FAILED);
        factory.getServerBudget().setFailedLoginsWindowMillis(WINDOW_MILLIS);
        server = new Server();
        server.addBean(logins);
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo/*");
        server.setHandler(context);
        server.start();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (server != null) {
                server.stop();
            }
        }
    }

    /** protonj2 from 127.0.0.1 logs in as alice with {@code password}: null when it did, else the SASL failure. */
    private ClientConnectionSecuritySaslException protonLogin(String password) throws Exception {
        ConnectionOptions options = new ConnectionOptions().user("alice").password(password);
        options.saslOptions().addAllowedMechanism("PLAIN");
        try (Connection c = client.connect("127.0.0.1", connector.getLocalPort(), options)) {
            c.openFuture().get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return assertInstanceOf(ClientConnectionSecuritySaslException.class, e.getCause(), e.toString());
        }
    }

    /** A peer bound to {@code localAddress} logs in as alice with {@code password}: the sasl-outcome code. */
    private int rawLogin(String localAddress, String password) throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(localAddress, connector.getLocalPort())) {
            peer.writeHeader(ProtocolHeader.SASL);
            assertEquals(ProtocolHeader.SASL, peer.readHeader());
            SaslFrames out = new SaslFrames();
            byte[] response = ("\0alice\0" + password).getBytes(StandardCharsets.UTF_8);
            out.init().clear().mechanism(Symbol.of("PLAIN")).initialResponse().set(response, 0, response.length);
            peer.writeSasl(out.init());
            return peer.readUntil(SaslOutcome.class).code();
        }
    }

    @Test
    void anAddressOutOfFailedLoginsIsRefusedWithSysTempWhileAnotherLogsInUntilItsAllowanceRefills() throws Exception {
        start();
        AmqpServerBudget budget = factory.getServerBudget();
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, LISTENER)) {
            for (int i = 0; i < MAX_FAILED; i++) {
                ClientConnectionSecuritySaslException failed = protonLogin("guess-" + i);
                assertTrue(failed != null && !failed.isSysTempFailure(), "guess " + i + ": outcome auth: " + failed);
            }
            assertEquals(0, budget.getRefusedByMaxFailedLoginsPerAddress());
            assertEquals(1, budget.getFailedLoginAddresses());

            // Out of failed logins: the right password is refused too, before it is checked, so a guess learns nothing.
            ClientConnectionSecuritySaslException refused = protonLogin("right");
            assertTrue(refused != null && refused.isSysTempFailure(), "outcome sys-temp: " + refused);
            assertEquals(1, budget.getRefusedByMaxFailedLoginsPerAddress());
            assertEquals(1, factory.getConnectionsRefusedPerAddress());
            // Its connection ends as a failed login's does: amqp:unauthorized-access, counted with the failures'.
            Eventually.until(() -> factory.getConnectionErrorsSent().getOrDefault("amqp:unauthorized-access", 0L)
                    == MAX_FAILED + 1, () -> "errors sent: " + factory.getConnectionErrorsSent());
            String line = log.await(l -> l.contains("AMQP login from 127.0.0.1:") && l.contains("refused"),
                    "the refusal's line");
            assertTrue(line.contains("INFO") && line.contains("127.0.0.1 has no failed login left: 3 per 9 s, the "
                    + "limit per source address (maxFailedLoginsPerAddress)") && line.contains("(PLAIN)"), line);

            // Another source address is not affected: its guess fails as usual, the right password logs in.
            assertEquals(SaslOutcome.AUTH, rawLogin("127.0.0.2", "guess"));
            assertEquals(SaslOutcome.OK, rawLogin("127.0.0.2", "right"));
            assertEquals(SaslOutcome.OK, rawLogin("127.0.0.2", "right"), "a login that succeeds costs nothing");

            // One failed login comes back every WINDOW / MAX: then the right password from 127.0.0.1 works again.
            Eventually.within(2 * WINDOW_MILLIS / 1000, () -> protonLogin("right") == null,
                    () -> "127.0.0.1 still refused; refusals " + budget.getRefusedByMaxFailedLoginsPerAddress());
            assertEquals(budget.getRefusedByMaxFailedLoginsPerAddress(), factory.getConnectionsRefusedPerAddress());
            assertEquals(budget.getRefusedByMaxFailedLoginsPerAddress(), budget.getRefusedConnections());
        }
    }

    @Test
    void zeroTurnsTheLimitOffAndTheSettingsAreChecked() throws Exception {
        start();
        AmqpServerBudget budget = factory.getServerBudget();
        assertEquals(AmqpServerBudget.DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS, new AmqpConnectionFactory()
                .getServerBudget().getMaxFailedLoginsPerAddress());
        budget.setMaxFailedLoginsPerAddress(0);
        for (int i = 0; i < 2 * MAX_FAILED; i++) {
            assertEquals(SaslOutcome.AUTH, rawLogin("127.0.0.1", "guess-" + i));
        }
        assertEquals(SaslOutcome.OK, rawLogin("127.0.0.1", "right"));
        assertEquals(0, budget.getRefusedByMaxFailedLoginsPerAddress());
        assertEquals(0, budget.getFailedLoginAddresses());
        assertThrows(IllegalArgumentException.class, () -> budget.setMaxFailedLoginsPerAddress(-1));
        assertThrows(IllegalArgumentException.class, () -> budget.setFailedLoginsWindowMillis(0));
        assertThrows(IllegalArgumentException.class,
                () -> budget.setFailedLoginsWindowMillis(AmqpServerBudget.MAX_FAILED_LOGINS_WINDOW_MILLIS + 1));
        assertFalse(budget.toString().isEmpty());
    }
}
