package io.amqpservlet.jetty.internal.budget;

/**
 * One connection's part of its factory's {@link ServerBudget}: whether it counts as an open connection and as a
 * handshake, and the bytes it buffers (request bodies unread, output unwritten). {@link #close()} gives all of it
 * back, once, whichever way the connection ended; anything counted after that is given back at once, so nothing
 * leaks and no counter goes negative.
 *
 * <p>Request bytes are added on the engine thread and taken away on servlet threads; output bytes are set on the
 * engine thread; close runs on Jetty's. A monitor guards the counts (uncontended in practice: one small
 * critical section per frame of a streamed body and per engine pass).
 */
public final class BudgetShare {
    private final ServerBudget budget;
    private boolean connectionCounted;
    private boolean handshakeCounted;
    private long requestBytes;
    private long outputBytes;
    private long maxOutputBytes;
    private boolean closed;

    public BudgetShare(ServerBudget budget) {
        this.budget = budget;
    }

    public ServerBudget budget() {
        return budget;
    }

    /**
     * The connection opened: counts it in as a handshake. False when too many are under way (the connection
     * should end at once).
     */
    public synchronized boolean startHandshake() {
        if (closed) {
            return false;
        }
        handshakeCounted = budget.tryStartHandshake();
        if (!handshakeCounted) {
            budget.refused();
        }
        return handshakeCounted;
    }

    /** The peer's open arrived: counts the connection in. False when over the connection limit (refuse it). */
    public synchronized boolean opened() {
        endHandshake();
        if (closed) {
            return false;
        }
        connectionCounted = budget.tryOpenConnection();
        if (!connectionCounted) {
            budget.refused();
        }
        return connectionCounted;
    }

    private void endHandshake() {
        if (handshakeCounted) {
            handshakeCounted = false;
            budget.handshakeEnded();
        }
    }

    /** Request body bytes received ({@code delta > 0}) or read or dropped ({@code delta < 0}). */
    public synchronized void addRequestBytes(long delta) {
        if (closed) {
            return; // given back already
        }
        requestBytes += delta;
        budget.add(delta);
    }

    /** The connection's output now: encoded and queued bytes not yet written. */
    public synchronized void outputBytes(long bytes) {
        if (closed || bytes == outputBytes) {
            return;
        }
        budget.add(bytes - outputBytes);
        outputBytes = bytes;
        if (bytes > maxOutputBytes) {
            maxOutputBytes = bytes;
        }
    }

    /** The most output bytes (encoded and queued, unwritten) this connection has held at once. */
    public synchronized long maxOutputBytes() {
        return maxOutputBytes;
    }

    /** Gives back everything this connection counted; later counts are ignored. */
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        endHandshake();
        if (connectionCounted) {
            connectionCounted = false;
            budget.connectionClosed();
        }
        budget.add(-(requestBytes + outputBytes));
        requestBytes = 0;
        outputBytes = 0;
    }
}
