package io.amqpservlet.jetty.internal.attach;

/**
 * Where a broker attachment is in its life ({@link Reconnection} keeps it):
 *
 * <pre>
 *            start                  every request link (and the relay) answered
 *   STOPPED ───────▶ CONNECTING ───────────────────────────────────────────▶ ATTACHED
 *      ▲                │  ▲  cannot connect, or the connection closed         │
 *      │                │  └──── delay over ──── BACKING_OFF ◀──────────────────┘
 *      │                └──────────────────────────────▶ (cannot connect: BACKING_OFF too)
 *      └──────── stop (from any state: no further attempt; the connection is closed) ─────────
 * </pre>
 *
 * Each failure doubles the delay before the next attempt, from the minimum up to the maximum (with jitter), and moves
 * on to the next broker of the list; an attachment that gets ATTACHED starts from the shortest delay again.
 */
public enum AttachmentState {
    /** Not started, or stopped: no connection is made, and what the broker ends is no reason to reconnect. */
    STOPPED,
    /** A connection to a broker is being made, or its links are being attached. */
    CONNECTING,
    /** Connected, with every request link (and the relay, if any) attached: requests flow. */
    ATTACHED,
    /** The last attempt failed or the connection was lost: waiting to connect to the next broker. */
    BACKING_OFF
}
