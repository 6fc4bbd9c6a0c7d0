package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;

/**
 * How one connection opens and ends (AMQP 1.0 §2.4), for its {@link Engine}: the peer's side and the handshake
 * ({@link ConnectionPhase}), what we have sent of open and close ({@link LocalConnectionState}), what the two opens
 * settled (the peer's identity, max-frame-size and channel-max) and the errors the two closes carried. It sends our
 * open and close, answers the peer's, ends the connection on a protocol violation, and tells the application once
 * when the connection is over ({@link EngineHandler#onClosed}). The handshake before open is {@link Handshake}'s,
 * which reports its steps here; sessions are the {@link SessionTable}'s, which a close abandons.
 *
 * <p>Everything here runs on the engine's thread and allocates nothing until a close carries or needs an error.
 */
final class ConnectionLifecycle {
    private final Engine engine;

    /** The peer's side and the handshake (docs/connector.md, "Connection lifecycle"). */
    private ConnectionPhase phase = ConnectionPhase.AWAITING_HEADER;
    /** What we have sent of open and close. */
    private LocalConnectionState local = LocalConnectionState.NOTHING_SENT;
    private String identity;
    private int remoteMaxFrameSize = FrameHeader.MIN_MAX_FRAME_SIZE;
    private int remoteChannelMax = 0xFFFF;
    /** Made when a close carries or needs one: most connections never close with an error (docs/design.md §2). */
    private ErrorCondition remoteError;
    private ErrorCondition localError;

    ConnectionLifecycle(Engine engine) {
        this.engine = engine;
    }

    // ------------------------------------------------------------------------------------------ state

    /** How far the peer's side of the connection has got. */
    ConnectionPhase phase() {
        return phase;
    }

    /** What we have sent of open and close. */
    LocalConnectionState localState() {
        return local;
    }

    /** See {@link Engine#isDone()}. */
    boolean isDone() {
        return phase == ConnectionPhase.DONE;
    }

    /** See {@link Engine#isOpen()}. */
    boolean isOpen() {
        return phase == ConnectionPhase.OPENED && local == LocalConnectionState.OPEN_SENT;
    }

    /** See {@link Engine#closeSent()}. */
    boolean closeSent() {
        return local == LocalConnectionState.CLOSE_SENT;
    }

    /** Whether no frame may be written any more: our close is out (AMQP 1.0 §2.4.3) or the connection is over. */
    boolean silenced() {
        return local == LocalConnectionState.CLOSE_SENT || phase == ConnectionPhase.DONE;
    }

    /** See {@link Engine#identity()}. */
    String identity() {
        return identity;
    }

    /** The highest channel the peer accepts (from its open; 65535 before). */
    int remoteChannelMax() {
        return remoteChannelMax;
    }

    /** See {@link Engine#remoteMaxFrameSize()}. */
    int remoteMaxFrameSize() {
        return remoteMaxFrameSize;
    }

    /** See {@link Engine#remoteError()}. */
    ErrorCondition remoteError() {
        ErrorCondition e = remoteError;
        if (e == null) {
            e = new ErrorCondition();
            remoteError = e;
        }
        return e;
    }

    private ErrorCondition localError() {
        ErrorCondition e = localError;
        if (e == null) {
            e = new ErrorCondition();
            localError = e;
        }
        return e;
    }

    /** Throws unless sessions may begin: our open is out and our close is not. */
    void requireOpenForWork() {
        if (silenced()) {
            throw new IllegalStateException("connection is closed");
        }
        if (local == LocalConnectionState.NOTHING_SENT) {
            throw new IllegalStateException("open has not been sent yet");
        }
    }

    /**
     * Moves the peer's side on; a connection that is over stays over, whatever a callback made of it before the
     * step that called this finished.
     */
    private void advance(ConnectionPhase next) {
        if (phase != ConnectionPhase.DONE) {
            phase = next;
        }
    }

    // ------------------------------------------------------------------------------------------ handshake steps

    void saslSucceeded(String who) {
        identity = who;
        advance(ConnectionPhase.AWAITING_AMQP_HEADER);
        engine.handler.onAuthenticated(engine, who);
    }

    /** The peer's first sasl-init arrived: the application's reason to refuse the login, or null. */
    String saslInitArrived(String mechanism) {
        return engine.handler.onSaslInit(engine, mechanism);
    }

    void saslFailed(String mechanism, String reason) {
        engine.handler.onAuthenticationFailed(engine, mechanism, reason);
    }

    void expectSasl() {
        advance(ConnectionPhase.SASL);
    }

    void expectAmqpHeader() {
        advance(ConnectionPhase.AWAITING_AMQP_HEADER);
    }

    /** The AMQP header was exchanged: next comes the peer's open. */
    void expectOpen(boolean anonymous) {
        if (anonymous && identity == null) {
            identity = "anonymous";
        }
        advance(ConnectionPhase.AWAITING_OPEN);
    }

    // ------------------------------------------------------------------------------------------ open

