package io.amqpservlet.jetty.internal.exchange;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * One connection's requests on their way to the pool. Instead of one hand-off per request, a request waits here and
 * a pool thread that has served one takes the next without going back to the pool; a new thread is asked for only
 * when requests wait and none has been asked for yet. Each thread asks for the next one before it serves, so a
 * servlet that blocks never holds the requests behind it: as many threads serve as the requests need, and at
 * saturation the ones already running keep serving instead of parking and being woken for each request.
 */
final class ServingQueue implements Runnable {
    private final Executor executor;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    /** A thread has been asked for and has not started yet. Guarded by {@link #waiting}. */
    private boolean asked;

    ServingQueue(Executor executor) {
        this.executor = executor;
    }

    /** Any thread: {@code task} runs on a pool thread, after the requests waiting before it have started. */
    void submit(Runnable task) {
        boolean ask;
        synchronized (waiting) {
            waiting.add(task);
            ask = !asked;
            asked = true;
        }
        if (ask) {
            execute();
        }
    }

    /** A pool thread: serves waiting requests until none waits. */
    @Override
    public void run() {
        synchronized (waiting) {
            asked = false;
        }
        while (true) {
            Runnable task;
            boolean ask;
            synchronized (waiting) {
                task = waiting.poll();
                if (task == null) {
                    return;
                }
                ask = !waiting.isEmpty() && !asked;
                if (ask) {
                    asked = true;
                }
            }
            if (ask) {
                execute();
            }
            task.run();
        }
    }

    private void execute() {
        try {
            executor.execute(this);
        } catch (RuntimeException e) {
            synchronized (waiting) {
                asked = false;
            }
            throw e;
        }
    }
}
