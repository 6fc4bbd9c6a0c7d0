package io.amqpservlet.spring.security;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.config.annotation.authentication.configuration.AuthenticationConfiguration;

import java.util.function.Supplier;

/**
 * The application's authentication manager, found once: its own {@link AuthenticationManager} bean when it has
 * exactly one, else the one Spring Security builds from its user details service or authentication providers
 * ({@link AuthenticationConfiguration}), which its HTTP logins use too.
 */
final class ApplicationAuthenticationManager implements Supplier<AuthenticationManager> {
    private final ObjectProvider<AuthenticationManager> managers;
    private final ObjectProvider<AuthenticationConfiguration> configurations;
    private volatile AuthenticationManager manager;

    ApplicationAuthenticationManager(ObjectProvider<AuthenticationManager> managers,
                                     ObjectProvider<AuthenticationConfiguration> configurations) {
        this.managers = managers;
        this.configurations = configurations;
    }

    @Override
    public AuthenticationManager get() {
        AuthenticationManager m = manager;
        if (m == null) {
            m = managers.getIfUnique();
            if (m == null) {
                try {
                    m = configurations.getObject().getAuthenticationManager();
                } catch (Exception e) {
                    throw new IllegalStateException("Spring Security has no authentication manager for SASL PLAIN", e);
                }
            }
            if (m == null) {
                throw new IllegalStateException("Spring Security has no authentication manager for SASL PLAIN: define"
                        + " a UserDetailsService, an AuthenticationProvider or an AuthenticationManager bean");
            }
            manager = m;
        }
        return m;
    }
}
