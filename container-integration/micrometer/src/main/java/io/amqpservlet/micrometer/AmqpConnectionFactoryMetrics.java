package io.amqpservlet.micrometer;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.AmqpServerBudget;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The meters of an AMQP listener: its {@link AmqpConnectionFactory}'s counters, each tagged {@code connector.name}
 * with the name of the Jetty connector the factory serves, as Micrometer's Jetty binders tag theirs.
 * <ul>
 *   <li>{@code amqp.servlet.requests} (function counter; {@code outcome} {@code served}, {@code refused},
 *       {@code released}, {@code expired}), {@code amqp.servlet.requests.timed.out},
 *       {@code amqp.servlet.responses.late} (function counters) and {@code amqp.servlet.requests.active} (gauge):
 *       what became of its requests;</li>
 *   <li>{@code amqp.servlet.connections} (gauge; {@code state} {@code open} or {@code handshaking}),
 *       {@code amqp.servlet.connections.refused} and {@code amqp.servlet.handshakes.evicted} (function counters;
 *       {@code limit}, the setting that refused or evicted: {@code maxConnections}, {@code maxHandshakingConnections},
 *       {@code maxConnectionsPerAddress}, {@code maxHandshakesPerAddress}, and for refusals
 *       {@code maxFailedLoginsPerAddress}, whose connection ends at its login) and {@code amqp.servlet.source.addresses}
 *       (gauge): its connections;</li>
 *   <li>{@code amqp.servlet.errors.sent} (function counter; {@code scope} {@code connection}, {@code session} or
 *       {@code link}, and {@code condition}, such as {@code amqp:decode-error}): the AMQP errors it sent its clients
 *       in a close, an end or a detach; each scope and condition is a meter from the first such error on;</li>
 *   <li>{@code amqp.servlet.budget.used}, {@code .free}, {@code .max} and {@code .peak} (gauges, bytes): its byte
 *       budget.</li>
 * </ul>
 * The meters read the factory's getters, the values its JMX attributes show, when the registry is read: serving a
 * request costs nothing for them. docs/jetty.md ("Micrometer meters") lists them with their Prometheus names.
 *
 * <pre>{@code
 * new AmqpConnectionFactoryMetrics(factory, connector.getName()).bindTo(registry);
 * }</pre>
 */
public final class AmqpConnectionFactoryMetrics implements MeterBinder {
    private static final String CONNECTIONS_REFUSED_DESCRIPTION = "Connections refused, by the limit that refused"
            + " them: closed at their open (a connection limit), before any frame (a handshake limit) or at their"
            + " login (failed logins per address)";
    private static final String ERRORS_SENT_DESCRIPTION = "AMQP errors sent to clients, by where (a connection's"
            + " close, a session's end, a link's detach or refusal) and condition";
    private static final String HANDSHAKES_EVICTED_DESCRIPTION = "Stalled handshakes ended to make room for a new"
            + " connection, by the handshake limit that was full";
    private static final String ADDRESS_SHARE_DESCRIPTION = "Times one source address's share of the byte budget "
            + "held its connection back: a request released, a partial frame waited, a streamed request released";

    private final AmqpConnectionFactory factory;
    private final String connectorName;
    private final Iterable<Tag> tags;

    /**
     * The meters of {@code factory}.
     *
     * @param factory       the listener's connection factory
     * @param connectorName the name of the Jetty connector it serves (its {@code getName()}); {@code unnamed} when
     *                      null, as Micrometer's Jetty binders say
     */
    public AmqpConnectionFactoryMetrics(AmqpConnectionFactory factory, String connectorName) {
        this(factory, connectorName, Tags.empty());
    }

    /**
     * The meters of {@code factory}, with tags of the application's besides.
     *
     * @param factory       the listener's connection factory
     * @param connectorName the name of the Jetty connector it serves (its {@code getName()}); {@code unnamed} when
     *                      null, as Micrometer's Jetty binders say
     * @param tags          tags every meter carries besides {@code connector.name}
     */
    public AmqpConnectionFactoryMetrics(AmqpConnectionFactory factory, String connectorName, Iterable<Tag> tags) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.connectorName = connectorName;
        this.tags = Objects.requireNonNull(tags, "tags");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        RequestMeters requests = new RequestMeters(factory, connectorName, tags);
        requests.bindTo(registry);
        Tags connector = requests.tags();
        AmqpServerBudget budget = factory.getServerBudget();

