package io.amqpservlet.jetty.internal.connection;

/**
 * Where an AMQP connection is in its life, as its engine pass sees it (the engine's own handshake phases are the
 * engine's). Kept by the pass, on the engine thread; events from other threads (a graceful stop, Jetty closing the end
 * point) reach it through the connection's inbox.
 *
 * <pre>
 *        onOpen (TLS client certificate wanted)      first bytes after the TLS handshake
 *   NEW ─────────────────────────────────▶ AWAITING_TLS ─────────────────────────────────┐
 *    │ onOpen                                                                             ▼
 *    └──────────────────────────────────────────────────────────────────────────────▶ ACTIVE
 *                                                                                         │ graceful stop
 *                                                                                         ▼
 *   any state but CLOSED ── peer done, write failed, close timeout, refusal ──▶ CLOSING ◀─ STOPPING
 *   any state ── Jetty's onClose ──▶ CLOSED
 * </pre>
 */
enum ConnectionState {
    /** Made; Jetty has not opened it yet. */
    NEW,
    /** Open, its engine not made yet: SASL EXTERNAL needs the certificate the TLS handshake will have established. */
    AWAITING_TLS,
    /** The engine runs: handshake, then requests. */
    ACTIVE,
    /** A graceful stop: credit taken back, requests arriving released, those in flight finish, then a forced close. */
    STOPPING,
    /** The end point is closing: nothing more is read or written. */
    CLOSING,
    /** Jetty closed the connection; requests still being served were failed. */
    CLOSED;

    /** {@return whether the end point is (being) closed} */
    boolean closing() {
        return this == CLOSING || this == CLOSED;
    }
}
