package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.protocol.types.transport.ErrorConditions;

/**
 * How one AMQP connection ends: the steps of a graceful stop, and how long the peer is given to answer a
 * close. Engine thread only; the connection asks it on every engine pass and schedules its next tick by the times
 * it returns.
 *
 * <p>A graceful stop (docs/jetty.md, "Graceful stop") takes the peer's credit back (a flow with link-credit 0 on
 * every link it sends requests on, AMQP 1.0 §2.6.7), lets what the peer sent before it saw the flow arrive
 * ({@link #STOP_GRACE_MILLIS}; the connection releases it), waits until every request has been answered or released,
 * then closes with {@code amqp:connection:forced}. After any close of ours, or once the engine is done with bytes
 * still unwritten, the peer has the close timeout to answer and read, then the transport ends: a peer that never
 * answers, or never reads, cannot hold the connection, nor a graceful stop, any longer.
 */
final class ConnectionStop {
    /** How long a graceful stop lets messages already sent on revoked credit arrive before the forced close. */
    static final long STOP_GRACE_MILLIS = 200;

    private final long closeTimeoutMillis;
    private long creditStoppedAtMillis;
    private boolean forcedClose;
    private long closeDeadlineMillis;

    ConnectionStop(long closeTimeoutMillis) {
        this.closeTimeoutMillis = closeTimeoutMillis;
    }

    long closeTimeoutMillis() {
        return closeTimeoutMillis;
    }

    /** Whether the forced close has been sent (the graceful stop has nothing left to do). */
    boolean forcedClose() {
        return forcedClose;
    }

    /**
     * One step of the graceful stop; {@code inFlight} requests are still with Jetty. Returns when to look again
     * (Long.MAX_VALUE: when an event comes).
     */
    long step(Engine engine, long now, int inFlight) {
        if (forcedClose) {
            return Long.MAX_VALUE;
        }
        if (!engine.isOpen()) {
            if (!engine.closeSent() && !engine.isDone()) {
                forcedClose = true;
                engine.close(ErrorConditions.CONNECTION_FORCED, "the server is shutting down"); // ends a handshake
            }
            return Long.MAX_VALUE;
        }
        if (creditStoppedAtMillis == 0) {
            creditStoppedAtMillis = now;
            engine.stopCredit();
        }
        long graceEnd = creditStoppedAtMillis + STOP_GRACE_MILLIS;
        if (now < graceEnd) {
            return graceEnd;
        }
        if (inFlight > 0 || engine.unsettledIncoming() > 0) {
            return Long.MAX_VALUE; // the exchange (or frame) that settles the last one drives the engine again
        }
        // AMQP 1.0 §2.8.16 connection:forced: an operator-initiated close; the client may reconnect later.
        // The peer's close then ends the connection, or the close timeout does.
        forcedClose = true;
        engine.close(ErrorConditions.CONNECTION_FORCED, "the server is shutting down");
        return Long.MAX_VALUE;
    }

    /**
     * Whether the transport should end now because the peer has not answered our close (or read the rest) within
     * the close timeout; {@link #closeDeadlineMillis()} says when to look again.
     */
    boolean closeTimedOut(Engine engine, long now, boolean writing) {
        if (!(engine.closeSent() || engine.isDone())) {
            return false;
        }
        if (closeDeadlineMillis == 0) {
            closeDeadlineMillis = now + closeTimeoutMillis;
        }
        return now >= closeDeadlineMillis && (!engine.isDone() || writing || engine.hasOutput());
    }

    /** When the close timeout ends (Long.MAX_VALUE before a close). */
    long closeDeadlineMillis() {
        return closeDeadlineMillis == 0 ? Long.MAX_VALUE : closeDeadlineMillis;
    }
}
