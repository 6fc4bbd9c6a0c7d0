package io.amqpservlet.spring.security;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.spring.AmqpServletAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.authentication.configuration.AuthenticationConfiguration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;

/**
 * Spring Security for AMQP requests: SASL PLAIN checked by the application's authentication manager, and each AMQP
 * request's SASL user as Spring Security's authentication in every security filter chain (a
 * {@code Customizer<HttpSecurity>} bean, which Spring Security applies to each {@code HttpSecurity} it makes).
 * CSRF protection is off for AMQP requests: it guards against a browser sending a user's cookies to another site,
 * and an AMQP client has neither, its credentials belong to its connection.
 */
@AutoConfiguration(after = AmqpServletAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({AuthenticationManager.class, HttpSecurity.class, AmqpConnectionFactory.class})
public final class AmqpServletSecurityAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(PlainAuthenticator.class)
    SpringSecurityPlainAuthenticator amqpServletPlainAuthenticator(ObjectProvider<AuthenticationManager> managers,
                                                                   ObjectProvider<AuthenticationConfiguration> configurations) {
        return new SpringSecurityPlainAuthenticator(new ApplicationAuthenticationManager(managers, configurations));
    }

    @Bean
    Customizer<HttpSecurity> amqpServletHttpSecurity(ObjectProvider<SpringSecurityPlainAuthenticator> logins) {
        return http -> {
            try {
                http.addFilterBefore(new AmqpSaslAuthenticationFilter(logins.getIfUnique()),
                        AnonymousAuthenticationFilter.class);
                http.csrf(csrf -> csrf.ignoringRequestMatchers(new AmqpRequestMatcher()));
            } catch (Exception e) {
                throw new IllegalStateException("cannot configure Spring Security for AMQP requests", e);
            }
        };
    }
}
