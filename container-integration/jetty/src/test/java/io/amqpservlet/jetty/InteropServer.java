package io.amqpservlet.jetty;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A real Jetty server with the AMQP connector on an ephemeral loopback port, for the tests that drive it with AMQP
 * clients from other projects: {@code /echo/*} echoes, {@code /whole} echoes the body in one write with its
 * length declared, {@code /boom} and the demo app's {@code /throw} throw, the demo app's {@code /bytes/{n}} writes
 * n patterned bytes (byte i is {@code i mod 251}) flushing every 64 KiB, {@code /barrier} holds requests until
 * {@code barrierParties} of them are inside it at once, {@code /typed/queue/{name}} answers with a typed body.
 */
final class InteropServer implements AutoCloseable {
    final TestServlets.Echo echo = new TestServlets.Echo();
    final TestServlets.Barrier barrier;
    private final Server server;
    private final int port;

    private InteropServer(int barrierParties) throws Exception {
        barrier = new TestServlets.Barrier(barrierParties);
        // The barrier holds barrierParties pool threads at once; leave room for the selector, acceptor and engine.
        QueuedThreadPool threads = new QueuedThreadPool(barrierParties + 64, 8);
        threads.setName("amqp-interop");
        server = new Server(threads);
        try {
            ServerConnector connector = new ServerConnector(server, 1, 1, new AmqpConnectionFactory());
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.setContextPath("/");
            context.addServlet(new ServletHolder(echo), "/echo/*");
            context.addServlet(new ServletHolder(new WholeBodyEcho()), "/whole");
            context.addServlet(new ServletHolder(new TestServlets.Throwing()), "/boom");
            context.addServlet(new ServletHolder(new TestServlets.Throwing()), "/throw");
            context.addServlet(new ServletHolder(new TestServlets.Bytes()), "/bytes/*");
            context.addServlet(new ServletHolder(barrier), "/barrier");
            context.addServlet(new ServletHolder(new TestServlets.TypedQueue()), "/typed/*");
            server.setHandler(context);
            server.start();
            port = connector.getLocalPort();
        } catch (Exception | Error e) {
            server.stop();
            throw e;
        }
    }

    /**
     * 200 with the request body, buffered whole (a response buffer as large as the body) so that Jetty hands it to
     * the connector in one last write, which becomes one data section. Jetty writes a body larger than the response
     * buffer (32 KiB by default) in buffer-size pieces, one data section each, and Qpid JMS keeps only the last
     * data section of a message (a 40,000-byte echo reads as its last 7,232 bytes).
     */
    static final class WholeBodyEcho extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws java.io.IOException {
            byte[] body = request.getInputStream().readAllBytes();
            response.setStatus(200);
            response.setContentType("application/octet-stream");
            response.setBufferSize(body.length);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }

    /** Starts a server whose barrier servlet waits for {@code barrierParties} requests. */
    static InteropServer start(int barrierParties) throws Exception {
        return new InteropServer(barrierParties);
    }

    /** The body {@code /bytes/{n}} answers with: byte i is {@code i mod 251}. */
    static byte[] patternedBytes(int n) {
        byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = (byte) (i % 251);
        }
        return bytes;
    }

    int port() {
        return port;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
