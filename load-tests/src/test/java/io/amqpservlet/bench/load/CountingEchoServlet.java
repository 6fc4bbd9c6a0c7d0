package io.amqpservlet.bench.load;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/** Echoes the body, as the demo's {@code /echo}, and counts the requests it served, for checking the generator. */
public final class CountingEchoServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final AtomicLong SERVED = new AtomicLong();

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        SERVED.incrementAndGet();
        response.setStatus(200);
        response.setContentType("application/octet-stream");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
