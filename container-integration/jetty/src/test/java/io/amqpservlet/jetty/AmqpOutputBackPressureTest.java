package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.exchange.StreamedResponse;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that grants plenty of credit and session window, asks for a 100 MiB response, then stops reading its
 * socket: the server encodes only {@code maxPendingOutputBytes} ahead of the socket (plus a frame and the streamed
 * response's own small backlog), however much credit and window it was given, so such a client costs a bounded
 * amount of memory rather than whatever its window allows (docs/jetty.md, "Streaming").
 */
@Timeout(60)
class AmqpOutputBackPressureTest {
    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private void start() throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).maxMessageSizeBytes(256L * 1024 * 1024));
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Bytes()), "/bytes/*");
        server.setHandler(context);
        server.start();
    }

    private AmqpConnection serverConnection() {
        for (EndPoint endPoint : connector.getConnectedEndPoints()) {
            if (endPoint.getConnection() instanceof AmqpConnection amqp) {
                return amqp;
            }
        }
        throw new AssertionError("no AMQP connection on the server");
    }

    @Test
    void aClientThatStopsReadingCostsTheOutputBoundNotItsWindow() throws Exception {
        start();
        // 1,000 credit on the reply link and the engine's default window (2,048 frames of 64 KiB = 128 MiB): the
        // client allows the whole response to be sent at once.
        EngineConfig client = AmqpSocketClient.defaultConfig().maxMessageSizeBytes(256L * 1024 * 1024);
        try (AmqpSocketClient c = AmqpSocketClient.connect(connector.getLocalPort(), null, client, 1_000)) {
            AmqpWriter request = new AmqpWriter();
            new MessageWriter().wrap(request).startProperties().messageId("big").to("/bytes/104857600")
                    .subject("GET").replyTo(c.replyAddress()).endProperties().end();
            c.send(request);
            AmqpConnection connection = serverConnection();
            c.pumpUntil(() -> connection.getActiveRequests() > 0, "the request to reach the servlet");
            // From here on the client reads nothing: the socket's buffers fill, then the server's writes wait.
            long deadline = System.nanoTime() + 3_000_000_000L;
            long bound = factory.getMaxPendingOutputBytes() + 64 * 1024 // one frame past the bound
                    + 2 * StreamedResponse.UNSENT_LIMIT_BYTES;       // the response's backlog in its link
            while (System.nanoTime() < deadline) {
                long held = connection.getMaxBufferedOutputBytes();
                assertTrue(held <= bound, "the server holds " + held + " bytes for a client that reads nothing; "
                        + "bound " + bound);
                Thread.sleep(50);
            }
            assertTrue(connection.getMaxBufferedOutputBytes() > factory.getMaxPendingOutputBytes() / 2,
                    "the bound was never approached (" + connection.getMaxBufferedOutputBytes()
                            + " bytes): the test did not stop the client reading");
            assertTrue(factory.getServerBudget().getBufferedBytes() <= bound,
                    "server-wide: " + factory.getServerBudget().getBufferedBytes());
        }
    }
}
