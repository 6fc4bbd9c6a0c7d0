package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;

/**
 * The response encoders of one connection, reused from response to response (docs/profiling.md: an encoder and
 * its buffer per response was the largest allocation of the AMQP path). Servlet threads take an encoder when a
 * response commits; the engine thread gives it back once the reply link has copied the encoded message.
 */
public final class ResponseEncoderPool {
    /** About the requests a client keeps in flight on one connection; more concurrent responses just allocate. */
    public static final int SLOTS = 8;
    /**
     * An encoder whose buffer grew beyond this (a large response buffered whole) is not kept: 10,000 idle
     * connections must not each hold megabytes (docs/design.md §2).
     */
    public static final int MAX_KEPT_CAPACITY = 16 * 1024;

    private final SlotPool<ResponseEncoder> pool = new SlotPool<>(SLOTS);

    /** Any thread: an encoder no one else uses until it is {@link #release released}. */
    public ResponseEncoder acquire() {
        ResponseEncoder e = pool.acquire();
        return e == null ? new ResponseEncoder() : e;
    }

    /** Drops the pooled encoders (a connection that has been idle a while, see AmqpConnection). */
    public void drain() {
        pool.drain();
    }

    /** How many encoders are pooled now (a snapshot, for tests). */
    public int size() {
        return pool.size();
    }

    /** Any thread: {@code encoder} is no longer used (its bytes were copied); null does nothing. */
    public void release(ResponseEncoder encoder) {
        if (encoder != null && encoder.capacity() <= MAX_KEPT_CAPACITY) {
            pool.release(encoder);
        }
    }
}
