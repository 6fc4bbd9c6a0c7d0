package io.amqpservlet.jetty;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Waits for what another thread makes true: a server's count, an attachment's state, a broker's view. Polls every
 * 10 ms and fails the test with a message read when the deadline passed (so it shows the value that was still wrong).
 */
final class Eventually {
    private Eventually() {
    }

    /** What is waited for; it may throw (a JMX read, a broker query), which fails the test at once. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits up to 10 s until {@code condition} holds; fails with {@code failure}'s message if it never does. */
    static void until(Condition condition, Supplier<String> failure) throws Exception {
        within(10, condition, failure);
    }

    /** Waits up to {@code seconds} until {@code condition} holds; fails with {@code failure}'s message if not. */
    static void within(long seconds, Condition condition, Supplier<String> failure) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(failure.get() + " (waited " + seconds + " s)");
            }
            Thread.sleep(10);
        }
    }
}
