package io.amqpservlet.spring.actuate;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.micrometer.AmqpBrokerAttachmentMetrics;
import io.amqpservlet.micrometer.AmqpConnectionFactoryMetrics;
import io.amqpservlet.spring.AmqpServletConnectors;
import io.micrometer.core.instrument.MeterRegistry;
import org.eclipse.jetty.server.ServerConnector;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationListener;

/**
 * The AMQP connectors' meters in Boot's registry, bound by amqp-servlet-micrometer under the names the gateway
 * serves too ({@code amqp.servlet.*}, docs/jetty.md "Micrometer meters"): the listener's
 * ({@link AmqpConnectionFactoryMetrics}) and each broker attachment's ({@link AmqpBrokerAttachmentMetrics}), each
 * tagged {@code connector.name} with its connector's name ({@code amqp}, {@code amqp-attach}, and
 * {@code amqp-attach-<name>} for each of {@code amqp.servlet.attachments}), as the {@code jetty.*} meters Boot binds
 * for every connector are. One tag tells them apart, so every attachment's meters have the same tag keys, which a
 * Prometheus registry requires of meters of one name.
 *
 * <p>Bound once the application has started, as Boot binds its Jetty meters: the connectors exist from then on.
 */
public final class AmqpServletMeters implements ApplicationListener<ApplicationStartedEvent> {
    private final MeterRegistry registry;
    private final AmqpServletConnectors connectors;

    /**
     * Meters of {@code connectors} in {@code registry}.
     *
     * @param registry Boot's meter registry
     * @param connectors the AMQP connectors of Boot's server
     */
    public AmqpServletMeters(MeterRegistry registry, AmqpServletConnectors connectors) {
        this.registry = registry;
        this.connectors = connectors;
    }

    @Override
    public void onApplicationEvent(ApplicationStartedEvent event) {
        ServerConnector listener = connectors.getListener();
        if (listener != null) {
            new AmqpConnectionFactoryMetrics(connectors.getListenerFactory(), listener.getName()).bindTo(registry);
        }
        AmqpBrokerAttachment attachment = connectors.getAttachment();
        if (attachment != null) {
            new AmqpBrokerAttachmentMetrics(attachment).bindTo(registry);
        }
        for (AmqpBrokerAttachment named : connectors.getAttachments().values()) {
            new AmqpBrokerAttachmentMetrics(named).bindTo(registry);
        }
    }
}
