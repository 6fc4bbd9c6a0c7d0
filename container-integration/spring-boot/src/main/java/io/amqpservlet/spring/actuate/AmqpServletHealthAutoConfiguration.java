package io.amqpservlet.spring.actuate;

import io.amqpservlet.spring.AmqpServletAutoConfiguration;
import io.amqpservlet.spring.AmqpServletConnectors;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The broker attachment's health indicator, {@code amqpAttachment} under {@code /actuator/health}, when the
 * application has Boot's health support and {@code amqp.servlet.attach.uri} is set.
 */
@AutoConfiguration(after = AmqpServletAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(AmqpServletConnectors.class)
@ConditionalOnProperty("amqp.servlet.attach.uri")
public final class AmqpServletHealthAutoConfiguration {
    @Bean
    AmqpBrokerAttachmentHealthIndicator amqpAttachmentHealthIndicator(AmqpServletConnectors connectors) {
        return new AmqpBrokerAttachmentHealthIndicator(connectors);
    }
}
