package io.amqpservlet.spring.security;

import io.amqpservlet.jetty.AmqpConnectionMetaData;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Matches the requests that arrived over AMQP (on the listener or through a broker attachment), by their Jetty
 * connection, whatever wraps the servlet request.
 */
public final class AmqpRequestMatcher implements RequestMatcher {
    @Override
    public boolean matches(HttpServletRequest request) {
        return connectionOf(request) != null;
    }

    /**
     * The AMQP connection a request arrived on.
     *
     * @param request a servlet request of Boot's Jetty, wrapped or not
     * @return its connection's metadata, or null when the request did not arrive over AMQP
     */
    static AmqpConnectionMetaData connectionOf(HttpServletRequest request) {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(request);
        return jetty != null && jetty.getConnectionMetaData() instanceof AmqpConnectionMetaData amqp ? amqp : null;
    }
}
