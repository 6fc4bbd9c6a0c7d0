package io.amqpservlet.spring.actuate;

import io.amqpservlet.micrometer.AmqpConnectionFactoryMetrics;
import io.amqpservlet.spring.AmqpServletAutoConfiguration;
import io.amqpservlet.spring.AmqpServletConnectors;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * The AMQP connectors' meters (amqp-servlet-micrometer) in Boot's registry, when the application has Micrometer and a
 * registry.
 */
@AutoConfiguration(after = AmqpServletAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({MeterRegistry.class, AmqpConnectionFactoryMetrics.class})
@ConditionalOnBean({MeterRegistry.class, AmqpServletConnectors.class})
public final class AmqpServletMetricsAutoConfiguration {
    @Bean
    AmqpServletMeters amqpServletMeters(MeterRegistry registry, AmqpServletConnectors connectors) {
        return new AmqpServletMeters(registry, connectors);
    }
}
