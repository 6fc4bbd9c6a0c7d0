package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * One connection's requests on their way to the pool. Instead of one hand-off per request, a request waits here and
 * a pool thread that has served one takes the next without going back to the pool; a new thread is asked for only
 * when requests wait and none has been asked for yet. Each thread asks for the next one before it serves, so a
 * servlet that blocks never holds the requests behind it: as many threads serve as the requests need, and at
 * saturation the ones already running keep serving instead of parking and being woken for each request.
 *
 * <p>A thread that has served a request while other work waits for the pool (another connection's requests, when
 * every thread is busy) goes back to the pool and leaves the rest of this queue to a thread asked for behind that
 * work: a connection that always has requests waiting does not keep the pool's threads from the others.
 */
final class ServingQueue implements Runnable {
    /** Requests a thread serves in a row when the executor cannot say whether other work waits. */
    static final int TURN = 16;

    private final Executor executor;
    /** The executor when it is Jetty's pool, which says whether jobs wait for a thread; null otherwise. */
    private final QueuedThreadPool pool;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    /** A thread has been asked for and has not started yet. Guarded by {@link #waiting}. */
    private boolean asked;

    ServingQueue(Executor executor) {
        this.executor = executor;
        this.pool = executor instanceof QueuedThreadPool queued ? queued : null;
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

    /** A pool thread: serves waiting requests until none waits, or until other work waits for the pool. */
    @Override
    public void run() {
        synchronized (waiting) {
            asked = false;
        }
        int served = 0;
        while (true) {
            Runnable task;
            boolean ask;
            synchronized (waiting) {
                task = waiting.poll();
                if (task == null) {
                    return;
                }
                ask = claimAsk();
            }
            if (ask) {
                execute();
            }
            task.run();
            if (othersWait(++served)) {
                synchronized (waiting) {
                    ask = claimAsk();
                }
                if (ask) {
                    execute();
                }
                return;
            }
        }
    }

    /** Under {@link #waiting}: whether requests wait and no thread is on its way; if so, one now counts as asked. */
    private boolean claimAsk() {
        boolean ask = !waiting.isEmpty() && !asked;
        asked |= ask;
        return ask;
    }

    /**
     * {@return whether this thread should give the pool back} Jetty's pool says whether jobs wait for a thread; with
     * another executor, every {@value #TURN} requests.
     */
    private boolean othersWait(int served) {
        return pool != null ? pool.getQueueSize() > 0 : served % TURN == 0;
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
