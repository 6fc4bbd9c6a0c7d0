package io.amqpservlet.spring.actuate;

import io.amqpservlet.spring.AmqpServletAutoConfiguration;
import io.amqpservlet.spring.AmqpServletConnectors;
import io.amqpservlet.spring.NamedAttachmentsCondition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The broker attachments' health, when the application has Boot's health support: {@code amqpAttachment} under
 * {@code /actuator/health} for {@code amqp.servlet.attach.uri}, and {@code amqpAttachments}, a composite with one
 * component per name, for {@code amqp.servlet.attachments} (as Boot reports several data sources under {@code db}).
 */
@AutoConfiguration(after = AmqpServletAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(AmqpServletConnectors.class)
public final class AmqpServletHealthAutoConfiguration {
    @Bean
    @ConditionalOnProperty("amqp.servlet.attach.uri")
    AmqpBrokerAttachmentHealthIndicator amqpAttachmentHealthIndicator(AmqpServletConnectors connectors) {
        return new AmqpBrokerAttachmentHealthIndicator(connectors);
    }

    @Bean
    @Conditional(NamedAttachmentsCondition.class)
    CompositeHealthContributor amqpAttachmentsHealthContributor(AmqpServletConnectors connectors) {
        Map<String, HealthContributor> byName = new LinkedHashMap<>();
        for (String name : connectors.getAttachmentNames()) {
            byName.put(name, new AmqpBrokerAttachmentHealthIndicator(connectors, name));
        }
        return CompositeHealthContributor.fromMap(byName);
    }
}