        // Open and handshaking never overlap (a connection leaves its handshake at the client's open), so their sum
        // is every AMQP connection accepted and not yet closed.
        Gauge.builder("amqp.servlet.connections", factory, AmqpConnectionFactory::getConnectionsOpen)
                .tags(connector).tag("state", "open")
                .description("AMQP connections now: open (past the client's open) or handshaking (before it)")
                .register(registry);
        Gauge.builder("amqp.servlet.connections", factory, AmqpConnectionFactory::getConnectionsHandshaking)
                .tags(connector).tag("state", "handshaking")
                .description("AMQP connections now: open (past the client's open) or handshaking (before it)")
                .register(registry);
        // By limit, named as the setting is (and as the refusal's close description and log line name it): their
        // sum is the factory's connectionsRefused, the per-address three its connectionsRefusedPerAddress.
        for (String limit : budget.getRefusedByLimit().keySet()) {
            FunctionCounter.builder("amqp.servlet.connections.refused", budget, b -> b.getRefusedBy(limit))
                    .tags(connector).tag("limit", limit).description(CONNECTIONS_REFUSED_DESCRIPTION)
                    .register(registry);
        }
        FunctionCounter.builder("amqp.servlet.handshakes.evicted", budget,
                        AmqpServerBudget::getEvictedByMaxHandshakingConnections)
                .tags(connector).tag("limit", "maxHandshakingConnections")
                .description(HANDSHAKES_EVICTED_DESCRIPTION).register(registry);
        FunctionCounter.builder("amqp.servlet.handshakes.evicted", budget,
                        AmqpServerBudget::getEvictedByMaxHandshakesPerAddress)
                .tags(connector).tag("limit", "maxHandshakesPerAddress")
                .description(HANDSHAKES_EVICTED_DESCRIPTION).register(registry);
        Map<String, ToDoubleFunction<AmqpServerBudget>> shares = Map.of(
                "bytes", AmqpServerBudget::getRequestsReleasedPerAddress,
                "partialFrames", AmqpServerBudget::getPartialFramesHeldPerAddress,
                "streams", AmqpServerBudget::getStreamsRefusedPerAddress);
        shares.forEach((reservation, count) -> FunctionCounter.builder("amqp.servlet.budget.address.share.reached",
                        budget, count)
                .tags(connector).tag("reservation", reservation).description(ADDRESS_SHARE_DESCRIPTION)
                .register(registry));
        // Made as each scope and condition is first sent, not one for each of AMQP's conditions up front.
        factory.watchErrorsSent((scope, condition) -> FunctionCounter.builder("amqp.servlet.errors.sent", factory,
                        f -> f.getErrorsSent(scope, condition))
                .tags(connector).tag("scope", scope).tag("condition", condition)
                .description(ERRORS_SENT_DESCRIPTION).register(registry));
        Gauge.builder("amqp.servlet.source.addresses", factory, AmqpConnectionFactory::getSourceAddresses)
                .tags(connector).description("Source addresses with a connection now (IPv4 addresses, IPv6 /64s)")
                .register(registry);

        bytes(registry, connector, "amqp.servlet.budget.used", factory, AmqpConnectionFactory::getBufferedBytes,
                "Bytes buffered now: request bodies unread, responses unwritten, partial frames, requests "
                        + "being served, unsettled deliveries");
        bytes(registry, connector, "amqp.servlet.budget.free", factory, AmqpConnectionFactory::getFreeBytes,
                "Bytes the byte budget has left before new requests are released");
        bytes(registry, connector, "amqp.servlet.budget.max", factory, AmqpConnectionFactory::getMaxBufferedBytes,
                "The byte budget: the bytes all connections together may buffer");
        bytes(registry, connector, "amqp.servlet.budget.peak", budget, AmqpServerBudget::getMaxBufferedBytesSeen,
                "The most bytes buffered at once since the start");
        bytes(registry, connector, "amqp.servlet.budget.partial.frames", budget,
                AmqpServerBudget::getPartialFrameBytesReserved,
                "Bytes partial frames admitted to grow reserve now, of half the byte budget");
        bytes(registry, connector, "amqp.servlet.budget.stream.windows", budget,
                AmqpServerBudget::getStreamWindowBytesReserved,
                "Bytes streamed requests being received reserve now for their session windows, at most the "
                        + "byte budget");
    }


    private static <T> void bytes(MeterRegistry registry, Tags connector, String name, T source,
                                  ToDoubleFunction<T> bytes, String description) {
        Gauge.builder(name, source, bytes).tags(connector).baseUnit(BaseUnits.BYTES).description(description)
                .register(registry);
    }
}
