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
    /**
     * The last login this authenticator accepted on this thread, for the connection whose SASL exchange it
     * belongs to: the engine calls {@link #authenticate} and then, on the same thread and before it returns from
     * parsing, reports the identity to the connection ({@code EngineHandler.onAuthenticated}), which takes it to
     * keep the user's roles. The {@link PlainAuthenticator} contract returns only a name, so the roles travel
     * beside it; taking clears it, and each login overwrites it, so nothing leaks to another connection.
     */
    private static final ThreadLocal<UserIdentity> LAST_LOGIN = new ThreadLocal<>();

    private final LoginService loginService;

    /**
     * SASL PLAIN checked by {@code loginService}.
     *
     * @param loginService checks each user name and password, and gives the user's roles
     */
    public LoginServicePlainAuthenticator(LoginService loginService) {
        this.loginService = Objects.requireNonNull(loginService, "loginService");
    }

    /**
     * @return the user principal's name, or null when the login service refuses the user or password, when the
     *         password is empty (such realm entries stand for certificate users, see
     *         {@link AmqpConnectionFactory#setExternalLoginService}), or when the client asks to act as someone else
     *         (an authorization identity other than its own is not supported)
     */
    @Override
    public String authenticate(String authorizationId, String username, String password) {
        LAST_LOGIN.remove();
        if (authorizationId != null && !authorizationId.isEmpty() && !authorizationId.equals(username)) {
            return null;
        }
        if (password == null || password.isEmpty()) {
            return null;
        }
        UserIdentity user = loginService.login(username, password, null, null);
        if (user == null) {
            return null;
        }
        LAST_LOGIN.set(user);
        return user.getUserPrincipal().getName();
    }

    /**
     * Takes this thread's last accepted login if it is {@code identity}'s (see {@link #LAST_LOGIN}), else null.
     */
    static UserIdentity takeLogin(String identity) {
        UserIdentity user = LAST_LOGIN.get();
        if (user == null) {
            return null;
        }
        LAST_LOGIN.remove();
        return identity != null && identity.equals(user.getUserPrincipal().getName()) ? user : null;
    }
}
