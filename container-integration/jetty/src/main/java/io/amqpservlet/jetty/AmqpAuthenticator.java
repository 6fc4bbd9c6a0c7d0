package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.exchange.SaslUsers;
import org.eclipse.jetty.security.AuthenticationState;
import org.eclipse.jetty.security.Authenticator;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.LoginService;
import org.eclipse.jetty.security.ServerAuthException;
import org.eclipse.jetty.security.UserIdentity;
import org.eclipse.jetty.security.UserPrincipal;
import org.eclipse.jetty.security.authentication.LoginAuthenticator;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Session;
import org.eclipse.jetty.util.Callback;

import javax.security.auth.Subject;
import java.util.function.Function;

/**
 * A Jetty {@link Authenticator} for a {@code SecurityHandler} (for example a servlet context's
 * {@code ConstraintSecurityHandler}) under which AMQP clients send requests: a request that arrived on an
 * AMQP connection is authenticated as the connection's SASL identity (docs/design.md §3, "user"), so security
 * constraints, {@code getUserPrincipal()} and {@code isUserInRole} work for AMQP requests as for HTTP ones. Other
 * requests go to the wrapped authenticator (BASIC, FORM, ...), if any.
 *
 * <pre>{@code
 * ConstraintSecurityHandler security = new ConstraintSecurityHandler();
 * security.setLoginService(loginService);
 * security.setAuthenticator(new AmqpAuthenticator(new BasicAuthenticator()));
 * amqpFactory.setPlainAuthenticator(new LoginServicePlainAuthenticator(loginService));
 * }</pre>
 *
 * <p>Why an authenticator: Jetty's {@code SecurityHandler} asks its authenticator for every request a constraint
 * covers and replaces any authentication state the request already had, so the connection cannot simply set one.
 * An AMQP connection authenticates once, by SASL, before any request: there is nothing to challenge. A request of
 * a connection without an identity (SASL ANONYMOUS) is unauthenticated; a constraint that requires a user then
 * answers it with 403 (there is no challenge to send an AMQP client). AMQP requests never reach the wrapped
 * authenticator, so an {@code authorization} application-property (a header) authenticates nothing: the SASL
 * identity is the only one an AMQP request has.
 *
 * <p>It is a {@link LoginAuthenticator} (so its {@code SecurityHandler} needs a {@code LoginService}) because
 * Jetty defers authentication of requests no constraint covers only for login authenticators: that is how a
 * servlet outside every constraint still sees {@code getUserPrincipal()}.
 *
 * <p>Roles: a user logged in with SASL PLAIN through {@link LoginServicePlainAuthenticator} has the roles its
 * {@code LoginService} gave at login. Any other identity (SASL EXTERNAL, another {@code PlainAuthenticator}) is a
 * principal without roles.
 */
public class AmqpAuthenticator extends LoginAuthenticator {
    /** The authentication type requests of AMQP connections report ({@code HttpServletRequest.getAuthType()}). */
    public static final String AUTH_TYPE = "AMQP-SASL";
    /**
     * The authentication type of a request whose user is its message's broker-validated {@code user-id}, on a broker
     * attachment that trusts it ({@link AmqpBrokerAttachment#setTrustUserId}).
     */
    public static final String USER_ID_AUTH_TYPE = "AMQP-USER-ID";

    private final Authenticator delegate;

    /** An authenticator for AMQP requests only: requests of other connections are unauthenticated. */
    public AmqpAuthenticator() {
        this(null);
    }

    /** @param delegate authenticates the requests of other connections (HTTP), or null for none */
    public AmqpAuthenticator(Authenticator delegate) {
        this.delegate = delegate;
    }

