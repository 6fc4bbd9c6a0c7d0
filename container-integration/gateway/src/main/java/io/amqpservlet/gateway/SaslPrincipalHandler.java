package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpConnectionMetaData;
import org.eclipse.jetty.security.AuthenticationState;
import org.eclipse.jetty.security.UserIdentity;
import org.eclipse.jetty.security.UserPrincipal;
import org.eclipse.jetty.security.authentication.LoginAuthenticator;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import javax.security.auth.Subject;

/**
 * Makes the SASL identity of an AMQP connection the principal of its requests (docs/design.md §3, "user"), so
 * {@code HttpServletRequest.getUserPrincipal()} names the user who logged in with SASL PLAIN. An anonymous
 * connection, and every request that did not come over AMQP, is left as it is. A security handler further in (in
 * a war) still decides for itself. A request that already has an authentication (set by the connector itself, once
 * it maps the SASL identity) keeps it.
 */
final class SaslPrincipalHandler extends Handler.Wrapper {
    /** The authentication type the principal is reported with ({@code getAuthType()}). */
    static final String AUTH_TYPE = "SASL";

    SaslPrincipalHandler(Handler handler) {
        super(handler);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (request.getConnectionMetaData() instanceof AmqpConnectionMetaData amqp
                && AuthenticationState.getAuthenticationState(request) == null) {
            String identity = amqp.getSaslIdentity();
            if (identity != null && !"anonymous".equals(identity)) {
                UserIdentity user = UserIdentity.from(new Subject(), new UserPrincipal(identity, null));
                AuthenticationState.setAuthenticationState(request,
                        new LoginAuthenticator.UserAuthenticationSucceeded(AUTH_TYPE, user));
            }
        }
        return super.handle(request, response, callback);
    }
}
