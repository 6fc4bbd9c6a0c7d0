package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.jetty.internal.log.PeerLog;
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
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator reads in the log about AMQP clients, from a real Jetty server and real sockets (docs/jetty.md,
 * "Logs"): connections open and close at DEBUG with the peer's address, container-id and product; a failed login
 * and a refused connection at INFO with the peer's address; an error a peer caused as one line without a stack
 * trace; and each kind of these INFO lines within its allowance, however many peers cause them.
 */
@Timeout(60)
class AmqpPeerLogTest {
    /** The loggers of the lines under test, named before their classes load so they get the capture's level. */
    private static final String[] LOGGERS = {
        "io.amqpservlet.jetty.internal.exchange.ListenerHandler",
        "io.amqpservlet.jetty.internal.exchange.ServingHandler",
        "io.amqpservlet.jetty.internal.connection.EnginePass",
    };
    /** Ours and those Jetty would report a failed response with. */
    private static final String[] WITH_JETTYS = {
        LOGGERS[0], LOGGERS[1], LOGGERS[2], "org.eclipse.jetty.ee11.servlet.ServletChannel",
        "org.eclipse.jetty.server.Response", "org.eclipse.jetty.server.internal.HttpChannelState",
    };

    private Server server;
    private AmqpConnectionFactory factory;
    private int port;

