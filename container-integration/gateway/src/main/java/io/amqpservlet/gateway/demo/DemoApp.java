package io.amqpservlet.gateway.demo;

import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;

/** Registers the demo servlets in a context: what the gateway serves when it is given no servlets of its own. */
public final class DemoApp {
    private DemoApp() {
    }

    /** Adds {@code /echo} (and below), {@code /status/*}, {@code /throw}, {@code /slow}, {@code /bytes/*}, {@code /whoami}, {@code /orders/*}. */
    public static void install(ServletContextHandler context) {
        context.addServlet(new ServletHolder(new EchoServlet()), "/echo/*"); // also /echo itself
        context.addServlet(new ServletHolder(new StatusServlet()), "/status/*");
        context.addServlet(new ServletHolder(new ThrowServlet()), "/throw");
        ServletHolder slow = new ServletHolder(new SlowServlet());
        slow.setAsyncSupported(true);
        context.addServlet(slow, "/slow");
        context.addServlet(new ServletHolder(new BytesServlet()), "/bytes/*");
        context.addServlet(new ServletHolder(new WhoAmIServlet()), "/whoami");
        context.addServlet(new ServletHolder(new OrdersServlet()), "/orders/*");
    }
}
