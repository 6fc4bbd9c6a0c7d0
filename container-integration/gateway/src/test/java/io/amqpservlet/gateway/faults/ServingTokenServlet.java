package io.amqpservlet.gateway.faults;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The work of the attach-mode fault tests, served by gateway processes ({@code --classpath target/test-classes
 * --servlet /work/*=...}): answers after {@code ?ms=N} milliseconds with an {@code x-serving} header unique to this
 * serving (the process and a counter). A client that gets two answers for one request can then tell a request served
 * twice (two tokens) from one answer the broker delivered twice (one token).
 */
public class ServingTokenServlet extends HttpServlet {
    private static final String PROCESS = Long.toString(ProcessHandle.current().pid());
    private final AtomicLong servings = new AtomicLong();

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String ms = request.getParameter("ms");
        if (ms != null) {
            try {
                Thread.sleep(Long.parseLong(ms));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        response.setStatus(200);
        response.setHeader("x-serving", PROCESS + "-" + servings.incrementAndGet());
        response.setContentType("text/plain");
        response.getWriter().print("served");
    }
}
