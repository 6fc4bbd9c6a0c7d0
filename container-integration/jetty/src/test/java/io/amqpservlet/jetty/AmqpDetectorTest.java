package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.ConnectionFactory.Detecting.Detection;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.1 and AMQP on one port: a {@link ServerConnector} whose first factory is Jetty's
 * {@link DetectorConnectionFactory} over {@link AmqpConnectionFactory}, then HTTP/1.1; and what an HTTP client
 * gets from an AMQP-only port.
 */
@Timeout(60)
class AmqpDetectorTest {
    /** AMQP 1.0 §5.3.1: the SASL protocol header. */
    private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};

    private Server server;
    private int sharedPort;
    private int amqpOnlyPort;

    /** Says which protocol carried the request. */
    static final class ProtocolServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().print("served " + request.getRequestURI() + " amqp="
                    + (request.getAttribute(AmqpRequestAttributes.DELIVERY_COUNT) != null));
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        try {
            ServerConnector shared = new ServerConnector(server,
                    new DetectorConnectionFactory(new AmqpConnectionFactory()), new HttpConnectionFactory());
            shared.setHost("127.0.0.1");
            server.addConnector(shared);
            ServerConnector amqpOnly = new ServerConnector(server, new AmqpConnectionFactory());
            amqpOnly.setHost("127.0.0.1");
            server.addConnector(amqpOnly);
            ServletContextHandler context = new ServletContextHandler();
            context.addServlet(new ServletHolder(new ProtocolServlet()), "/*");
            server.setHandler(context);
            server.start();
            sharedPort = shared.getLocalPort();
            amqpOnlyPort = amqpOnly.getLocalPort();
        } catch (Exception | Error e) {
            server.stop();
            throw e;
        }
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private static Detection detect(String ascii, int... extra) {
        byte[] text = ascii.getBytes(StandardCharsets.US_ASCII);
        byte[] bytes = Arrays.copyOf(text, text.length + extra.length);
        for (int i = 0; i < extra.length; i++) {
            bytes[text.length + i] = (byte) extra[i];
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        Detection d = new AmqpConnectionFactory().detect(buffer);
        assertEquals(0, buffer.position(), "detect must not consume");
        return d;
    }

    @Test
    void detectionNeedsAllFourBytesOfAmqp() {
        assertEquals(Detection.NEED_MORE_BYTES, detect(""));
        assertEquals(Detection.NEED_MORE_BYTES, detect("A"));
        assertEquals(Detection.NEED_MORE_BYTES, detect("AMQ"));
        assertEquals(Detection.RECOGNIZED, detect("AMQP"));
        assertEquals(Detection.RECOGNIZED, detect("AMQP", 3, 1, 0, 0));
        assertEquals(Detection.RECOGNIZED, detect("AMQP", 9, 9, 9, 9)); // the engine answers a bad version (§2.2)
        assertEquals(Detection.NOT_RECOGNIZED, detect("G"));
        assertEquals(Detection.NOT_RECOGNIZED, detect("GET / HTTP/1.1\r\n"));
        assertEquals(Detection.NOT_RECOGNIZED, detect("AMX"));
        assertEquals(Detection.NOT_RECOGNIZED, detect("AMQp"));
        assertEquals(Detection.NOT_RECOGNIZED, detect("PRI * HTTP/2.0")); // h2c prior knowledge
    }

    @Test
    void oneConnectorServesTheSameServletOverAmqpAndHttp() throws Exception {
        long deadline = AmqpRequestClient.now() + 20_000;
        try (AmqpRequestClient amqp = AmqpRequestClient.connect("127.0.0.1", sharedPort, "/x",
                new EngineConfig().saslAnonymous(), deadline)) {
            for (int i = 0; i < 3; i++) { // the upgraded connection goes on serving after its first request
                AmqpResponse r = amqp.exchange("GET", "/amqp/" + i, Map.of(), null, null, deadline);
                assertEquals(200, r.status());
                assertEquals("served /amqp/" + i + " amqp=true", r.bodyText());
            }
        }
        HttpResponse<String> h = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + sharedPort + "/http")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, h.statusCode());
        assertEquals("served /http amqp=false", h.body());
    }

    @Test
    void aHeaderArrivingInPiecesIsDetectedAndHandedToTheEngine() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", sharedPort)) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(SASL_HEADER, 0, 2); // "AM": the detector needs more
            out.flush();
            Thread.sleep(200);
            out.write(SASL_HEADER, 2, 3); // "QP" and the protocol id: recognized, these bytes go to the engine
            out.flush();
            Thread.sleep(200);
            out.write(SASL_HEADER, 5, 3);
            out.flush();
            byte[] answer = socket.getInputStream().readNBytes(8);
            assertArrayEquals(SASL_HEADER, answer); // the engine saw the whole header, detector bytes included
        }
    }

    @Test
    void anHttpRequestToAnAmqpOnlyPortGetsTheAmqpHeaderAndAClosedConnection() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", amqpOnlyPort)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] answer = readUntilClosed(socket.getInputStream());
            // AMQP 1.0 §2.2: a header the server does not support is answered with one it does, then it closes.
            assertTrue(answer.length >= 8, "answered " + answer.length + " bytes");
            assertArrayEquals(SASL_HEADER, Arrays.copyOf(answer, 8));
            assertEquals(8, answer.length, "nothing but the header: " + new String(answer, StandardCharsets.ISO_8859_1));
        }
    }

    /** Everything the server sends until it closes; fails if it keeps the connection open for 10 s. */
    private static byte[] readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[256];
        try {
            for (int n; (n = in.read(buffer)) != -1; ) {
                all.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server did not close the connection; it sent " + all.size() + " bytes");
        }
        return all.toByteArray();
    }
}
