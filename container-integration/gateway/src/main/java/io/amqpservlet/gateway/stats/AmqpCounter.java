package io.amqpservlet.gateway.stats;

import io.amqpservlet.jetty.AmqpConnectionFactory;

import java.util.function.ToLongFunction;

/**
 * The counters of an AMQP listener (an {@link AmqpConnectionFactory}; a broker attachment has one too) that the
 * gateway reports, read from the factory's getters, which are also its JMX attributes: the one list that both the
 * stats endpoint's JSON ({@link #jsonName}, the attribute's name) and the Prometheus meters ({@link #meterName})
 * are made from, so the two never disagree.
 */
public enum AmqpCounter {
    CONNECTIONS_OPEN("connectionsOpen", "amqp.connections.open", Kind.GAUGE, null,
            "AMQP connections open now (past the client's open)", AmqpConnectionFactory::getConnectionsOpen),
    CONNECTIONS_HANDSHAKING("connectionsHandshaking", "amqp.connections.handshaking", Kind.GAUGE, null,
            "Connections between accept and the client's open", AmqpConnectionFactory::getConnectionsHandshaking),
    CONNECTIONS_REFUSED("connectionsRefused", "amqp.connections.refused", Kind.COUNTER, null,
            "Connections refused by the connection or handshake limit", AmqpConnectionFactory::getConnectionsRefused),
    REQUESTS_ACTIVE("requestsActive", "amqp.requests.active", Kind.GAUGE, null,
            "Requests being served now", AmqpConnectionFactory::getRequestsActive),
    REQUESTS_SERVED("requestsServed", "amqp.requests.served", Kind.COUNTER, null,
            "Requests handed to a servlet", AmqpConnectionFactory::getRequestsServed),
    REQUESTS_REFUSED("requestsRefused", "amqp.requests.refused", Kind.COUNTER, null,
            "Requests answered or rejected without a servlet: no HTTP request",
            AmqpConnectionFactory::getRequestsRefused),
    REQUESTS_RELEASED("requestsReleased", "amqp.requests.released", Kind.COUNTER, null,
            "Requests released unserved: stopping, over the byte budget, replies backed up",
            AmqpConnectionFactory::getRequestsReleased),
    REQUESTS_EXPIRED("expiredRequests", "amqp.requests.expired", Kind.COUNTER, null,
            "Requests that had expired before they could be served", AmqpConnectionFactory::getExpiredRequests),
    REQUESTS_TIMED_OUT("requestsTimedOut", "amqp.requests.timed.out", Kind.COUNTER, null,
            "Requests the request timeout answered 503 for", AmqpConnectionFactory::getRequestsTimedOut),
    LATE_RESPONSES("lateResponses", "amqp.responses.late", Kind.COUNTER, null,
            "Responses a servlet finished after their request had timed out", AmqpConnectionFactory::getLateResponses),
    BUFFERED_BYTES("bufferedBytes", "amqp.budget.buffered", Kind.GAUGE, "bytes",
            "Bytes buffered now: request bodies unread, responses unwritten", AmqpConnectionFactory::getBufferedBytes),
    MAX_BUFFERED_BYTES("maxBufferedBytes", "amqp.budget.limit", Kind.GAUGE, "bytes",
            "The byte budget: past it no credit is granted and new requests are released",
            AmqpConnectionFactory::getMaxBufferedBytes);

    /** How a counter behaves: a value now, or a count that only grows. */
    public enum Kind {
        GAUGE,
        COUNTER
    }

    private final String jsonName;
    private final String meterName;
    private final Kind kind;
    private final String baseUnit;
    private final String description;
    private final ToLongFunction<AmqpConnectionFactory> read;

    AmqpCounter(String jsonName, String meterName, Kind kind, String baseUnit, String description,
                ToLongFunction<AmqpConnectionFactory> read) {
        this.jsonName = jsonName;
        this.meterName = meterName;
        this.kind = kind;
        this.baseUnit = baseUnit;
        this.description = description;
        this.read = read;
    }

    /** {@return its key in the stats endpoint's JSON: the factory's JMX attribute name} */
    public String jsonName() {
        return jsonName;
    }

    /** {@return its Micrometer meter name (dotted; Prometheus turns the dots into underscores)} */
    public String meterName() {
        return meterName;
    }

    /** {@return whether it is a gauge or a counter} */
    public Kind kind() {
        return kind;
    }

    /** {@return the base unit of the meter, or null} */
    public String baseUnit() {
        return baseUnit;
    }

    /** {@return what it counts, for the meter's help text} */
    public String description() {
        return description;
    }

    /** {@return its value now in {@code factory}} */
    public long read(AmqpConnectionFactory factory) {
        return read.applyAsLong(factory);
    }
}
