package io.amqpservlet.gateway.demo;

import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;

/** Registers the demo servlets in a context: what the gateway serves when it is given no servlets of its own. */
public final class DemoApp {
    private DemoApp() {
    }

    /**
     * Adds {@code /echo} (and below), {@code /status/*}, {@code /throw}, {@code /slow}, {@code /bytes/*},
     * {@code /whoami}, {@code /orders/*}, and the management resource RabbitMQ's AMQP 1.0 clients call
     * ({@code /queues/*}, {@code /exchanges/*}, {@code /bindings/*}).
     *
     * @param context the context to add them to
     */
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
        // One servlet (one topology) under the three collections RabbitMQ's management requests address.
        ServletHolder management = new ServletHolder(new ManagementServlet());
        context.getServletHandler().addServletWithMapping(management, "/queues/*");
        context.getServletHandler().addServletWithMapping(management, "/exchanges/*");
        context.getServletHandler().addServletWithMapping(management, "/bindings/*");
    }
}