    private void start(int maxConnections) throws Exception {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("right"), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).saslRequired(false));
        factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        factory.setMaxConnections(maxConnections);
        // Floods of failed logins from one address are what the log allowance is tested with here; the limit of
        // failed logins per address, which would refuse them first, has FailedLoginsPerAddressTest.
        factory.getServerBudget().setMaxFailedLoginsPerAddress(0);
        server = new Server();
        server.addBean(logins);
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo");
        context.addServlet(new ServletHolder(new TestServlets.Bytes()), "/bytes/*");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private static AmqpWriter request(String method, String to, String replyTo, int bodyBytes) {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().messageId("m").to(to).subject(method).replyTo(replyTo)
                .endProperties().data(new byte[bodyBytes], 0, bodyBytes).end();
        return w;
    }

    /** Logs in as alice with {@code password}; the server answers sasl-outcome {@code auth} when it is wrong. */
    private void login(String password) throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.SASL);
            peer.readHeader();
            SaslFrames out = new SaslFrames();
            byte[] response = ("\0alice\0" + password).getBytes(StandardCharsets.UTF_8);
            out.init().clear().mechanism(Symbol.of("PLAIN")).initialResponse().set(response, 0, response.length);
            peer.writeSasl(out.init());
            assertEquals(SaslOutcome.AUTH, peer.readUntil(SaslOutcome.class).code());
            peer.awaitEof(5_000);
        }
    }

    @Test
    void connectionsOpenAndCloseAtDebugWithTheirAddressContainerIdAndProduct() throws Exception {
        start(100);
        try (LogCapture log = LogCapture.of(JettyLevel.DEBUG, LOGGERS)) {
            int clientPort;
            try (AmqpSocketClient client = AmqpSocketClient.connect(port, "/echo", AmqpSocketClient.defaultConfig()
                    .containerId("orders-client-7").connectionProperties(Map.of("product", "OrdersApp")))) {
                clientPort = client.localPort();
                client.send(request("POST", "/echo", client.replyAddress(), 10));
                client.awaitResponses(1);
            }
            String open = log.await("AMQP connection from 127.0.0.1:" + clientPort + " open");
            assertTrue(open.contains("DEBUG") && open.contains("container-id orders-client-7")
                    && open.contains("product OrdersApp") && open.contains("user anonymous"), open);
            String closed = log.await("AMQP connection from 127.0.0.1:" + clientPort + " closed");
            assertTrue(closed.contains("DEBUG") && closed.contains("container-id orders-client-7")
                    && closed.contains("requests: 1"), closed);
        }
    }

    @Test
    void aFailedLoginIsOneInfoLineWithThePeersAddressAndAFloodOfThemIsLimited() throws Exception {
        start(100);
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, LOGGERS)) {
            long start = System.nanoTime();
            login("wrong");
            String line = log.await("AMQP login from 127.0.0.1:");
            assertTrue(line.contains("INFO") && line.contains("failed: invalid credentials for alice (PLAIN)"), line);
            for (int i = 0; i < 2 * PeerLog.LINES_PER_WINDOW; i++) {
                login("wrong-" + i);
            }
            long windows = 1 + (System.nanoTime() - start) / 1_000_000 / PeerLog.WINDOW_MILLIS;
            List<String> lines = log.linesWith("AMQP login from");
            // 21 logins take well under one window; on a machine slow enough to take longer, each window it spanned
            // has its own allowance.
            assertTrue(lines.size() >= PeerLog.LINES_PER_WINDOW
                    && lines.size() <= Math.min(windows, 3) * PeerLog.LINES_PER_WINDOW, "one window's allowance, "
                    + "whatever the number of tries (" + windows + " window(s)): " + lines);
            if (windows == 1) {
                assertEquals(PeerLog.LINES_PER_WINDOW, lines.size(), lines.toString());
            }
            assertEquals(List.of(), log.linesWith("\tat "), "no stack trace");
        }
    }

    @Test
    void aConnectionOverTheLimitIsRefusedWithAnInfoLineNamingThePeer() throws Exception {
        start(1);
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, LOGGERS);
             AmqpSocketClient first = AmqpSocketClient.connect(port, "/echo");
             RawAmqpPeer second = new RawAmqpPeer(port)) {
            assertTrue(first.engine().isOpen());
            second.writeHeader(ProtocolHeader.AMQP);
            second.readHeader();
            second.writeFrame(0, new Performatives().open().clear()
                    .containerId("second"));
            Close close = second.readUntil(Close.class);
            assertTrue(close.error().is(ErrorConditions.RESOURCE_LIMIT_EXCEEDED), close.toString());
            String line = log.await("refused: the server has 1 AMQP connections open, its limit");
            assertTrue(line.contains("INFO") && line.contains("AMQP connection from 127.0.0.1:"), line);
        }
    }

    @Test
    void aResponseLargerThanTheClientTakesIsOneLineWithoutAStackTraceWhetherWholeOrStreamed() throws Exception {
        start(100);
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, WITH_JETTYS);
             AmqpSocketClient client = AmqpSocketClient.connect(port, "/echo",
                     AmqpSocketClient.defaultConfig().maxMessageSizeBytes(1_000))) {
            // Whole: the echo's 5,000 bytes; streamed: 200,000 bytes in 64 KiB writes.
            for (String target : new String[] {"/echo", "/bytes/200000"}) {
                AmqpSocketClient.Outcome outcome = client.send(request("/echo".equals(target) ? "POST" : "GET", target,
                        client.replyAddress(), "/echo".equals(target) ? 5_000 : 0));
                client.pumpUntil(() -> outcome.settled, "the request to " + target + " settled");
                assertTrue(outcome.toString().startsWith("modified"), outcome.toString());
                String line = log.await(target + " not sent");
                assertTrue(line.contains("INFO") && line.contains("exceeds the peer's max-message-size 1000")
                        && line.contains("AMQP response to 127.0.0.1:"), line);
            }
            // Jetty's own line would come as its request ends, after ours: wait for both requests to end.
            Eventually.until(() -> factory.getRequestsActive() == 0,
                    () -> factory.getRequestsActive() + " requests still active");
            assertEquals(List.of(), log.linesWith("\tat "), "no stack trace: " + log.lines());
            assertEquals(List.of(), log.linesWith("WARN"), "no warning of Jetty's per response: " + log.lines());
        }
    }

    @Test
    void aConnectionClosedForAProtocolErrorOfThePeerIsOneInfoLine() throws Exception {
        start(100);
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, LOGGERS);
             RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.AMQP);
            peer.readHeader();
            peer.writeFrame(0, new Performatives().open().clear()
                    .containerId("broken"));
            // A frame whose body is no performative: the connection ends with amqp:decode-error.
            peer.write(new byte[] {0, 0, 0, 12, 2, 0, 0, 0, 0x00, 0x53, 0x7f, 0x45});
            Close close = peer.readUntil(Close.class);
            String line = log.await("AMQP connection from 127.0.0.1:");
            assertTrue(line.contains("INFO") && line.contains("closed: " + close.error().condition()), line + " "
                    + close);
            assertEquals(List.of(), log.linesWith("\tat "), "no stack trace");
        }
    }
}
