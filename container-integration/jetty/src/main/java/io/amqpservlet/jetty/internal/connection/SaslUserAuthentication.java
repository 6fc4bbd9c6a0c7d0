package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.jetty.AmqpAuthenticator;
import org.eclipse.jetty.server.Request;

/**
 * Turns a connection's SASL identity into the Jetty authentication of its requests (docs/jetty.md, "The request's
 * user"). jetty-security is an optional dependency (docs/design.md §8): its types appear only in
 * {@link AmqpAuthenticator}, which implements this, so the connection names none of them and needs no reflection to
 * run without it.
 */
@FunctionalInterface
public interface SaslUserAuthentication {
    /** Without jetty-security there is no authentication to give: servlets see no user. */
    public SaslUserAuthentication NONE = (identity, externalLoginService) -> null;

    /**
     * The authentication of every request on a connection whose SASL exchange established {@code identity}, or
     * null when the identity is no user.
     *
     * @param externalLoginService for a SASL EXTERNAL identity, the factory's {@code LoginService} that gives it
     *                             roles, else null
     */
    public Request.AuthenticationState of(String identity, Object externalLoginService);

    /**
     * {@link AmqpAuthenticator}'s when jetty-security is there, else {@link #NONE}. Loading
     * {@code AmqpAuthenticator} links its jetty-security superclass, so its absence shows as a linkage error here,
     * once, when the first connection class is initialised.
     */
    public static SaslUserAuthentication available() {
        try {
            return AmqpAuthenticator.SASL_USERS;
        } catch (NoClassDefFoundError absent) {
            return NONE;
        }
    }
}
