package io.amqpservlet.bench.load;

import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Wakes an open-loop event loop's selector when its next request is due. A selector's own timeout is in whole
 * milliseconds, so on its own a request could leave up to a millisecond late, and that lateness would count in
 * its latency (measured from the scheduled time); {@link LockSupport#parkNanos} is good to tens of microseconds.
 * Responses still wake the selector at once through the sockets.
 */
final class SendTimer implements Runnable {
    private static final long IDLE = Long.MAX_VALUE;

    private final Selector selector;
    private final AtomicLong dueNanos = new AtomicLong(IDLE);
    private final Thread thread;
    private volatile boolean stopped;

    SendTimer(Selector selector, String name) {
        this.selector = selector;
        this.thread = new Thread(this, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        stopped = true;
        LockSupport.unpark(thread);
    }

    /** The loop's next send is due at {@code nanos} ({@link System#nanoTime()}); {@code Long.MAX_VALUE} for none. */
    void schedule(long nanos) {
        long before = dueNanos.getAndSet(nanos);
        if (nanos < before) {
            LockSupport.unpark(thread); // earlier than what the timer sleeps towards
        }
    }

    @Override
    public void run() {
        while (!stopped) {
            long due = dueNanos.get();
            if (due == IDLE) {
                LockSupport.parkNanos(1_000_000L);
                continue;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            // Fire once per due time: a schedule() meanwhile replaced it and is left for the next round.
            if (dueNanos.compareAndSet(due, IDLE)) {
                selector.wakeup();
            }
        }
    }
}
