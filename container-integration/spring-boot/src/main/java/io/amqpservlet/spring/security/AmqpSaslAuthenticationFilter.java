package io.amqpservlet.spring.security;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionMetaData;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextRequest;
import org.eclipse.jetty.security.AuthenticationState;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.security.web.authentication.preauth.PreAuthenticatedAuthenticationToken;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.security.Principal;
import java.util.List;

/**
 * Makes an AMQP request's user Spring Security's authentication: the connection authenticated once, with SASL,
 * before its first request, and that identity is the request's only one (docs/spring-boot.md, "Security").
 *
 * <ul>
 *   <li>a SASL PLAIN user that {@link SpringSecurityPlainAuthenticator} let in: the {@link Authentication} its login
 *       produced, authorities and all, so {@code hasRole}, {@code @PreAuthorize} and {@code @AuthenticationPrincipal}
 *       see what they see for that user over HTTP;</li>
 *   <li>any other user the connector gives the request (a SASL EXTERNAL certificate's subject DN, an attachment's
 *       request user): a pre-authenticated authentication of that name, without authorities;</li>
 *   <li>SASL ANONYMOUS: no authentication, so Spring Security treats the request as anonymous.</li>
 * </ul>
 *
 * <p>It sits after Spring Security's authentication filters and replaces what they may have made of the request's
 * headers: an {@code authorization} application-property authenticates nothing over AMQP. Requests that did not
 * arrive over AMQP pass untouched.
 */
public final class AmqpSaslAuthenticationFilter extends OncePerRequestFilter {
    private final SpringSecurityPlainAuthenticator logins;
    private final SecurityContextHolderStrategy contexts = SecurityContextHolder.getContextHolderStrategy();

    /**
     * @param logins the PLAIN logins whose authentications requests take, or null when PLAIN is checked elsewhere
     */
    public AmqpSaslAuthenticationFilter(SpringSecurityPlainAuthenticator logins) {
        this.logins = logins;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        AmqpConnectionMetaData amqp = AmqpRequestMatcher.connectionOf(request);
        if (amqp != null) {
            SecurityContext context = contexts.createEmptyContext();
            Authentication user = authenticationOf(request, amqp);
            if (user != null) {
                context.setAuthentication(user);
            }
            contexts.setContext(context);
        }
        chain.doFilter(request, response);
    }

    private Authentication authenticationOf(HttpServletRequest request, AmqpConnectionMetaData amqp) {
        // The user the connector gives the Jetty request (through AmqpAuthenticator, which Jetty's security handler
        // asks when the user is first wanted): the SASL identity, or an attachment's request user.
        Principal principal = AuthenticationState.getUserPrincipal(ServletContextRequest.getServletContextRequest(
                request));
        if (principal == null) {
            return null;
        }
        String name = principal.getName();
        boolean listener = !(amqp.getConnector() instanceof AmqpBrokerAttachment);
        if (listener && logins != null && name.equals(amqp.getSaslIdentity())) {
            Authentication login = logins.authenticationOf(name);
            if (login != null) {
                return login;
            }
        }
        return new PreAuthenticatedAuthenticationToken(name, "N/A", List.of());
    }
}
