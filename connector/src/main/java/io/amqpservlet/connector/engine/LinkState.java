package io.amqpservlet.connector.engine;

/**
 * Where a link is in its life (AMQP 1.0 §2.6.3 attaching, §2.6.6 closing), both sides in one value: a link is
 * attached by an attach from each side and closed by a detach from each. Refusing a peer's link is an attach with
 * a null terminus followed at once by a detach with the reason (§2.6.3); a link whose session or connection ends
 * goes with it, without frames.
 *
 * <pre>
 *                 DETACHED
 *       our attach │     │ peer's attach
 *                  ▼     ▼
 *        ATTACH_SENT     ATTACH_RECEIVED ──refused: attach with a null terminus, then detach──▶ REFUSED
 *                  │     │ our attach                                                            │
 *    peer's attach ▼     ▼                                                                       │
 *                 ATTACHED                                                                       │
 *       our detach │     │ peer's detach (ours answers it at once)                               │
 *                  ▼     │                                                                       │
 *        DETACH_SENT     │                                                                       │
 *    peer's detach │     │                                                                       │
 *                  ▼     ▼                                                                       │
 *                  CLOSED ◀──────────────────────────peer's detach──────────────────────────────┘
 *
 *  ATTACH_SENT ──our detach──▶ DETACH_SENT (the peer's attach may still come; its detach ends the link),
 *                           or CLOSED when the session has no peer to answer (the link is forgotten at once)
 *  any state ──its session or connection ends──▶ CLOSED (never left)
 * </pre>
 *
 * The remote handle is known from the peer's attach on ({@link Link#remoteHandle()}); a link we detach before the
 * peer answered our attach stays {@link #DETACH_SENT} when that answer comes, and ends with the peer's detach.
 */
enum LinkState {
    /** Made, not attached by either side yet (only within the step that attaches it). */
    DETACHED,
    /** Our attach is out; the peer's has not arrived. Messages may be given already: they wait for credit. */
    ATTACH_SENT,
    /** The peer's attach arrived; ours answers it once the application accepted the link. */
    ATTACH_RECEIVED,
    /** Both attaches exchanged, neither side detached: the link is open. */
    ATTACHED,
    /** Our detach is out; the peer's detach will end the link. */
    DETACH_SENT,
    /** We refused the peer's attach: our attach with a null terminus and our detach are out (§2.6.3). */
    REFUSED,
    /** Detached on both sides, or ended with its session or connection. */
    CLOSED;

    /**
     * Whether this side is done with the link: our detach is out, or the link went with its session. Frames for
     * it are dropped, it is not detached again, and the application has been told it ended.
     */
    boolean detachedHere() {
        return this == DETACH_SENT || this == REFUSED || this == CLOSED;
    }
}
