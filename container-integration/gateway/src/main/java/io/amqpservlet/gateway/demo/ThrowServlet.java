package io.amqpservlet.gateway.demo;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /throw}: the servlet throws, so the container answers 500 (an ordinary response over AMQP). */
public final class ThrowServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException {
        throw new ServletException("thrown on purpose by /throw");
    }
}
