package io.amqpservlet.jetty;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import org.eclipse.jetty.security.LoginService;
import org.eclipse.jetty.security.UserIdentity;

import java.util.Objects;

/**
 * Checks SASL PLAIN credentials (RFC 4616) against a Jetty {@link LoginService}, so AMQP clients log in with the
 * same users as the server's HTTP clients:
 *
 * <pre>{@code
 * AmqpConnectionFactory amqp = new AmqpConnectionFactory();
 * amqp.setPlainAuthenticator(new LoginServicePlainAuthenticator(loginService));
 * }</pre>
 *
 * <p>The login runs on the connection's engine thread while it parses SASL frames, so the login service should
 * answer from memory (as {@code HashLoginService} does) rather than block on a remote directory.
 */
public final class LoginServicePlainAuthenticator implements PlainAuthenticator {
    private final LoginService loginService;

    public LoginServicePlainAuthenticator(LoginService loginService) {
        this.loginService = Objects.requireNonNull(loginService, "loginService");
    }

    /**
     * @return the user principal's name, or null when the login service refuses the user or password, or when the
     *         client asks to act as someone else (an authorization identity other than its own is not supported)
     */
    @Override
    public String authenticate(String authorizationId, String username, String password) {
        if (authorizationId != null && !authorizationId.isEmpty() && !authorizationId.equals(username)) {
            return null;
        }
        UserIdentity user = loginService.login(username, password, null, null);
        return user == null ? null : user.getUserPrincipal().getName();
    }
}
