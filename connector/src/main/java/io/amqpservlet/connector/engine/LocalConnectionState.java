package io.amqpservlet.connector.engine;

/**
 * What this side of a connection has sent of open and close (AMQP 1.0 §2.4.1, §2.4.3): each once, in that order,
 * so a close can never be recorded without the open before it. The peer's side, and the handshake before open,
 * are {@link ConnectionPhase}.
 *
 * <pre>
 *  NOTHING_SENT ──our open──▶ OPEN_SENT ──our close (or our answer to the peer's)──▶ CLOSING ──▶ CLOSE_SENT
 * </pre>
 *
 * {@link #CLOSING} lasts while the close is being made: the sessions and links it ends are abandoned and their
 * handlers told, and a handler that closes the connection again from there is not heard (one close per connection).
 *
 * An acceptor sends its open when the peer's arrives (a refused open still sends open, then close, §2.4.2); an
 * initiator sends it with its AMQP header. A connection ended before its open went out (a refused header, failed
 * SASL) stays {@link #NOTHING_SENT}: there is no AMQP connection to close.
 */
enum LocalConnectionState {
    /** Neither open nor close has been written. */
    NOTHING_SENT,
    /** Our open has been written, our close has not. */
    OPEN_SENT,
    /** Our close is being made: its sessions and links are abandoned and their handlers told; the close follows. */
    CLOSING,
    /** Our close has been written: nothing but the peer's close matters now (§2.4.3). */
    CLOSE_SENT
}
