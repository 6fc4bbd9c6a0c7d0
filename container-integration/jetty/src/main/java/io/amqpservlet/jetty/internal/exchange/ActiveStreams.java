package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.io.CyclicTimeouts;
import org.eclipse.jetty.util.thread.Scheduler;

import java.util.Collections;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The requests one connection is serving (dispatched to Jetty, stream not ended yet), and their request timeouts
 * through Jetty's {@link CyclicTimeouts}, as Jetty's HTTP/2 session times out its streams: each stream carries its
 * own expiry ({@link HttpStreamOverAmqp#getExpireNanoTime()}), the dispatcher holds one timer set to the earliest, and a
 * request dispatched after it expires later than the timer costs no scheduler call. When the timer fires it walks
 * the streams, times out the expired ones and sets itself to the next expiry. Any thread may add and remove; the
 * walk runs on the scheduler.
 */
final class ActiveStreams extends CyclicTimeouts<HttpStreamOverAmqp> {
    /** Made by the first request (docs/design.md §2: a connection that serves none does not hold it). */
    private volatile Set<HttpStreamOverAmqp> streams;
    /** Whether the connection is still open: a closed one walks nothing, so its timer is not set again. */
    private final BooleanSupplier open;

    ActiveStreams(Scheduler scheduler, BooleanSupplier open) {
        super(scheduler);
        this.open = open;
    }

    /**
     * Any thread: a request was dispatched ({@link HttpStreamOverAmqp#init} has set its expiry); sets the timer to it
     * when it is the earliest.
     */
    void add(HttpStreamOverAmqp stream) {
        Set<HttpStreamOverAmqp> streams = this.streams;
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
        schedule(stream);
    }

    void remove(HttpStreamOverAmqp stream) {
        Set<HttpStreamOverAmqp> streams = this.streams;
        if (streams != null) {
            streams.remove(stream);
        }
    }

    int size() {
        Set<HttpStreamOverAmqp> streams = this.streams;
        return streams == null ? 0 : streams.size();
    }

    /** The streams being served now (a weakly consistent view), e.g. to fail them when the connection closes. */
    Iterable<HttpStreamOverAmqp> all() {
        Set<HttpStreamOverAmqp> streams = this.streams;
        return streams == null ? Collections.emptySet() : streams;
    }

    /** Scheduler thread: the streams to check; none once the connection is closed (null stops the walk). */
    @Override
    protected Iterator<HttpStreamOverAmqp> iterator() {
        Set<HttpStreamOverAmqp> streams = this.streams;
        return streams == null || !open.getAsBoolean() ? null : streams.iterator();
    }

    /**
     * Scheduler thread: answers 503 for an expired request. The stream stays in the set until its end removes it
     * (it may already serve a newer request); its expiry becomes never, so the timer does not come back for it.
     */
    @Override
    protected boolean onExpired(HttpStreamOverAmqp stream) {
        stream.timeOutIfDue();
        return false;
    }
}
