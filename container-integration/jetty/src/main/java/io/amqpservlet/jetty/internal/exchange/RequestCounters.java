package io.amqpservlet.jetty.internal.exchange;

import java.util.concurrent.atomic.LongAdder;

/**
 * What became of the requests of one factory's (or attachment's) connections, counted for its statistics (JMX):
 * served by a servlet, answered without one, released, expired, timed out, and responses that came too late. Any
 * thread adds; the counts only grow.
 */
public final class RequestCounters {
    final LongAdder served = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder released = new LongAdder();
    final LongAdder expired = new LongAdder();
    final LongAdder timedOut = new LongAdder();
    final LongAdder lateResponses = new LongAdder();

    /** {@return requests handed to a servlet} */
    public long served() {
        return served.sum();
    }

    /**
     * {@return requests answered or rejected without a servlet because the message is no HTTP request (a 4xx or 505
     * answer, or {@code amqp:decode-error}), or, where the engine rejects messages over its size limit (attach
     * mode), because it was too large}
     */
    public long refused() {
        return refused.sum();
    }

    /** {@return requests released unserved: the server was stopping, over its byte budget, or the replies backed up} */
    public long released() {
        return released.sum();
    }

    /** {@return requests that had expired before they could be served (answered 504, or rejected when one-way)} */
    public long expired() {
        return expired.sum();
    }

    /** {@return requests their request timeout answered 503 for} */
    public long timedOut() {
        return timedOut.sum();
    }

    /** {@return responses a servlet finished after the request timeout had answered for it: they went nowhere} */
    public long lateResponses() {
        return lateResponses.sum();
    }
}
