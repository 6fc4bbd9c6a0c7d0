package io.amqpservlet.jetty;

import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.server.ServerConnector;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds parts of a running server up, as a pause of its process (a long GC, SIGSTOP) would, until closed: its
 * connector's selectors (each runs an update that waits) and its scheduler (a task that waits). Each method returns
 * once what it holds is held.
 */
final class ServerPause implements AutoCloseable {
    private static final long MOST_MILLIS = 10_000;

    private final CountDownLatch release = new CountDownLatch(1);

    /** Holds every selector of {@code connector}: no connection of it hears that its socket is readable. */
    ServerPause selectors(ServerConnector connector) throws InterruptedException {
        List<ManagedSelector> selectors = List.copyOf(connector.getSelectorManager().getBeans(ManagedSelector.class));
        CountDownLatch held = new CountDownLatch(selectors.size());
        for (ManagedSelector selector : selectors) {
            selector.submit(s -> hold(held));
        }
        return awaitHeld(held, "selectors");
    }

    /** Holds the scheduler of {@code connector} (a single thread): no timer fires, the engines' ticks included. */
    ServerPause scheduler(ServerConnector connector) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        connector.getScheduler().schedule(() -> hold(held), 0, TimeUnit.MILLISECONDS);
        return awaitHeld(held, "scheduler");
    }

    private ServerPause awaitHeld(CountDownLatch held, String what) throws InterruptedException {
        if (!held.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("the " + what + " did not run what holds them");
        }
        return this;
    }

    private void hold(CountDownLatch held) {
        held.countDown();
        try {
            release.await(MOST_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lets everything held go on. */
    @Override
    public void close() {
        release.countDown();
    }
}