    void sendOpen() {
        if (local != LocalConnectionState.NOTHING_SENT || phase == ConnectionPhase.DONE) {
            return; // AMQP 1.0 §2.4.1: one open per connection, and none once it is over
        }
        EngineConfig config = engine.config;
        Open open = engine.out().open().clear();
        open.containerId(config.containerId());
        if (!engine.acceptor() && config.hostname() != null) {
            open.hostname(config.hostname());
        }
        open.maxFrameSize(config.maxFrameSizeBytes());
        open.channelMax(config.channelMax());
        long advertised = engine.deadlines.idleTimeOutToAdvertise();
        if (advertised > 0) {
            open.idleTimeOutMillis(advertised);
        }
        if (engine.acceptor()) {
            open.offeredCapabilities().clear().add(Capabilities.ANONYMOUS_RELAY);
        }
        byte[] properties = config.connectionPropertiesEncoded();
        if (properties != null) {
            open.properties().set(properties, 0, properties.length);
        }
        engine.writeFrame(0, open);
        local = LocalConnectionState.OPEN_SENT;
        engine.openSent();
    }

    void onRemoteOpen(Open o) {
        ConnectionDeadlines deadlines = engine.deadlines;
        long maxFrame = o.maxFrameSize();
        remoteMaxFrameSize = (int) Math.min(Integer.MAX_VALUE, maxFrame);
        remoteChannelMax = o.channelMax();
        deadlines.peerIdleTimeoutMillis(o.hasIdleTimeOut() ? o.idleTimeOutMillis() : 0);
        ErrorCondition refusal = engine.handler.onOpen(engine, o);
        if (engine.acceptor()) {
            sendOpen();
        }
        advance(ConnectionPhase.OPENED);
        deadlines.handshakeFinished();
        engine.handshakeDone();
        long peerIdle = deadlines.peerIdleTimeoutMillis();
        long minPeerIdle = engine.config.minPeerIdleTimeoutMillis();
        if (maxFrame < FrameHeader.MIN_MAX_FRAME_SIZE) {
            remoteMaxFrameSize = FrameHeader.MIN_MAX_FRAME_SIZE;
            connectionError(ErrorConditions.INVALID_FIELD, "max-frame-size " + maxFrame + " is below 512");
        } else if (peerIdle > 0 && peerIdle < minPeerIdle) {
            // §2.4.5: a peer that cannot keep to a proposed idle timeout closes with an error that says why.
            connectionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "idle-time-out " + peerIdle
                    + " ms is below the shortest this side keeps, " + minPeerIdle + " ms");
        } else if (refusal != null) {
            // AMQP 1.0 §2.4.2: a refused connection still answers open, then closes with the reason.
            close(refusal);
        }
    }

    // ------------------------------------------------------------------------------------------ close

    void onRemoteClose(Close close) {
        remoteError().set(close.error());
        boolean answer = local != LocalConnectionState.CLOSE_SENT;
        if (answer) {
            local = LocalConnectionState.CLOSING; // the handlers told below see the connection ending, not open
        }
        engine.sessions.abandonAll(close.error().isNull() ? null : remoteError);
        if (answer) {
            engine.writeFrame(0, engine.out().close().clear());
            local = LocalConnectionState.CLOSE_SENT;
        }
        finish();
    }

    /** See {@link Engine#close(Symbol, String)}. */
    void close(Symbol condition, String description) {
        if (silenced() || local == LocalConnectionState.CLOSING) {
            return; // AMQP 1.0 §2.4.3: one close per connection; the reason given first stands
        }
        ErrorCondition error = localError();
        error.clear();
        if (condition != null) {
            error.condition(condition).description(description);
        }
        close(error);
    }

    private void close(ErrorCondition error) {
        if (silenced() || local == LocalConnectionState.CLOSING) {
            return;
        }
        if (error != null && error != localError && !error.isNull()) {
            localError().set(error); // the application's refusal: onClosed reports it as ours
        }
        if (local == LocalConnectionState.NOTHING_SENT || !phase.afterHeaders()) {
            // No AMQP connection to close yet: end the transport.
            failTransport(error.isNull() ? null : error);
            return;
        }
        Close c = engine.out().close().clear();
        if (error != null && !error.isNull()) {
            c.error().set(error);
        }
        // The handlers told of the sessions and links that end see the connection closing: not open, and a close
        // they ask for now is the one already being made.
        local = LocalConnectionState.CLOSING;
        engine.sessions.abandonAll(null);
        engine.writeFrame(0, c);
        local = LocalConnectionState.CLOSE_SENT;
    }

    /** Ends the connection with an error after a protocol violation; the transport closes once output is written. */
    void connectionError(Symbol condition, String description) {
        close(condition, description);
        finish();
    }

    /** For broken framing or undecodable frames: nothing more can be read. */
    void fatal(Symbol condition, String description) {
        if (phase == ConnectionPhase.DONE) {
            return;
        }
        if (phase.afterHeaders()) {
            sendOpen(); // AMQP 1.0 §2.4.2: close only follows an open; no-op when ours went out already
            connectionError(condition, description);
        } else {
            engine.handshake().fail(condition, description);
        }
    }

    /** Ends the transport without a close frame (before open, or after a fatal error). */
    void failTransport(ErrorCondition error) {
        if (error != null && error != localError) {
            localError().set(error);
        }
        finish();
    }

    /** Marks the connection over and tells the application once. */
    void finish() {
        if (phase == ConnectionPhase.DONE) {
            return; // the application was told already
        }
        phase = ConnectionPhase.DONE;
        engine.sessions.abandonAll(null);
        ErrorCondition remote = remoteError;
        ErrorCondition ours = localError;
        engine.handler.onClosed(engine, remote != null && !remote.isNull() ? remote
                : ours != null && !ours.isNull() ? ours : null);
    }

    @Override
    public String toString() {
        return "phase=" + phase + ", local=" + local + ", identity=" + identity;
    }
}
