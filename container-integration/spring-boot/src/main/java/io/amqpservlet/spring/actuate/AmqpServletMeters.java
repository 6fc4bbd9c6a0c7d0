package io.amqpservlet.spring.actuate;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.spring.AmqpServletConnectors;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationListener;

import java.util.function.ToDoubleFunction;

/**
 * The AMQP connector's counters as meters in Boot's registry, beside the {@code jetty.*} meters Boot binds for every
 * connector (bytes and messages of AMQP connections among them): what became of requests, the connections, and the
 * byte budget, each tagged with its connector ({@code amqp} for the listener, {@code amqp-attach} for the broker
 * attachment). They read the factory's own counts, the ones its JMX attributes show; docs/spring-boot.md lists them.
 *
 * <p>Bound once the application has started, as Boot binds its Jetty meters: the connectors exist from then on.
 */
public final class AmqpServletMeters implements ApplicationListener<ApplicationStartedEvent> {
    private final MeterRegistry registry;
    private final AmqpServletConnectors connectors;

    /**
     * Meters of {@code connectors}' factories in {@code registry}.
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
        for (AmqpServletConnectors.Named named : connectors.getFactories()) {
            bind(Tags.of("connector", named.connector()), named.factory());
        }
    }

    private void bind(Tags tags, AmqpConnectionFactory f) {
        requests(tags, "served", "Requests handed to a controller", AmqpConnectionFactory::getRequestsServed, f);
        requests(tags, "refused", "Request messages answered or rejected without a controller (no HTTP request)",
                AmqpConnectionFactory::getRequestsRefused, f);
        requests(tags, "released", "Requests released unserved (stopping, over budget, replies backed up)",
                AmqpConnectionFactory::getRequestsReleased, f);
        requests(tags, "expired", "Requests that had expired before they could be served",
                AmqpConnectionFactory::getExpiredRequests, f);
        requests(tags, "timed-out", "Requests answered 503 by the request timeout",
                AmqpConnectionFactory::getRequestsTimedOut, f);
        FunctionCounter.builder("amqp.servlet.responses.late", f, AmqpConnectionFactory::getLateResponses)
                .description("Responses finished after their request had timed out").tags(tags).register(registry);
        Gauge.builder("amqp.servlet.connections.open", f, AmqpConnectionFactory::getConnectionsOpen)
                .description("AMQP connections open now").tags(tags).register(registry);
        Gauge.builder("amqp.servlet.connections.handshaking", f, AmqpConnectionFactory::getConnectionsHandshaking)
                .description("Connections between accept and the client's open now").tags(tags).register(registry);
        FunctionCounter.builder("amqp.servlet.connections.refused", f, AmqpConnectionFactory::getConnectionsRefused)
                .description("Connections refused by the connection or handshake limit").tags(tags)
                .register(registry);
        budget(tags, "amqp.servlet.budget.buffered", "Bytes buffered now (request bodies unread, responses unwritten)",
                AmqpConnectionFactory::getBufferedBytes, f);
        budget(tags, "amqp.servlet.budget.free", "Bytes the byte budget has left",
                AmqpConnectionFactory::getFreeBytes, f);
        budget(tags, "amqp.servlet.budget.max", "The bytes all connections together may buffer",
                AmqpConnectionFactory::getMaxBufferedBytes, f);
    }

    private void requests(Tags tags, String outcome, String description,
                          ToDoubleFunction<AmqpConnectionFactory> count, AmqpConnectionFactory f) {
        FunctionCounter.builder("amqp.servlet.requests", f, count).description(description)
                .tags(tags.and("outcome", outcome)).register(registry);
    }

    private void budget(Tags tags, String name, String description, ToDoubleFunction<AmqpConnectionFactory> bytes,
                        AmqpConnectionFactory f) {
        Gauge.builder(name, f, bytes).description(description).baseUnit("bytes").tags(tags).register(registry);
    }
}
