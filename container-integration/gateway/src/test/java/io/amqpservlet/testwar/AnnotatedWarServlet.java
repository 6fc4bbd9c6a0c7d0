package io.amqpservlet.testwar;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The one servlet of a war without web.xml that {@code JettyHomeModuleIT} deploys: declared by its annotation alone,
 * so only a server with annotation scanning ({@code ee11-annotations}) serves it.
 */
@WebServlet("/annotated/*")
public class AnnotatedWarServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain; charset=utf-8");
        response.getOutputStream().write(("annotated " + request.getRequestURI()).getBytes(StandardCharsets.UTF_8));
    }
}
