package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.ErrorConditions;

/**
 * Every deadline of one connection, and the time state each runs on, for its {@link Engine}:
 * <ul>
 *   <li>the peer's silence: our idle timeout ({@link EngineConfig#idleTimeoutMillis()}, AMQP 1.0 §2.4.5), and the
 *       idle-time-out our open announces (half of it, or shorter when the application asks);</li>
 *   <li>our silence: a heartbeat (an empty frame) at half the peer's idle-time-out, from its open;</li>
 *   <li>the handshake: an acceptor's header, SASL and open within {@link EngineConfig#saslTimeoutMillis()};</li>
 *   <li>the frame the peer has begun ({@link EngineConfig#partialFrameTimeoutMillis()}, its clock in
 *       {@link PartialFrameClock});</li>
 *   <li>the excusal of a pause of ours (a long GC, a suspended process or virtual machine): once per silence and once
 *       per frame, the close is put off by a grace.</li>
 * </ul>
 * The engine tells it what time it is (the clock its caller passes in; nothing here reads one) and when frames went in
 * and out; this class decides when a deadline has passed and has the engine close, fail the handshake or write a
 * heartbeat. It allocates nothing, and what the engine calls per frame ({@link #wroteFrame()}) is one field write.
 */
final class ConnectionDeadlines {
    private final Engine engine;
    private final EngineConfig config;

    /** The time last passed in ({@link Engine#process}, {@link Engine#tick}): the frames written since go by it. */
    private long nowMillis;
    private long lastInputMillis;
    /** The peer's current silence has been excused once for a pause of ours ({@link #excusePause}). */
    private boolean pauseExcused;
    private long lastOutputMillis;
    /** When an acceptor's handshake (header, SASL and open) must be done; Long.MAX_VALUE when none runs. */
    private long handshakeDeadlineMillis = Long.MAX_VALUE;
    /** How long the frame the peer has begun has been incomplete ({@link EngineConfig#partialFrameTimeoutMillis()}). */
    private final PartialFrameClock partialFrame = new PartialFrameClock();
    /** What our open announces as idle-time-out when shorter than the default; 0 for the default. */
    private long advertisedIdleTimeoutMillis;
    /** The idle-time-out of the peer's open; 0 before it or when it has none (then no heartbeats are due). */
    private long remoteIdleTimeoutMillis;

    ConnectionDeadlines(Engine engine, EngineConfig config) {
        this.engine = engine;
        this.config = config;
    }

    /** The connection starts at {@code nowMillis}: silence counts from now, an acceptor's handshake deadline runs. */
    void start(long nowMillis) {
        this.nowMillis = nowMillis;
        lastInputMillis = nowMillis;
        lastOutputMillis = nowMillis;
        if (engine.acceptor() && config.saslTimeoutMillis() > 0) {
            handshakeDeadlineMillis = nowMillis + config.saslTimeoutMillis();
        }
    }

    // ------------------------------------------------------------------------------------------ idle-time-outs

