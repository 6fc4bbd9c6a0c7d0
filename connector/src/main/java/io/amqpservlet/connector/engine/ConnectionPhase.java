package io.amqpservlet.connector.engine;

/**
 * How far a connection has got on the peer's side: what the engine reads the peer's next bytes as (AMQP 1.0 §2.2
 * protocol headers, §5.3 SASL, §2.4.1 open), and {@link #DONE} once the connection is over, however it ended. What
 * this side has sent is kept apart, in {@link LocalConnectionState}: an initiator sends its open with its AMQP
 * header, before the peer's header has arrived, so the two halves move independently until open.
 *
 * <pre>
 *  AWAITING_HEADER ──SASL header──▶ SASL ──sasl-outcome ok──▶ AWAITING_AMQP_HEADER
 *         │                                                           │
 *         │ AMQP header (no SASL)                                     │ AMQP header
 *         ▼                                                           │
 *   AWAITING_OPEN ◀───────────────────────────────────────────────────┘
 *         │ the peer's open
 *         ▼
 *      OPENED
 *
 *  any phase ──peer's close, refused header, failed SASL, fatal error, timeout──▶ DONE (never left)
 * </pre>
 */
enum ConnectionPhase {
    /** Waiting for the peer's first protocol header (§2.2). */
    AWAITING_HEADER,
    /** SASL frames are exchanged (§5.3.2). */
    SASL,
    /** SASL succeeded; the AMQP protocol header comes next (§5.3.2). */
    AWAITING_AMQP_HEADER,
    /** The AMQP headers are exchanged; the peer's open comes next (§2.4.1). */
    AWAITING_OPEN,
    /** The peer's open arrived (and ours went out before or with it). */
    OPENED,
    /** The connection is over: the transport writes what output remains, then closes. */
    DONE;

    /**
     * Whether the protocol headers (and SASL) are behind and the connection is not over: the peer's bytes are
     * AMQP frames, so a connection error can be answered with close (§2.4.3) rather than by ending the transport.
     */
    boolean afterHeaders() {
        return this == AWAITING_OPEN || this == OPENED;
    }

    /** Whether the next bytes from the peer are a protocol header rather than a frame. */
    boolean readsHeader() {
        return this == AWAITING_HEADER || this == AWAITING_AMQP_HEADER;
    }
}