    /**
     * How a connection's SASL identity becomes the authentication of its requests, for the factory's connections.
     *
     * @param externalLoginService gives a SASL EXTERNAL identity its roles
     *                             ({@link AmqpConnectionFactory#setExternalLoginService}), or null
     */
    static SaslUsers saslUsers(LoginService externalLoginService) {
        return new SaslUsers() {
            @Override
            public Request.AuthenticationState authenticationOf(String identity, boolean external) {
                return AmqpAuthenticator.authenticationOf(identity, external ? externalLoginService : null);
            }

            @Override
            public Request.AuthenticationState authenticationOfUserId(String userId) {
                if (userId == null || userId.isEmpty()) {
                    return null;
                }
                // The broker authenticated the user: like a certificate's subject, a name whose roles, if any, the
                // login service for users authenticated elsewhere gives.
                return new LoginAuthenticator.UserAuthenticationSucceeded(USER_ID_AUTH_TYPE,
                        userOf(userId, externalLoginService));
            }
        };
    }

    /**
     * The authentication of every request on a connection whose SASL exchange established {@code identity}, or null
     * when the identity is no user (absent, or SASL ANONYMOUS's {@code anonymous}). Called on the connection's engine
     * thread right after SASL, where a PLAIN login's roles are still at hand.
     */
    private static AuthenticationState.Succeeded authenticationOf(String identity, LoginService externalLoginService) {
        UserIdentity user = LoginServicePlainAuthenticator.takeLogin(identity);
        if (user == null) {
            if (identity == null || identity.isEmpty() || "anonymous".equals(identity)) {
                return null; // RFC 4505: ANONYMOUS names no user; its trace string is not an identity
            }
            user = userOf(identity, externalLoginService);
        }
        return new LoginAuthenticator.UserAuthenticationSucceeded(AUTH_TYPE, user);
    }

    /** A user authenticated elsewhere, with the roles {@code loginService} gives {@code name} (none without one). */
    private static UserIdentity userOf(String name, LoginService loginService) {
        UserPrincipal principal = new UserPrincipal(name, null);
        Subject subject = new Subject();
        principal.configureSubject(subject);
        subject.setReadOnly();
        UserIdentity user = null;
        if (loginService != null) {
            // Roles from the login service; the principal stays the name given (a certificate's DN, a user-id).
            user = loginService.getUserIdentity(subject, principal, false);
        }
        return user != null ? user : UserIdentity.from(subject, principal);
    }

    @Override
    public void setConfiguration(Configuration configuration) {
        super.setConfiguration(configuration);
        if (delegate != null) {
            delegate.setConfiguration(configuration);
        }
    }

    @Override
    public String getAuthenticationType() {
        return delegate == null ? AUTH_TYPE : delegate.getAuthenticationType();
    }

    @Override
    public Request prepareRequest(Request request, AuthenticationState authenticationState) {
        return delegate == null || isAmqp(request) ? request : delegate.prepareRequest(request, authenticationState);
    }

    @Override
    public Constraint.Authorization getConstraintAuthentication(String pathInContext,
            Constraint.Authorization existing, Function<Boolean, Session> getSession) {
        // The delegate may relax constraints for its own pages (FORM's login page); AMQP requests go through the
        // same paths, so its answer stands for them too.
        return delegate == null ? existing : delegate.getConstraintAuthentication(pathInContext, existing, getSession);
    }

    /**
     * An AMQP request: its connection's authentication (or its own, on an attachment that trusts user-id), or null
     * when it has no user. Any other request: the delegate's answer, or null without one.
     */
    @Override
    public AuthenticationState validateRequest(Request request, Response response, Callback callback)
            throws ServerAuthException {
        if (isAmqp(request)) {
            Request.AuthenticationState state = ((AmqpConnection) request.getConnectionMetaData().getConnection())
                    .authentication(request.getId());
            return state instanceof AuthenticationState succeeded ? succeeded : null;
        }
        return delegate == null ? null : delegate.validateRequest(request, response, callback);
    }

    private static boolean isAmqp(Request request) {
        return request.getConnectionMetaData().getConnection() instanceof AmqpConnection;
    }
}
