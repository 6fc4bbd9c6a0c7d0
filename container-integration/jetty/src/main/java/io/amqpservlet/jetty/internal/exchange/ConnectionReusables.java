package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import org.eclipse.jetty.server.HttpChannel;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What one connection keeps from request to request so that a steady stream of requests allocates little: exchanges
 * (each with its stream), response encoders and Jetty channels. Any thread takes and gives back; a burst beyond the
 * few kept allocates and is dropped after. Made with the connection's first request (docs/design.md §2: a connection
 * that serves none holds none of it), and emptied when the connection has served nothing for
 * {@link #TRIM_AFTER_IDLE_MILLIS}, so 10,000 idle connections do not each hold what their busiest minute needed.
 */
public final class ConnectionReusables {
    /** How long a connection serves no request before it lets go of what it kept for reuse. */
    public static final long TRIM_AFTER_IDLE_MILLIS = 2_000;
    /** About the requests a client keeps in flight on one connection; more concurrent ones just allocate. */
    static final int SLOTS = 8;
    /**
     * An encoder whose buffer grew beyond this (a large response buffered whole) is not kept: 10,000 idle connections
     * must not each hold megabytes (docs/design.md §2).
     */
    static final int MAX_KEPT_ENCODER_BYTES = 16 * 1024;

    private final SlotPool<Exchange> exchanges = new SlotPool<>(SLOTS);
    private final SlotPool<ResponseEncoder> encoders = new SlotPool<>(SLOTS);
    private final ConcurrentLinkedQueue<HttpChannel> channels = new ConcurrentLinkedQueue<>();
    /** When the engine thread last saw a request being served; 0 once trimmed (engine thread). */
    private long lastBusyMillis;
    /**
     * A request took an exchange since the last trim (engine thread): its pass may not have seen it being served, when
     * a pool thread served it before the pass looked.
     */
    private boolean takenSinceTrim;

    /** Engine thread: an exchange for a new request, kept or new. */
    Exchange exchange() {
        takenSinceTrim = true;
        Exchange e = exchanges.acquire();
        return e == null ? new Exchange() : e;
    }

    /** Any thread: an exchange both its owners are done with. */
    void release(Exchange exchange) {
        exchanges.release(exchange);
    }

    /** Any thread: an encoder no one else uses until it is released. */
    ResponseEncoder encoder() {
        ResponseEncoder e = encoders.acquire();
        return e == null ? new ResponseEncoder() : e;
    }

    /** Any thread: {@code encoder} is no longer used (its bytes were copied); null does nothing. */
    void release(ResponseEncoder encoder) {
        if (encoder != null && encoder.capacity() <= MAX_KEPT_ENCODER_BYTES) {
            encoders.release(encoder);
        }
    }

    /** Engine thread: a channel that completed a request normally, or null. */
    HttpChannel channel() {
        return channels.poll();
    }

    /** Any thread: a channel whose request completed normally, recycled. */
    void release(HttpChannel channel) {
        channels.offer(channel);
    }

    /**
     * Engine thread, every pass: with requests being served ({@code busy}) everything is kept; once none has been for
     * {@link #TRIM_AFTER_IDLE_MILLIS}, everything kept goes, and so does what the engine kept
     * ({@link Engine#trimIdle()}).
     *
     * @return when to look again (a pass then, to trim), or {@code Long.MAX_VALUE}
     */
    public long trimWhenIdle(long nowMillis, boolean busy, Engine engine) {
        if (busy) {
            lastBusyMillis = nowMillis;
            return Long.MAX_VALUE;
        }
        if (lastBusyMillis == 0) {
            if (!takenSinceTrim) {
                return Long.MAX_VALUE; // trimmed already
            }
            lastBusyMillis = nowMillis; // requests came and went between two passes: idle from now
        }
        long trimAt = lastBusyMillis + TRIM_AFTER_IDLE_MILLIS;
        if (nowMillis < trimAt) {
            return trimAt;
        }
        lastBusyMillis = 0;
        takenSinceTrim = false;
        while (channels.poll() != null) {
            // dropped
        }
        exchanges.drain();
        encoders.drain();
        engine.trimIdle(); // pooled deliveries, empty maps, link message arrays
        return Long.MAX_VALUE;
    }

    /** {@return how many objects are kept for the next requests (exchanges, channels, encoders), for tests} */
    public int kept() {
        return channels.size() + exchanges.size() + encoders.size();
    }
}
