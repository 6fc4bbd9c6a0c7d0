package io.amqpservlet.micrometer;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.function.ToDoubleFunction;

/**
 * What became of the requests of one factory's connections: the meters a listener and a broker attachment both have,
 * since an attachment's connections count their requests into its factory.
 *
 * <p>Served, refused, released and expired are one meter with an {@code outcome} tag because every request message
 * ends in exactly one of them: their sum is every request message, as a Prometheus {@code sum} expects. A request the
 * request timeout answered was served first, so timeouts (and the late responses that follow them) are meters of
 * their own; as a fifth outcome they would count those requests twice.
 *
 * <p>Every AMQP meter is tagged {@value #CONNECTOR_NAME} with its Jetty connector's name: the key, and the fallback
 * for a connector without a name, that Micrometer's Jetty binders ({@code JettyConnectionMetrics}) use, so that a
 * Prometheus query joins {@code amqp_servlet_*} and {@code jetty_connections_*} on one label.
 */
final class RequestMeters implements MeterBinder {
    /** Micrometer's tag key for a Jetty connector (Prometheus label {@code connector_name}). */
    static final String CONNECTOR_NAME = "connector.name";
    private static final String REQUESTS = "amqp.servlet.requests";
    private static final String REQUESTS_DESCRIPTION = "Request messages by what became of them: served (handed to a"
            + " servlet), refused (answered or rejected without one: no HTTP request), released (stopping, over the"
            + " byte budget, replies backed up), expired (before they could be served)";

    private final AmqpConnectionFactory factory;
    private final Tags tags;

    /**
     * @param factory       the factory whose requests are counted
     * @param connectorName the name of the Jetty connector it serves, or null
     * @param tags          the application's tags for every meter
     */
    RequestMeters(AmqpConnectionFactory factory, String connectorName, Iterable<Tag> tags) {
        this.factory = factory;
        this.tags = Tags.concat(tags, CONNECTOR_NAME, connectorName == null ? "unnamed" : connectorName);
    }

    /** {@return the tags of every meter of this connector: the application's and the connector's name} */
    Tags tags() {
        return tags;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        outcome(registry, "served", AmqpConnectionFactory::getRequestsServed);
        outcome(registry, "refused", AmqpConnectionFactory::getRequestsRefused);
        outcome(registry, "released", AmqpConnectionFactory::getRequestsReleased);
        outcome(registry, "expired", AmqpConnectionFactory::getExpiredRequests);
        FunctionCounter.builder("amqp.servlet.requests.timed.out", factory, AmqpConnectionFactory::getRequestsTimedOut)
                .tags(tags).description("Served requests the request timeout answered 503 for")
                .register(registry);
        FunctionCounter.builder("amqp.servlet.responses.late", factory, AmqpConnectionFactory::getLateResponses)
                .tags(tags).description("Responses a servlet finished after the request timeout had answered them")
                .register(registry);
        Gauge.builder("amqp.servlet.requests.active", factory, AmqpConnectionFactory::getRequestsActive)
                .tags(tags).description("Requests being served now").register(registry);
    }

    private void outcome(MeterRegistry registry, String outcome, ToDoubleFunction<AmqpConnectionFactory> count) {
        FunctionCounter.builder(REQUESTS, factory, count).tags(tags).tag("outcome", outcome)
                .description(REQUESTS_DESCRIPTION).register(registry);
    }
}
