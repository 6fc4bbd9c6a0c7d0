package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.server.Request;

/**
 * Turns a connection's SASL identity, or a request message's broker-validated {@code user-id} (docs/attach.md, "Who
 * sent it"), into the Jetty authentication of requests (docs/jetty.md, "The request's user"). jetty-security is an optional dependency (docs/design.md §8): its types appear only where the factory makes
 * one of these (through {@code AmqpAuthenticator}), so the connection and its requests name none of them and need no
 * reflection to run without it.
 */
@FunctionalInterface
public interface SaslUsers {
    /** Without jetty-security there is no authentication to give: servlets see no user. */
    SaslUsers NONE = (identity, external) -> null;

    /**
     * The authentication of every request on a connection whose SASL exchange established {@code identity}, or null
     * when the identity is no user.
     *
     * @param external the identity is the subject of the client's TLS certificate (SASL EXTERNAL)
     */
    Request.AuthenticationState authenticationOf(String identity, boolean external);

    /**
     * The authentication of one request whose message's {@code user-id} (AMQP 1.0 §3.2.4), which the broker
     * validated, is {@code userId}; null when it is no user (empty), or without jetty-security.
     */
    default Request.AuthenticationState authenticationOfUserId(String userId) {
        return null;
    }
}
