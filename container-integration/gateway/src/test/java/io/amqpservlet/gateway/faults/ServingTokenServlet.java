package io.amqpservlet.gateway.faults;

import io.amqpservlet.jetty.AmqpRequestAttributes;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The work of the attach-mode fault tests, served by gateway processes ({@code --classpath target/test-classes
 * --servlet /work/*=...}): answers after {@code ?ms=N} milliseconds with an {@code x-serving} header unique to this
 * serving (the process and a counter). A client that gets two answers for one request can then tell a request served
 * twice (two tokens) from one answer the broker delivered twice (one token). It also answers with the request's
 * delivery count ({@code x-delivery-count}), the broker's own count of earlier deliveries that failed.
 *
 * <p>With the system property {@value #STARTED_PROPERTY} set to a file, it appends each request's message-id and the
 * time ({@link System#currentTimeMillis()}) to it, a line each, before it starts the work: what a gateway was serving
 * when it was stopped, read while it is stopped, and when each serving started.
 */
public class ServingTokenServlet extends HttpServlet {
    /** The system property that names the file of the message-ids this process started serving. */
    public static final String STARTED_PROPERTY = "faults.started";
    private static final String PROCESS = Long.toString(ProcessHandle.current().pid());
    private final AtomicLong servings = new AtomicLong();
    private final String started = System.getProperty(STARTED_PROPERTY);

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (started != null) {
            synchronized (this) {
                Files.writeString(Path.of(started), request.getAttribute(AmqpRequestAttributes.MESSAGE_ID) + " "
                        + System.currentTimeMillis() + "\n",
                        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        }
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
        response.setHeader("x-delivery-count", String.valueOf(request.getAttribute(
                AmqpRequestAttributes.DELIVERY_COUNT)));
        response.setContentType("text/plain");
        response.getWriter().print("served");
    }
}
