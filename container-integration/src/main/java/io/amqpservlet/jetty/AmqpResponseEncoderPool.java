package io.amqpservlet.jetty;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The response encoders of one connection, reused from response to response (docs/profiling.md: an encoder and
 * its buffer per response was the largest allocation of the AMQP path).
 *
 * <p>Servlet threads take an encoder when a response commits; the engine thread gives it back once the reply link
 * has copied the encoded message. Both sides run concurrently, so the pool is a fixed array of slots claimed with
 * atomic swaps: no lock, no node allocated per operation (as a concurrent queue would), and no ABA hazard (as a
 * lock-free stack of reused objects has). When every slot is empty a new encoder is made; when every slot is full
 * the returned one is dropped, so the pool holds at most {@link #SLOTS} encoders whatever the concurrency.
 */
final class AmqpResponseEncoderPool {
    /** About the requests a client keeps in flight on one connection; more concurrent responses just allocate. */
    static final int SLOTS = 8;
    /**
     * An encoder whose buffer grew beyond this (a large response buffered whole) is not kept: 10,000 idle
     * connections must not each hold megabytes (DESIGN.md §2).
     */
    static final int MAX_KEPT_CAPACITY = 16 * 1024;

    private final AtomicReferenceArray<AmqpResponseEncoder> slots = new AtomicReferenceArray<>(SLOTS);

    /** Any thread: an encoder no one else uses until it is {@link #release released}. */
    AmqpResponseEncoder acquire() {
        for (int i = 0; i < SLOTS; i++) {
            if (slots.get(i) != null) {
                AmqpResponseEncoder e = slots.getAndSet(i, null);
                if (e != null) {
                    return e;
                }
            }
        }
        return new AmqpResponseEncoder();
    }

    /** Any thread: {@code encoder} is no longer used (its bytes were copied); null does nothing. */
    void release(AmqpResponseEncoder encoder) {
        if (encoder == null || encoder.capacity() > MAX_KEPT_CAPACITY) {
            return;
        }
        for (int i = 0; i < SLOTS; i++) {
            if (slots.get(i) == null && slots.compareAndSet(i, null, encoder)) {
                return;
            }
        }
    }
}
