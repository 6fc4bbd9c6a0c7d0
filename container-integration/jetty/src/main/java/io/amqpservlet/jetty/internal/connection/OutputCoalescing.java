package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.connector.engine.Engine;
import org.eclipse.jetty.util.thread.Scheduler;

import java.util.concurrent.TimeUnit;

/**
 * Write coalescing: a connection's output is held back while other requests of the connection are still being
 * served, so that their responses (with the dispositions and flows that go with them) leave in one write rather than
 * one write each. A peer pays per read and per wake-up more than per byte: Artemis, given 4.7 responses per write
 * rather than 1.6, spent a fifth less CPU per request, and so did the gateway (docs/profiling.md). The output leaves at
 * once when no other request is being served, when {@value #BYTES} bytes have gathered, or when the oldest of it has
 * waited the hold time: a timer ends the hold, so a slow servlet delays its neighbours' responses by at most that.
 *
 * <p>Made the first time a connection holds its output back, so an idle connection has none. Engine thread, but for
 * the timer, which reads whether a hold is on and clears its own flag.
 */
final class OutputCoalescing {
    /** Output of this size leaves at once: a write this big already costs the peer little per response. */
    static final int BYTES = 4096;

    private final long holdNanos;
    private final Scheduler scheduler;
    private final Runnable fired;
    /** When the output held now was first held back; 0 when none is. Read by the timer. */
    private volatile long heldSinceNanos;
    /** A timer is scheduled and has not run yet: set on the engine thread, cleared by the timer. */
    private volatile boolean timerPending;

    OutputCoalescing(long holdNanos, Scheduler scheduler, Runnable wakeUp) {
        this.holdNanos = holdNanos;
        this.scheduler = scheduler;
        this.fired = () -> {
            timerPending = false;
            // Most holds end before their timer: the output left with the last response. Then there is nothing to
            // write, and no pass is asked for. A hold that begins meanwhile either sees the timer gone and schedules
            // its own, or is seen here.
            if (heldSinceNanos != 0) {
                wakeUp.run();
            }
        };
    }

    /**
     * {@return whether output may be held back now} Small output, requests still being served, and a hold time.
     *
     * @param serving requests of the connection being served (responses still to come)
     */
    static boolean worthHolding(Engine engine, int serving, long holdNanos) {
        return holdNanos > 0 && serving > 0 && engine.hasOutput() && engine.outputBytes() < BYTES;
    }

    /**
     * {@return whether the output stays held now} False once it has waited the hold time; while it stays held, a timer
     * brings the pass back when the hold ends.
     */
    boolean hold(long nowNanos) {
        if (heldSinceNanos == 0) {
            heldSinceNanos = nowNanos;
        }
        long waited = nowNanos - heldSinceNanos;
        if (waited >= holdNanos) {
            heldSinceNanos = 0;
            return false;
        }
        if (!timerPending) {
            timerPending = true;
            scheduler.schedule(fired, holdNanos - waited, TimeUnit.NANOSECONDS);
        }
        return true;
    }

    /** The output is written: the next output is held from when it comes. */
    void released() {
        heldSinceNanos = 0;
    }
}
