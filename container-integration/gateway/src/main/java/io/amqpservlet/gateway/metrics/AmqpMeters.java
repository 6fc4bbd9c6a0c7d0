package io.amqpservlet.gateway.metrics;

import io.amqpservlet.gateway.stats.AmqpCounter;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The AMQP meters: the connector library's counters (its factories' getters, which are also their JMX attributes),
 * read when the registry is scraped, so serving a request costs nothing for them. Each AMQP port's factory gets
 * every {@link AmqpCounter} tagged {@code connector} = its port's name ({@code amqp}, {@code amqps}); each broker
 * attachment the same for its factory, tagged {@code connector} = its name ({@code attach:} and its queues), plus
 * its state ({@code amqp.attach.state}, 1 for the state it is in, tagged {@code state}), whether it is attached, the
 * connections it made (reconnections included) and its failures since it was last attached.
 */
final class AmqpMeters implements MeterBinder {
    /** The states an attachment reports ({@link AmqpBrokerAttachment#getState()}). */
    private static final List<String> ATTACHMENT_STATES = List.of("STOPPED", "CONNECTING", "ATTACHED", "BACKING_OFF");

    private final Map<String, AmqpConnectionFactory> listeners;
    private final List<AmqpBrokerAttachment> attachments;

    AmqpMeters(Map<String, AmqpConnectionFactory> listeners, List<AmqpBrokerAttachment> attachments) {
        this.listeners = new LinkedHashMap<>(listeners);
        this.attachments = List.copyOf(attachments);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Map.Entry<String, AmqpConnectionFactory> e : listeners.entrySet()) {
            bindFactory(registry, e.getValue(), Tags.of("connector", e.getKey()));
        }
        for (AmqpBrokerAttachment a : attachments) {
            Tags tags = Tags.of("connector", a.getName());
            bindFactory(registry, a.getConnectionFactory(), tags);
            Gauge.builder("amqp.attach.attached", a, attachment -> attachment.isAttached() ? 1 : 0).tags(tags)
                    .description("Whether the attachment is connected with every request link attached")
                    .strongReference(true).register(registry);
            for (String state : ATTACHMENT_STATES) {
                Gauge.builder("amqp.attach.state", a, attachment -> state.equals(attachment.getState()) ? 1 : 0)
                        .tags(tags.and("state", state))
                        .description("1 for the state the attachment is in, 0 for the others")
                        .strongReference(true).register(registry);
            }
            FunctionCounter.builder("amqp.attach.connects", a, AmqpBrokerAttachment::getConnectCount).tags(tags)
                    .description("Connections made to a broker, reconnections included").register(registry);
            Gauge.builder("amqp.attach.failures", a, AmqpBrokerAttachment::getFailures).tags(tags)
                    .description("Failed or lost connections since the attachment was last attached")
                    .strongReference(true).register(registry);
        }
    }

    private static void bindFactory(MeterRegistry registry, AmqpConnectionFactory factory, Tags tags) {
        for (AmqpCounter c : AmqpCounter.values()) {
            if (c.kind() == AmqpCounter.Kind.GAUGE) {
                Gauge.builder(c.meterName(), factory, c::read).tags(tags).baseUnit(c.baseUnit())
                        .description(c.description()).strongReference(true).register(registry);
            } else {
                FunctionCounter.builder(c.meterName(), factory, c::read).tags(tags).baseUnit(c.baseUnit())
                        .description(c.description()).register(registry);
            }
        }
    }
}
