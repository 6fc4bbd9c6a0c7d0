package io.amqpservlet.gateway.demo;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code /slow?ms=N}: Servlet async; the response (200, "slept N ms") completes N milliseconds later from a timer
 * thread, N capped at 30,000, without holding a container thread meanwhile.
 */
public final class SlowServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** The longest delay served, so a request cannot park a response for long. */
    public static final long MAX_DELAY_MILLIS = 30_000;

    private transient ScheduledExecutorService timer;

    @Override
    public void init() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "demo-slow-timer");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long ms;
        try {
            ms = Long.parseLong(request.getParameter("ms") == null ? "1000" : request.getParameter("ms"));
        } catch (NumberFormatException e) {
            response.sendError(400, "ms must be a number of milliseconds");
            return;
        }
        long delay = Math.max(0, Math.min(ms, MAX_DELAY_MILLIS));
        AsyncContext async = request.startAsync();
        async.setTimeout(MAX_DELAY_MILLIS + 10_000);
        timer.schedule(() -> {
            try {
                HttpServletResponse r = (HttpServletResponse) async.getResponse();
                r.setStatus(200);
                r.setContentType("text/plain;charset=utf-8");
                r.getWriter().print("slept " + delay + " ms\n");
            } catch (IOException | RuntimeException e) {
                log("/slow could not answer", e);
            } finally {
                async.complete();
            }
        }, delay, TimeUnit.MILLISECONDS);
    }
}
