package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.concurrent.Executor;

/**
 * Servlet-side callbacks an engine pass has finished (a send's bytes are with the reply link, or failed), waiting
 * to be completed by the thread that ran the pass once it has let go of the engine. A pass runs on one thread from
 * start to end, so the pass adds them straight to its thread's list.
 *
 * <p>Why after: completing a response's last callback runs the rest of Jetty's request cycle (the stream ends,
 * the channel is recycled, the request log written). Done inside the pass, that kept the engine busy for longer,
 * so input arriving meanwhile was read by that thread, which may not run a handler itself (see
 * the connection's engine pass), and had to hand the request to another thread. One instance per thread (a
 * thread-local), reused, so nothing is allocated per pass.
 */
public final class CompletedCallbacks {
    private static final ThreadLocal<CompletedCallbacks> BY_THREAD = ThreadLocal.withInitial(CompletedCallbacks::new);

    private static final Logger LOG = LoggerFactory.getLogger(CompletedCallbacks.class);

    private final ArrayList<Callback> succeeded = new ArrayList<>();
    private final ArrayList<Callback> failed = new ArrayList<>();
    private final ArrayList<Throwable> failures = new ArrayList<>();
    /** Set while {@link #completeAll} runs: a callback that drives a connection again only adds to the lists. */
    private boolean completing;

    /** {@return the calling thread's list: the one it completes once it has let go of the engine} */
    public static CompletedCallbacks ofThisThread() {
        return BY_THREAD.get();
    }

    void succeeded(Callback callback) {
        succeeded.add(callback);
    }

    void failed(Callback callback, Throwable failure) {
        failed.add(callback);
        failures.add(failure);
    }

    /**
     * Completes every callback, including those that completing them adds (a callback may start the next write,
     * whose pass lands here too); a nested call leaves them to the outer one, so none runs twice.
     */
    public void completeAll(Executor blockingOnes) {
        if (completing) {
            return;
        }
        completing = true;
        try {
            while (!succeeded.isEmpty() || !failed.isEmpty()) {
                for (int i = 0; i < succeeded.size(); i++) {
                    complete(succeeded.get(i), null, blockingOnes);
                }
                succeeded.clear();
                for (int i = 0; i < failed.size(); i++) {
                    complete(failed.get(i), failures.get(i), blockingOnes);
                }
                failed.clear();
                failures.clear();
            }
        } finally {
            completing = false;
        }
    }

    private static void complete(Callback callback, Throwable failure, Executor blockingOnes) {
        if (blockingOnes != null && Invocable.getInvocationType(callback) == Invocable.InvocationType.BLOCKING) {
            // This thread must not block (the selector's): a callback that may goes to the pool.
            blockingOnes.execute(() -> complete(callback, failure, null));
            return;
        }
        try {
            if (failure == null) {
                callback.succeeded();
            } else {
                callback.failed(failure);
            }
        } catch (RuntimeException | Error e) {
            LOG.warn("a response callback failed", e); // must not stop the others from completing
        }
    }
}
