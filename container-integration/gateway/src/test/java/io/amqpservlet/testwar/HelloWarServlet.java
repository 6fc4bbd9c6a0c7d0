package io.amqpservlet.testwar;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;

/**
 * The one servlet of the war that {@code JettyHomeModuleIT} deploys into a real jetty-home: it says which path it
 * served, whether the request came over AMQP (the connector's fixed {@code io.amqpservlet.delivery-count}
 * attribute is set on every AMQP request and never on HTTP ones) and who the user is.
 */
public class HelloWarServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean amqp = request.getAttribute("io.amqpservlet.delivery-count") != null;
        Principal user = request.getUserPrincipal();
        response.setContentType("text/plain; charset=utf-8");
        response.getOutputStream().write(("hello from war " + request.getRequestURI() + " amqp=" + amqp
                + " user=" + (user == null ? "-" : user.getName())).getBytes(StandardCharsets.UTF_8));
    }
}
