package io.amqpservlet.connector.engine;

/**
 * The transfer-frame windows of one session, AMQP 1.0 §2.5.6. Both directions are counted in transfer frames,
 * not messages or bytes. All ids are 32-bit serial numbers (RFC 1982).
 *
 * <p>Incoming: the peer may send while our incoming-window is above zero; each transfer it sends consumes one.
 * We replenish before it runs dry ({@link #needsIncomingFlow()}), so a peer that keeps sending never stalls on a
 * window we forgot to reopen. Outgoing: we may send while the peer's remote-incoming-window is above zero, as it
 * last told us in a begin or flow.
 *
 * <p>Not thread-safe: owned by the connection's engine.
 */
final class SessionWindow {
    private final int maxIncomingWindow;
    private final int outgoingWindow;
    /** Our first transfer-id, as our begin announced it: where a flow without next-incoming-id counts from. */
    private final int initialOutgoingId;

    private int nextIncomingId;
    private long incomingWindow;
    private int nextOutgoingId;
    private long remoteIncomingWindow;
    private long remoteOutgoingWindow;
    private boolean remoteBegun;
    private int holds;

    /**
     * @param maxIncomingWindow the incoming-window we advertise and restore, in transfer frames (at least 1)
     * @param initialOutgoingId our first transfer-id (next-outgoing-id in our begin)
     * @param outgoingWindow the outgoing-window we advertise
     */
    public SessionWindow(int maxIncomingWindow, int initialOutgoingId, int outgoingWindow) {
        if (maxIncomingWindow < 1) {
            throw new IllegalArgumentException("incoming window must be at least 1: " + maxIncomingWindow);
        }
        this.maxIncomingWindow = maxIncomingWindow;
        this.incomingWindow = maxIncomingWindow;
        this.nextOutgoingId = initialOutgoingId;
        this.initialOutgoingId = initialOutgoingId;
        this.outgoingWindow = outgoingWindow;
    }

    /**
     * Applies the peer's begin: AMQP 1.0 §2.5.6 initialises next-incoming-id from the peer's next-outgoing-id, and
     * the peer's incoming-window bounds what we may send.
     */
    public void onRemoteBegin(int remoteNextOutgoingId, long remoteIncomingWindow, long remoteOutgoingWindow) {
        this.nextIncomingId = remoteNextOutgoingId;
        this.remoteIncomingWindow = remoteIncomingWindow;
        this.remoteOutgoingWindow = remoteOutgoingWindow;
        this.remoteBegun = true;
    }

    /**
     * Applies a session flow from the peer (AMQP 1.0 §2.7.4): remote-incoming-window =
     * next-incoming-id(flow) + incoming-window(flow) − next-outgoing-id(ours). When the flow carries no
     * next-incoming-id (the peer has not seen our begin yet), our initial outgoing id stands in for it: the
     * transfers we sent since then came out of the window that flow states.
     */
    public void onRemoteFlow(boolean hasNextIncomingId, int flowNextIncomingId, long flowIncomingWindow,
                             int flowNextOutgoingId, long flowOutgoingWindow) {
        int base = hasNextIncomingId ? flowNextIncomingId : initialOutgoingId;
        long window = (base + flowIncomingWindow - (nextOutgoingId & 0xFFFFFFFFL)) & 0xFFFFFFFFL;
        // A flow that reports a window ending before our next id (it raced our transfers) leaves nothing to send.
        remoteIncomingWindow = window > flowIncomingWindow ? 0 : window;
        remoteOutgoingWindow = flowOutgoingWindow;
    }

    /**
     * Accounts for one transfer frame received.
     *
     * @return false when the peer sent beyond our incoming window (AMQP 1.0 §2.5.6: the session must be ended with
     *         {@code amqp:session:window-violation})
     */
    public boolean onTransferReceived() {
        if (incomingWindow <= 0) {
            return false;
        }
        incomingWindow--;
        nextIncomingId++;
        if (remoteOutgoingWindow > 0) {
            remoteOutgoingWindow--;
        }
        return true;
    }

    /**
     * Whether to send a session flow now: when at most half of the window is left, so the peer sees it reopened
     * well before it would have to stop; never while the window is held.
     */
    public boolean needsIncomingFlow() {
        return holds == 0 && incomingWindow <= maxIncomingWindow / 2;
    }

    /**
     * Stops reopening the incoming window until every hold is released: the peer may still send what is left of
     * the window, then must wait (AMQP 1.0 §2.5.6). Link credit cannot do this once a delivery has begun (credit
     * counts deliveries, not frames), so the window is how a receiver that cannot take more bytes of a large
     * message stops its sender. Holds are counted; each {@link #hold()} needs one {@link #release()}.
     */
    public void hold() {
        holds++;
    }

    /** Releases one {@link #hold()}; then ask {@link #needsIncomingFlow()} whether to reopen the window. */
    public void release() {
        if (holds == 0) {
            throw new IllegalStateException("incoming window released more often than held");
        }
        holds--;
    }

    /** Whether the incoming window is held ({@link #hold()}). */
    public boolean held() {
        return holds > 0;
    }

    /** Reopens the incoming window to its maximum; then send a flow with {@link #incomingWindow()}. */
    public void replenishIncoming() {
        incomingWindow = maxIncomingWindow;
    }

    /** Whether the peer's window lets us send one more transfer frame. */
    public boolean canSend() {
        return remoteIncomingWindow > 0;
    }

    /** Accounts for one transfer frame sent; returns its transfer-id. */
    public int onTransferSent() {
        if (remoteIncomingWindow <= 0) {
            throw new IllegalStateException("session window closed: the peer's incoming window is 0");
        }
        remoteIncomingWindow--;
        return nextOutgoingId++;
    }

    public int nextIncomingId() {
        return nextIncomingId;
    }

    /** Our incoming-window as an unsigned 32-bit value. */
    public long incomingWindow() {
        return incomingWindow;
    }

    public int nextOutgoingId() {
        return nextOutgoingId;
    }

    public long outgoingWindow() {
        return outgoingWindow & 0xFFFFFFFFL;
    }

    public long remoteIncomingWindow() {
        return remoteIncomingWindow;
    }

    public long remoteOutgoingWindow() {
        return remoteOutgoingWindow;
    }

    /** Whether the peer's begin has been applied. */
    public boolean remoteBegun() {
        return remoteBegun;
    }
}
