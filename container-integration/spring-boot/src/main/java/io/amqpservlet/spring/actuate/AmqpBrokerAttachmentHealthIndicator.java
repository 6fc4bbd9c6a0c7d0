package io.amqpservlet.spring.actuate;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.spring.AmqpServletConnectors;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.util.function.Supplier;

/**
 * The health of a broker attachment (that of {@code amqp.servlet.attach}, or one of {@code amqp.servlet.attachments}):
 * up while it is attached (connected to a broker, every request link attached),
 * down otherwise: connecting, backing off after a failure, or stopped. The details say where it is: state, broker,
 * failures since last attached, the reconnect delay, connections made, requests in flight and credit.
 */
public final class AmqpBrokerAttachmentHealthIndicator implements HealthIndicator {
    /** The attachment, read at each health check: it exists once Boot made its server. */
    private final Supplier<AmqpBrokerAttachment> attachment;

    /**
     * The health of {@code connectors}' attachment of {@code amqp.servlet.attach}.
     *
     * @param connectors the AMQP connectors of Boot's server
     */
    public AmqpBrokerAttachmentHealthIndicator(AmqpServletConnectors connectors) {
        this.attachment = connectors::getAttachment;
    }

    /**
     * The health of {@code connectors}' attachment {@code name} of {@code amqp.servlet.attachments}.
     *
     * @param connectors the AMQP connectors of Boot's server
     * @param name       the attachment's name there
     */
    public AmqpBrokerAttachmentHealthIndicator(AmqpServletConnectors connectors, String name) {
        this.attachment = () -> connectors.getAttachments().get(name);
    }

    @Override
    public Health health() {
        AmqpBrokerAttachment a = attachment.get();
        if (a == null) {
            return Health.unknown().withDetail("state", "not made yet").build();
        }
        Health.Builder health = a.isAttached() ? Health.up() : Health.down();
        health.withDetail("state", a.getState())
                .withDetail("addresses", a.getAddresses())
                .withDetail("failures", a.getFailures())
                .withDetail("reconnectDelayMillis", a.getReconnectDelay())
                .withDetail("connectCount", a.getConnectCount())
                .withDetail("activeRequests", a.getActiveRequests())
                .withDetail("credit", a.getCredit());
        String lastFailure = a.getLastFailure();
        if (lastFailure != null) {
            health.withDetail("lastFailure", lastFailure);
        }
        String broker = a.getBroker();
        if (broker != null) {
            health.withDetail("broker", broker);
        }
        return health.build();
    }
}