    /** See {@link Engine#advertiseIdleTimeoutMillis}. */
    void advertiseIdleTimeoutMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("idle timeout must not be negative: " + millis);
        }
        this.advertisedIdleTimeoutMillis = millis;
    }

    /** {@return the idle-time-out our open announces, in milliseconds; 0 for none} */
    long idleTimeOutToAdvertise() {
        // AMQP 1.0 §2.4.5: advertise half the real threshold, so a peer keeping to it has slack to spare.
        long advertised = config.idleTimeoutMillis() > 0 ? Math.max(1, config.idleTimeoutMillis() / 2) : 0;
        if (advertisedIdleTimeoutMillis > 0 && (advertised == 0 || advertisedIdleTimeoutMillis < advertised)) {
            advertised = advertisedIdleTimeoutMillis; // the handler asked the peer for more frequent frames
        }
        return advertised;
    }

    /** The peer's open announced {@code millis} as its idle-time-out (0 for none): heartbeats keep to half of it. */
    void peerIdleTimeoutMillis(long millis) {
        remoteIdleTimeoutMillis = millis;
    }

    /** {@return the idle-time-out of the peer's open, in milliseconds; 0 before it or when it has none} */
    long peerIdleTimeoutMillis() {
        return remoteIdleTimeoutMillis;
    }

    /** The peer's open arrived: the handshake deadline is over. */
    void handshakeFinished() {
        handshakeDeadlineMillis = Long.MAX_VALUE;
    }

    // ------------------------------------------------------------------------------------------ input and output

    /** {@return the time of the engine's last call that passed one (process, tick, start)} */
    long nowMillis() {
        return nowMillis;
    }

    /** {@link Engine#process} was called at {@code nowMillis} with {@code length} bytes: any byte ends the silence. */
    void receiving(int length, long nowMillis) {
        this.nowMillis = nowMillis;
        if (length > 0) {
            lastInputMillis = nowMillis;
            pauseExcused = false;
        }
    }

    /**
     * {@link Engine#process} used {@code used} of the {@code length} bytes it was offered: what is left is a frame the
     * peer has begun. Closes the connection when that frame is past its deadline.
     *
     * @return true when the connection was closed for it
     */
    boolean closedForPartialFrame(byte[] bytes, int offset, int length, int used, long nowMillis) {
        partialFrame.processed(bytes, offset, length, used, nowMillis);
        // Output at its bound now stops the transport reading: the frame cannot progress until it drains.
        partialFrame.observeOutput(engine.outputFull(), nowMillis);
        if (nowMillis >= partialFrameDeadline()) {
            closeForPartialFrame();
            return true;
        }
        return false;
    }

    /** A frame was written: our silence counts from the time last passed in. */
    void wroteFrame() {
        lastOutputMillis = nowMillis;
    }

    // ------------------------------------------------------------------------------------------ deadlines

    /** See {@link Engine#idleTimeoutPassed}. */
    boolean idleTimeoutPassed(long nowMillis) {
        long idle = config.idleTimeoutMillis();
        ConnectionPhase phase = engine.lifecycle.phase();
        return idle > 0 && phase != ConnectionPhase.DONE && phase.afterHeaders()
                && engine.lifecycle.localState() != LocalConnectionState.CLOSE_SENT && nowMillis >= lastInputMillis + idle;
    }

    /** See {@link Engine#partialFrameTimeoutPassed}. */
    boolean partialFrameTimeoutPassed(long nowMillis) {
        return engine.lifecycle.phase() != ConnectionPhase.DONE && nowMillis >= partialFrameDeadline();
    }

    /** See {@link Engine#excusePause}. */
    boolean excusePause(long nowMillis, long graceMillis) {
        boolean frameExcused = partialFrameTimeoutPassed(nowMillis)
                && partialFrame.excusePause(nowMillis, graceMillis, config.partialFrameTimeoutMillis());
        if (pauseExcused || !idleTimeoutPassed(nowMillis)) {
            return frameExcused;
        }
        pauseExcused = true;
        long idle = config.idleTimeoutMillis();
        lastInputMillis = nowMillis - idle + Math.max(1, Math.min(graceMillis, idle));
        return true;
    }

    /** See {@link Engine#tick}. */
    long tick(long nowMillis) {
        this.nowMillis = nowMillis;
        ConnectionPhase phase = engine.lifecycle.phase();
        if (phase == ConnectionPhase.DONE) {
            return Long.MAX_VALUE;
        }
        long next = Long.MAX_VALUE;
        if (phase != ConnectionPhase.OPENED && engine.acceptor()) {
            // The deadline runs until the peer's open: a peer that sends only a protocol header, with or without
            // SASL, must not hold a connection until the idle timeout.
            if (nowMillis >= handshakeDeadlineMillis) {
                engine.handshake().fail(ErrorConditions.RESOURCE_LIMIT_EXCEEDED,
                        "handshake (SASL and open) not finished within " + config.saslTimeoutMillis() + " ms");
                return Long.MAX_VALUE;
            }
            next = handshakeDeadlineMillis;
        }
        partialFrame.observeOutput(engine.outputFull(), nowMillis);
        long frameDeadline = partialFrameDeadline();
        if (nowMillis >= frameDeadline) {
            closeForPartialFrame();
            return Long.MAX_VALUE;
        }
        next = Math.min(next, frameDeadline);
        long idle = config.idleTimeoutMillis();
        if (idle > 0 && phase.afterHeaders() && engine.lifecycle.localState() != LocalConnectionState.CLOSE_SENT) {
            long deadline = lastInputMillis + idle;
            if (nowMillis >= deadline) {
                engine.lifecycle.connectionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED,
                        "no frame received for " + idle + " ms");
                return Long.MAX_VALUE;
            }
            next = Math.min(next, deadline);
        }
        if (remoteIdleTimeoutMillis > 0 && engine.lifecycle.localState() == LocalConnectionState.OPEN_SENT) {
            // AMQP 1.0 §2.4.5: send something at least every half of the peer's idle timeout.
            long interval = Math.max(1, remoteIdleTimeoutMillis / 2);
            if (nowMillis - lastOutputMillis >= interval) {
                engine.writeHeartbeat();
                lastOutputMillis = nowMillis;
            }
            next = Math.min(next, lastOutputMillis + interval);
        }
        return next;
    }

    /**
     * When the frame the peer has begun must be complete; Long.MAX_VALUE when there is none, when the limit is off,
     * or while the handshake deadline runs (it covers the header, SASL and open) or our close is out.
     */
    private long partialFrameDeadline() {
        if (!engine.lifecycle.phase().afterHeaders() || handshakeDeadlineMillis != Long.MAX_VALUE
                || engine.lifecycle.localState() == LocalConnectionState.CLOSE_SENT) {
            return Long.MAX_VALUE;
        }
        return partialFrame.deadline(config.partialFrameTimeoutMillis());
    }

    private void closeForPartialFrame() {
        engine.lifecycle.connectionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED,
                partialFrame.describe(config.partialFrameTimeoutMillis()));
    }
}
