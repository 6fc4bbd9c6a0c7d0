package io.amqpservlet.jetty.examples;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.io.IOException;

/**
 * The embedded example of docs/jetty.md for Jetty's ee10 environment, compiled and run by
 * {@code EmbeddedExamplesTest} so the page cannot drift from the API: a Jetty server whose servlet answers AMQP
 * clients on one port and HTTP clients on another.
 */
public final class EmbeddedEe10Example {
    /** The application's servlet: it knows nothing of AMQP. */
    public static final class HelloServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().print("hello from ee10, " + request.getRemoteUser());
        }
    }

    private EmbeddedEe10Example() {
    }

    /** Starts the server: AMQP on {@code amqpPort}, HTTP on {@code httpPort} (0 picks free ports). */
    public static Server start(int amqpPort, int httpPort) throws Exception {
        Server server = new Server();

        ServerConnector amqp = new ServerConnector(server, new AmqpConnectionFactory());
        amqp.setHost("127.0.0.1");
        amqp.setPort(amqpPort);
        server.addConnector(amqp);

        ServerConnector http = new ServerConnector(server);
        http.setHost("127.0.0.1");
        http.setPort(httpPort);
        server.addConnector(http);

        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(HelloServlet.class, "/hello");
        server.setHandler(context);

        server.start();
        return server;
    }
}
