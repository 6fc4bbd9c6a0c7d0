package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.exchange.ConnectionReusables;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connection lifecycle over a real Jetty server: closing, idle timeouts driven by the scheduler, SASL PLAIN. */
@Timeout(60)
class AmqpConnectionLifecycleTest {

    private static Server start(AmqpConnectionFactory factory) throws Exception {
        Server server = new Server();
        try {
            ServerConnector connector = new ServerConnector(server, 1, 1, factory);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo/*");
            server.setHandler(context);
            server.start();
            return server;
        } catch (Exception | Error e) {
            server.stop();
            throw e;
        }
    }

    private static ServerConnector connector(Server server) {
        return (ServerConnector) server.getConnectors()[0];
    }

    private static void awaitNoConnections(Server server) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!connector(server).getConnectedEndPoints().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the server kept " + connector(server).getConnectedEndPoints());
            }
            Thread.sleep(10);
        }
    }

    private static AmqpWriter get(String path, String replyTo) {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().messageId("m").to(path).subject("GET").replyTo(replyTo)
                .endProperties().end();
        return w;
    }

    @Test
    void connectionLetsGoOfWhatItKeptForReuseOnceIdle() throws Exception {
        Server server = start(new AmqpConnectionFactory());
        try {
            // A short idle timeout: the server's heartbeats then bring the passes that notice the idleness.
            AmqpSocketClient client = AmqpSocketClient.connect(connector(server).getLocalPort(), null,
                    AmqpSocketClient.defaultConfig().idleTimeoutMillis(400));
            for (int i = 0; i < 4; i++) {
                client.send(get("/echo/" + i, client.replyAddress()));
            }
            client.awaitResponses(4);
            AmqpConnection connection = (AmqpConnection) connector(server).getConnectedEndPoints().iterator().next()
                    .getConnection();
            long servedAt = System.nanoTime();
            client.pumpUntil(() -> connection.reusablesKept() > 0, "the exchanges to come back for reuse");
            assertTrue(System.nanoTime() - servedAt < ConnectionReusables.TRIM_AFTER_IDLE_MILLIS * 1_000_000L,
                    "kept for reuse while requests may follow");
            client.pumpUntil(() -> connection.reusablesKept() == 0, "the idle connection to let them go");
            client.send(get("/echo/again", client.replyAddress()));
            client.awaitResponses(5); // and a request after that is served as before
            client.close();
        } finally {
            server.stop();
        }
    }

    @Test
    void clientCloseEndsTheServerSideConnection() throws Exception {
        Server server = start(new AmqpConnectionFactory());
        try {
            AmqpSocketClient client = AmqpSocketClient.connect(connector(server).getLocalPort(), null);
            client.send(get("/echo/x", client.replyAddress()));
            client.awaitResponses(1);
            assertEquals(1, connector(server).getConnectedEndPoints().size());
            client.close();
            awaitNoConnections(server);
        } finally {
            server.stop();
        }
    }

    @Test
    void silentClientIsClosedByTheEngineIdleTimeout() throws Exception {
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).idleTimeoutMillis(400));
        Server server = start(factory);
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector(server).getLocalPort(), null)) {
            Thread.sleep(1_200); // not pumping: no heartbeats reach the server
            client.awaitClosedByServer();
            assertNotNull(client.closedWith, "the server said why it closed");
            assertEquals("amqp:resource-limit-exceeded", client.closedWith.condition().toString());
            awaitNoConnections(server);
        } finally {
            server.stop();
        }
    }

    @Test
    void heartbeatsKeepAQuietButLiveClientConnected() throws Exception {
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).idleTimeoutMillis(400));
        Server server = start(factory);
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector(server).getLocalPort(), null)) {
            long until = System.nanoTime() + 1_200_000_000L;
            client.pumpUntil(() -> System.nanoTime() > until, "time to pass"); // pumping ticks: heartbeats flow
            assertTrue(client.engine().isOpen(), "closed with " + client.closedWith);
            client.send(get("/echo/still-here", client.replyAddress()));
            client.awaitResponses(1);
            assertEquals("200", client.responses.get(0).subject);
        } finally {
            server.stop();
        }
    }

    /**
     * The selector is held up (as after a pause of the process, when the tick and the selector are due at once and
     * the tick may come first) while a live client sends heartbeats: the tick that finds the idle timeout passed
     * reads the socket before it judges the silence, and the connection stays open.
     */
    @Test
    void heartbeatsTheSelectorHasNotReportedYetStillKeepTheClientConnected() throws Exception {
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).idleTimeoutMillis(400));
        Server server = start(factory);
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector(server).getLocalPort(), null)) {
            client.send(get("/echo/before", client.replyAddress()));
            client.awaitResponses(1);
            try (ServerPause pause = new ServerPause().selectors(connector(server))) {
                long until = System.nanoTime() + 1_200_000_000L; // three idle timeouts
                client.pumpUntil(() -> System.nanoTime() > until, "time to pass"); // heartbeats reach the socket
            }
            assertTrue(client.engine().isOpen(), "closed with " + client.closedWith);
            client.send(get("/echo/still-here", client.replyAddress()));
            client.awaitResponses(2);
            assertEquals("200", client.responses.get(1).subject);
        } finally {
            server.stop();
        }
    }

    @Test
    void saslPlainAgainstAJettyLoginService() throws Exception {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("secret"), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig());
        factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        logins.start();
        Server server = start(factory);
        try {
            int port = connector(server).getLocalPort();
            try (AmqpSocketClient client = AmqpSocketClient.connect(port, null,
                    AmqpSocketClient.defaultConfig().saslPlain("alice", "secret"))) {
                client.send(get("/echo/x", client.replyAddress()));
                client.awaitResponses(1);
                assertEquals("200", client.responses.get(0).subject);
            }
            AssertionError refused = assertThrows(AssertionError.class, () -> AmqpSocketClient.connect(port, null,
                    AmqpSocketClient.defaultConfig().saslPlain("alice", "wrong")).close());
            assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
        } finally {
            server.stop();
            logins.stop();
        }
    }

    @Test
    void loginServiceAuthenticatorRefusesWrongPasswordsAndOtherIdentities() throws Exception {
        UserStore users = new UserStore();
        users.addUser("bob", Credential.getCredential("pw"), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        logins.start();
        try {
            LoginServicePlainAuthenticator plain = new LoginServicePlainAuthenticator(logins);
            assertEquals("bob", plain.authenticate("", "bob", "pw"));
            assertEquals("bob", plain.authenticate("bob", "bob", "pw"));
            assertEquals(null, plain.authenticate("", "bob", "nope"));
            assertEquals(null, plain.authenticate("", "carol", "pw"));
            assertEquals(null, plain.authenticate("admin", "bob", "pw"), "acting as another user is not supported");
        } finally {
            logins.stop();
        }
    }
}
