package io.amqpservlet.spring;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jetty.JettyServerCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConfigurationCondition;

/**
 * Adds the AMQP listener ({@code amqp.servlet.port}) and broker attachments ({@code amqp.servlet.attach.uri},
 * {@code amqp.servlet.attachments.<name>.uri}) to Boot's embedded Jetty, so the application's controllers, filters
 * and security serve AMQP request/response clients as they serve HTTP ones (docs/spring-boot.md). Without any of
 * these properties it adds nothing.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Server.class, JettyServerCustomizer.class, AmqpConnectionFactory.class})
@Conditional(AmqpServletAutoConfiguration.PortOrAttachment.class)
@EnableConfigurationProperties(AmqpServletProperties.class)
public final class AmqpServletAutoConfiguration {
    /**
     * The connectors, a {@link JettyServerCustomizer} that Boot's Jetty web server factory applies when it makes the
     * server. The PLAIN authenticator is looked up then, not before, so that Spring Security's beans are not made
     * early for it.
     */
    @Bean
    AmqpServletConnectors amqpServletConnectors(AmqpServletProperties properties, ObjectProvider<SslBundles> sslBundles,
                                                ObjectProvider<PlainAuthenticator> plainAuthenticator) {
        return new AmqpServletConnectors(properties,
                name -> AmqpServletConnectors.bundlesOf(sslBundles.getIfAvailable()).apply(name),
                (name, action) -> {
                    SslBundles bundles = sslBundles.getIfAvailable();
                    if (bundles != null) {
                        bundles.addBundleUpdateHandler(name, action); // Boot reloads it with reload-on-update
                    }
                },
                plainAuthenticator::getIfUnique);
    }

    @Bean
    @ConditionalOnProperty(name = "server.shutdown", havingValue = "graceful", matchIfMissing = true)
    AmqpGracefulShutdown amqpGracefulShutdown(AmqpServletConnectors connectors) {
        return new AmqpGracefulShutdown(connectors);
    }

    @Bean
    AmqpListenerPort amqpListenerPort(AmqpServletConnectors connectors) {
        return new AmqpListenerPort(connectors);
    }

    /**
     * {@code amqp.servlet.port}, {@code amqp.servlet.attach.uri} or an {@code amqp.servlet.attachments} entry is set.
     */
    static final class PortOrAttachment extends AnyNestedCondition {
        PortOrAttachment() {
            super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty("amqp.servlet.port")
        static final class Port {
        }

        @ConditionalOnProperty("amqp.servlet.attach.uri")
        static final class Attachment {
        }

        @Conditional(NamedAttachmentsCondition.class)
        static final class NamedAttachments {
        }
    }
}
