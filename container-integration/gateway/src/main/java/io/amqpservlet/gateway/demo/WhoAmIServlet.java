package io.amqpservlet.gateway.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.security.Principal;

/** {@code /whoami}: the request's principal name (the SASL identity over AMQP), or {@code anonymous}. */
public final class WhoAmIServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Principal p = request.getUserPrincipal();
        response.setContentType("text/plain;charset=utf-8");
        response.getWriter().print(p == null ? "anonymous" : p.getName());
    }
}
