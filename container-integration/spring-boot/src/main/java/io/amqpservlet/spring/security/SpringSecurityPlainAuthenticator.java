package io.amqpservlet.spring.security;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * SASL PLAIN (RFC 4616) checked by Spring Security: the client's user name and password go to the application's
 * {@link AuthenticationManager} as a username/password authentication, the same one its HTTP Basic or form login
 * uses, so AMQP clients log in with the application's users.
 *
 * <p>The {@link Authentication} a login produced, with its authorities, is kept by user name: it becomes Spring
 * Security's authentication of every request of that user's connections ({@link AmqpSaslAuthenticationFilter}).
 * A later login of the same user replaces it. The login runs on the connection's thread before its open, which
 * Jetty's pool runs, so a password encoder that takes its time (BCrypt) holds that connection only.
 */
public final class SpringSecurityPlainAuthenticator implements PlainAuthenticator {
    private static final Logger LOG = LoggerFactory.getLogger(SpringSecurityPlainAuthenticator.class);

    private final Supplier<AuthenticationManager> manager;
    private final Map<String, Authentication> logins = new ConcurrentHashMap<>();

    /**
     * PLAIN checked by the authentication manager {@code manager} gives, asked for it at the first login (the
     * application's security configuration is complete by then).
     *
     * @param manager gives the application's authentication manager
     */
    public SpringSecurityPlainAuthenticator(Supplier<AuthenticationManager> manager) {
        this.manager = manager;
    }

    /**
     * @return the authenticated user's name, or null when the authentication manager refuses the credentials or the
     *         client asks to act as another user (an authorization identity other than its own is not supported)
     */
    @Override
    public String authenticate(String authorizationId, String username, String password) {
        if (authorizationId != null && !authorizationId.isEmpty() && !authorizationId.equals(username)) {
            return null;
        }
        AuthenticationManager authenticationManager;
        try {
            authenticationManager = manager.get();
        } catch (IllegalStateException none) {
            LOG.warn("SASL PLAIN refused for {}: {}", username, none.getMessage());
            return null;
        }
        Authentication result;
        try {
            result = authenticationManager.authenticate(UsernamePasswordAuthenticationToken.unauthenticated(username,
                    password));
        } catch (AuthenticationException refused) {
            LOG.debug("SASL PLAIN refused for {}: {}", username, refused.getMessage());
            return null;
        }
        if (result == null || !result.isAuthenticated()) {
            return null;
        }
        logins.put(result.getName(), result);
        return result.getName();
    }

    /**
     * The authentication the last accepted login of {@code user} produced.
     *
     * @param user the SASL identity, as {@link #authenticate} returned it
     * @return its authentication, or null when no PLAIN login of that user was accepted
     */
    public Authentication authenticationOf(String user) {
        return user == null ? null : logins.get(user);
    }
}
