package io.amqpservlet.jetty;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real Jetty server in attach mode for the tests: an {@link AmqpBrokerAttachment} consuming request queues of a
 * broker, and {@code /orders/*} answered by {@link Work}, which echoes and counts.
 */
final class AttachedGateway implements AutoCloseable {
    final Work work = new Work();
    final Server server;
    final AmqpBrokerAttachment attachment;

    /**
     * Echoes the body and method, says which delivery of the message this was, counts calls and the most requests
     * inside it at once, and waits {@code x-sleep-ms} before answering when the request says so.
     */
    static final class Work extends HttpServlet {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        private final java.util.List<String> deliveryCounts = new java.util.concurrent.CopyOnWriteArrayList<>();

        /** The delivery-count attribute of each request served, in order. */
        java.util.List<String> deliveryCounts() {
            return java.util.List.copyOf(deliveryCounts);
        }

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            calls.incrementAndGet();
            int now = inside.incrementAndGet();
            mostInside.accumulateAndGet(now, Math::max);
            boolean left = false;
            try {
                String sleep = request.getHeader("x-sleep-ms");
                if (sleep != null) {
                    Thread.sleep(Long.parseLong(sleep));
                }
                byte[] body = request.getInputStream().readAllBytes();
                response.setStatus(200);
                response.setHeader("x-echo-method", request.getMethod());
                response.setHeader("x-echo-path", request.getRequestURI());
                String deliveryCount = String.valueOf(request.getAttribute(AmqpRequestAttributes.DELIVERY_COUNT));
                deliveryCounts.add(deliveryCount);
                response.setHeader("x-delivery-count", deliveryCount);
                if (request.getUserPrincipal() != null) {
                    response.setHeader("x-user", request.getUserPrincipal().getName());
                }
                response.setContentType(request.getContentType() == null ? "application/octet-stream"
                        : request.getContentType());
                response.setContentLength(body.length);
                response.setBufferSize(Math.max(body.length, 1024));
                // Writing the whole declared content length completes the response: the broker can accept it, the
                // request be settled and the next one granted and dispatched before this thread leaves service().
                // The servlet's work is done here, so it stops counting itself first.
                inside.decrementAndGet();
                left = true;
                response.getOutputStream().write(body);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            } finally {
                if (!left) {
                    inside.decrementAndGet();
                }
            }
        }
    }

    AttachedGateway(String uri, int credit) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(64, 4);
        threads.setName("attach-test");
        server = new Server(threads);
        server.setStopTimeout(10_000); // a graceful stop: requests in flight finish and are settled
        attachment = new AmqpBrokerAttachment(server);
        attachment.setUri(uri);
        attachment.setCredit(credit);
        attachment.setReconnectDelay(50, 500);
        server.addConnector(attachment);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(new ServletHolder(work), "/orders/*");
        context.addServlet(new ServletHolder(work), "/queue/*");
        server.setHandler(context);
    }

    AttachedGateway start() throws Exception {
        server.start();
        return this;
    }

    /** Waits until the attachment is attached to a broker. */
    AttachedGateway awaitAttached(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (!attachment.isAttached()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not attached within " + millis + " ms: " + attachment);
            }
            Thread.sleep(10);
        }
        return this;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
