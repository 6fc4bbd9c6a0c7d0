package io.amqpservlet.spring.actuate;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.spring.AmqpServletConnectors;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of the broker attachment: up while it is attached (connected to a broker, every request link attached),
 * down otherwise: connecting, backing off after a failure, or stopped. The details say where it is: state, broker,
 * failures since last attached, the reconnect delay, connections made, requests in flight and credit.
 */
public final class AmqpBrokerAttachmentHealthIndicator implements HealthIndicator {
    private final AmqpServletConnectors connectors;

    /**
     * The health of {@code connectors}' attachment.
     *
     * @param connectors the AMQP connectors of Boot's server
     */
    public AmqpBrokerAttachmentHealthIndicator(AmqpServletConnectors connectors) {
        this.connectors = connectors;
    }

    @Override
    public Health health() {
        AmqpBrokerAttachment a = connectors.getAttachment();
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
