package io.amqpservlet.jetty;

import io.amqpservlet.jetty.AmqpSocketClient.Response;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * W3C Trace Context over AMQP: {@code traceparent} and {@code tracestate} application-properties are request
 * headers like any other (docs/mapping.md), so a tracer in the server (the OpenTelemetry Java agent's Jetty and
 * Servlet instrumentation) continues the client's trace, and what the servlet sets comes back as
 * application-properties of the response. {@code TracingIT} in the gateway runs the agent itself.
 */
@Timeout(60)
class AmqpTraceContextTest {
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String TRACESTATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";

    /** Answers with the trace headers it saw, and sets its own traceparent (a child span) as a tracer would. */
    static final class TraceServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.setHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01");
            response.setHeader("tracestate", request.getHeader("tracestate"));
            response.getWriter().print(request.getHeader("traceparent") + "\n" + request.getHeader("tracestate")
                    + "\n" + Collections.list(request.getHeaders("traceparent")).size());
        }
    }

    private Server server;
    private int port;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        ServerConnector amqp = new ServerConnector(server, new AmqpConnectionFactory());
        amqp.setHost("127.0.0.1");
        server.addConnector(amqp);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TraceServlet()), "/traced");
        server.setHandler(context);
        server.start();
        port = amqp.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private static AmqpWriter request(String replyTo, boolean withTraceContext) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("t-1").to("/traced").subject("GET")
                .replyTo(replyTo).endProperties();
        if (withTraceContext) {
            m.startApplicationProperties().put("traceparent", TRACEPARENT).put("tracestate", TRACESTATE)
                    .endApplicationProperties();
        }
        m.end();
        return w;
    }

    @Test
    void traceContextApplicationPropertiesReachTheServletAsHeaders() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request(client.replyAddress(), true));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals(TRACEPARENT + "\n" + TRACESTATE + "\n1", r.bodyText());
        }
    }

    @Test
    void theTraceHeadersTheServletSetsComeBackAsApplicationProperties() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request(client.replyAddress(), true));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01", r.properties.get("traceparent"));
            assertEquals(TRACESTATE, r.properties.get("tracestate"));
        }
    }

    @Test
    void aRequestWithoutTraceContextHasNoTraceHeaders() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request(client.replyAddress(), false));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("null\nnull\n0", r.bodyText());
            assertFalse(r.properties.containsKey("tracestate"), r.properties.toString());
        }
    }
}
