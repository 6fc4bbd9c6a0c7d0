package io.amqpservlet.jetty;

import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;

import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The requests one connection is serving (dispatched to Jetty, stream not ended yet), and the request-timeout
 * sweep over them: one scheduled task per connection while it has requests, not one per request (a
 * scheduler entry and its cancellation would cost every request). A request times out between the timeout and a
 * quarter more. Any thread may add and remove; the sweep runs on the scheduler.
 */
final class AmqpActiveStreams {
    /** Made by the first request (docs/design.md §2: a connection that serves none does not hold it). */
    private volatile Set<AmqpHttpStream> streams;
    private final Scheduler scheduler;
    /** Whether the connection is still open: a closed one stops re-arming the sweep. */
    private final BooleanSupplier open;
    private final AtomicBoolean sweepArmed = new AtomicBoolean();
    private final Runnable sweep = this::sweep;
    private volatile long timeoutMillis;

    AmqpActiveStreams(Scheduler scheduler, BooleanSupplier open) {
        this.scheduler = scheduler;
        this.open = open;
    }

    /** Any thread: a request was dispatched; arms the sweep unless it is armed (or there is no timeout). */
    void add(AmqpHttpStream stream) {
        Set<AmqpHttpStream> streams = this.streams;
        if (streams == null) {
            synchronized (this) {
                streams = this.streams;
                if (streams == null) {
                    streams = ConcurrentHashMap.newKeySet();
                    this.streams = streams;
                }
            }
        }
        streams.add(stream);
        if (timeoutMillis > 0 && sweepArmed.compareAndSet(false, true)) {
            scheduler.schedule(sweep, Math.max(1, timeoutMillis / 4), TimeUnit.MILLISECONDS);
        }
    }

    void remove(AmqpHttpStream stream) {
        Set<AmqpHttpStream> streams = this.streams;
        if (streams != null) {
            streams.remove(stream);
        }
    }

    int size() {
        Set<AmqpHttpStream> streams = this.streams;
        return streams == null ? 0 : streams.size();
    }

    /** The streams being served now (a weakly consistent view), e.g. to fail them when the connection closes. */
    Iterable<AmqpHttpStream> all() {
        Set<AmqpHttpStream> streams = this.streams;
        return streams == null ? Collections.emptySet() : streams;
    }

    void timeoutMillis(long millis) {
        this.timeoutMillis = millis;
    }

    long timeoutMillis() {
        return timeoutMillis;
    }

    /** Scheduler thread: answers 503 for every request older than the timeout; re-arms while requests remain. */
    private void sweep() {
        sweepArmed.set(false);
        long timeout = timeoutMillis;
        Set<AmqpHttpStream> streams = this.streams;
        if (timeout <= 0 || streams == null || streams.isEmpty()) {
            return;
        }
        long now = NanoTime.now();
        for (AmqpHttpStream stream : streams) {
            stream.timeOutIfOlder(now, timeout);
        }
        if (!streams.isEmpty() && open.getAsBoolean() && sweepArmed.compareAndSet(false, true)) {
            scheduler.schedule(sweep, Math.max(1, timeout / 4), TimeUnit.MILLISECONDS);
        }
    }
}
