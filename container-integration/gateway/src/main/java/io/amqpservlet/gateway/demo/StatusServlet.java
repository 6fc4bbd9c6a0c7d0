package io.amqpservlet.gateway.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/** {@code /status/{code}}: answers with that status (200 to 599) and a short text body; 400 for another code. */
public final class StatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String info = request.getPathInfo();
        int code;
        try {
            code = Integer.parseInt(info == null ? "" : info.substring(1));
        } catch (NumberFormatException e) {
            code = -1;
        }
        response.setContentType("text/plain;charset=utf-8");
        // 1xx are interim responses in HTTP: a final response with one would be meaningless.
        if (code < 200 || code > 599) {
            response.setStatus(400);
            response.getWriter().print("expected /status/{200..599}\n");
            return;
        }
        response.setStatus(code);
        if (code != 204 && code != 304) {
            response.getWriter().print("status " + code + "\n");
        }
    }
}
