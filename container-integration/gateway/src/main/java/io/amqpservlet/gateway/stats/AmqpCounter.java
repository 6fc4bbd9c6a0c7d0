package io.amqpservlet.gateway.stats;

import io.amqpservlet.jetty.AmqpConnectionFactory;

import java.util.function.ToLongFunction;

/**
 * The counters of an AMQP listener (an {@link AmqpConnectionFactory}; a broker attachment has one too) that the stats
 * endpoint reports, read from the factory's getters and keyed by their JMX attribute names. The Prometheus meters of
 * the same getters come from amqp-servlet-micrometer ({@code GatewayMetrics}).
 */
public enum AmqpCounter {
    CONNECTIONS_OPEN("connectionsOpen", AmqpConnectionFactory::getConnectionsOpen),
    CONNECTIONS_HANDSHAKING("connectionsHandshaking", AmqpConnectionFactory::getConnectionsHandshaking),
    CONNECTIONS_REFUSED("connectionsRefused", AmqpConnectionFactory::getConnectionsRefused),
    REQUESTS_ACTIVE("requestsActive", AmqpConnectionFactory::getRequestsActive),
    REQUESTS_SERVED("requestsServed", AmqpConnectionFactory::getRequestsServed),
    REQUESTS_REFUSED("requestsRefused", AmqpConnectionFactory::getRequestsRefused),
    REQUESTS_RELEASED("requestsReleased", AmqpConnectionFactory::getRequestsReleased),
    REQUESTS_EXPIRED("expiredRequests", AmqpConnectionFactory::getExpiredRequests),
    REQUESTS_TIMED_OUT("requestsTimedOut", AmqpConnectionFactory::getRequestsTimedOut),
    LATE_RESPONSES("lateResponses", AmqpConnectionFactory::getLateResponses),
    BUFFERED_BYTES("bufferedBytes", AmqpConnectionFactory::getBufferedBytes),
    MAX_BUFFERED_BYTES("maxBufferedBytes", AmqpConnectionFactory::getMaxBufferedBytes);

    private final String jsonName;
    private final ToLongFunction<AmqpConnectionFactory> read;

    AmqpCounter(String jsonName, ToLongFunction<AmqpConnectionFactory> read) {
        this.jsonName = jsonName;
        this.read = read;
    }

    /** {@return its key in the stats endpoint's JSON: the factory's JMX attribute name} */
    public String jsonName() {
        return jsonName;
    }

    /** {@return its value now in {@code factory}} */
    public long read(AmqpConnectionFactory factory) {
        return read.applyAsLong(factory);
    }
}
