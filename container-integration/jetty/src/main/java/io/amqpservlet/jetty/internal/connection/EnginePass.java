package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.budget.Limit;
import io.amqpservlet.jetty.internal.exchange.CompletedCallbacks;
import io.amqpservlet.jetty.internal.exchange.Exchange;
import io.amqpservlet.jetty.internal.exchange.RequestBody;
import io.amqpservlet.jetty.internal.exchange.ResponsePart;
import io.amqpservlet.jetty.internal.exchange.ServingHandler;
import io.amqpservlet.jetty.internal.log.PeerLog;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The serialised pass over one connection's engine: whatever thread brought an event (input, a finished write, an
 * answered exchange, a tick) runs the pass if no other thread is, until every recorded event has been handled;
 * later callers only count themselves in and leave (a work-in-progress counter, as Jetty's own flushers serialise
 * writers). The engine takes no locks, so this is what keeps it on one thread at a time. No lock is held while
 * encoding (a servlet thread encodes its response before handing it in) or during I/O, and nothing here blocks.
 *
 * <p>A pass is a fixed order of steps, each a method below: make the engine once TLS allows ({@link #awaitTls}),
 * follow the server's byte budget ({@link #followBudget}), take the write's outcome ({@link #takeWriteOutcome}),
 * read ({@link #read}), take what the servlet side handed back ({@link #takeHandedBack}), step a graceful stop, read
 * once more when the peer's silence would close the connection (the socket may hold what the selector has not
 * reported yet) and, after a pause of the process, give the selector a moment, let the engine and the handler tick,
 * end a close nobody answers ({@link #closeIfUnanswered}), write ({@link #write}: held back a moment while other
 * requests are being served), count the output against the budget, trim what an idle connection kept, schedule the
 * next tick, give scratch back when quiet, and close when the engine is done ({@link #closeWhenDone}). The
 * connection's life is a {@link ConnectionState}.
 */
final class EnginePass implements BudgetShare.Owner, Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(EnginePass.class);
    private static final VarHandle WORK;
    /** A tick this late means the process (or its scheduler) was paused. */
    private static final long LATE_TICK_MILLIS = 200;
    /** After a pause, how long the selector has to deliver the peer's frames before the silence is judged. */
    private static final long PAUSE_GRACE_MILLIS = 1_000;

    static {
        try {
            WORK = MethodHandles.lookup().findVarHandle(EnginePass.class, "work", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AmqpConnection connection;
    private final ConnectionSettings settings;
    private final ServingHandler handler;
    private final BudgetShare budget;
    private final ConnectionInbox inbox;
    private final EndPointIo io;
    private final ConnectionStop stop;
    private final Executor executor;
    private final Scheduler scheduler;
    /** Events counted in and not yet handled; the thread that raised it from 0 runs the pass. */
    @SuppressWarnings("unused") // through WORK
    private volatile int work;
    /**
     * Null until the TLS handshake is done when the identity for SASL EXTERNAL comes from the client's certificate
     * ({@link #startEngine}); an engine reads its identity once, when it is made.
     */
    private volatile Engine engine;
    // Engine thread.
    private ConnectionState state = ConnectionState.NEW;
    private Scheduler.Task tick;
    private long tickAtMillis;
    /** Set while this connection waits for the server budget to have room (credit paused meanwhile). */
    private volatile boolean waitingForRoom;
    /** Set while this connection's partial frame waits to be admitted to grow (reading paused meanwhile). */
    private volatile boolean waitingForFrameRoom;
    /** What this connection's partial frame counts in the server budget now (engine thread). */
    private int countedPartialFrameBytes;
    /** What this connection's partial frame reserved when admitted to grow, 0 when it is not (engine thread). */
    private long admittedReservation;
    /** Null until this connection first holds its output back. */
    private OutputCoalescing coalescing;
    /**
     * Run by the budget when it has room again: a pass, which grants credit again. Made when the budget first runs
     * out while this connection is open (most connections never see it so).
     */
    private Runnable roomAgain;

    EnginePass(AmqpConnection connection, ConnectionSettings settings, ConnectionHandlers handlers, Executor executor,
               Scheduler scheduler) {
        this.connection = connection;
        this.settings = settings;
        this.executor = executor;
        this.scheduler = scheduler;
        this.inbox = new ConnectionInbox(this);
        this.io = new EndPointIo(connection, inbox);
        this.stop = new ConnectionStop(settings.closeTimeoutMillis());
        this.budget = new BudgetShare(settings.budget(), this);
        EndPoint endPoint = connection.getEndPoint();
        // Not endPoint.isSecure() alone on a TLS end point: before the handshake it would compute and cache the end
        // point's SslSessionData without the client's certificate, which SASL EXTERNAL then could not see.
        boolean secure = endPoint instanceof SslConnection.SslEndPoint || endPoint.isSecure();
        this.handler = handlers.newHandler(connection, inbox, budget, secure);
        if (!(settings.saslExternal() && secure)) {
            startEngine(-1);
        }
    }

    ServingHandler handler() {
        return handler;
    }

    /** {@return where the connection is in its life} Read on other threads only to describe it (a moment's value). */
    ConnectionState state() {
        return state;
    }

    ConnectionInbox inbox() {
        return inbox;
    }

    EndPointIo io() {
        return io;
    }

    BudgetShare budget() {
        return budget;
    }

    Engine engine() {
        return engine;
    }

    int maxPendingOutputBytes() {
        return settings.engineConfig().maxPendingOutputBytes();
    }

    /**
     * Makes the engine, with the identity TLS established for SASL EXTERNAL (none on a plain socket), and starts it
     * at {@code nowMillis} unless that is negative (the constructor: {@link #open} starts it).
     */
    Engine startEngine(long nowMillis) {
        EndPoint endPoint = connection.getEndPoint();
        String externalIdentity = nowMillis < 0 ? null : ClientCertificateIdentity.of(endPoint);
        handler.engineStarting(endPoint.getIdleTimeout(), externalIdentity);
        Engine e = new Engine(settings.engineConfig(), handler, externalIdentity);
        engine = e;
        if (!(endPoint instanceof SslConnection.SslEndPoint)) {
            // From now on the connection ignores the end point's idle timeout (the engine's own timeouts and
            // heartbeats rule), so its scheduled check would only wake up to be ignored: 0 cancels it, one scheduler
            // task less per idle connection (docs/design.md §2). A TLS end point keeps it: it belongs to the TLS layer.
            endPoint.setIdleTimeout(0);
        }
        if (nowMillis >= 0) {
            e.start(nowMillis);
            state = ConnectionState.ACTIVE;
        }
        return e;
    }

    // ------------------------------------------------------------------------------------------ Jetty's events

    /** Jetty opened the connection (before any event can reach the engine). */
    void open() {
        InetAddress peer = peerAddress(connection.getEndPoint());
        Limit refused = budget.startHandshake(peer, nowMillis());
        if (refused != null) {
            // Too many connections between accept and open (server-wide or from this address) and none of them
            // stalled: no AMQP connection exists yet to refuse, so the transport ends before any frame.
            if (LOG.isInfoEnabled()) {
                long leftOut = settings.serving().peerLog().permit(PeerLog.Kind.REFUSAL);
                if (leftOut >= 0) {
                    LOG.info("AMQP connection from {} refused: {}{}",
                            PeerLog.address(connection.getEndPoint().getRemoteSocketAddress()),
                            budget.handshakeRefusal(refused, peer), PeerLog.leftOut(leftOut));
                }
            }
            closeEndPoint(null);
            return;
        }
        Engine e = engine;
        if (e != null) {
            e.start(nowMillis());
            state = ConnectionState.ACTIVE;
        } else {
            state = ConnectionState.AWAITING_TLS; // the first bytes after the TLS handshake make the engine
        }
        if (io.hasUpgradeInput()) {
            inbox.fillableAgain(); // the detector's bytes first; the read then asks for more itself
        } else {
            connection.fillInterested();
        }
        inbox.wakeUp(); // schedules the first tick (the SASL deadline)
    }

    /**
     * Any thread: the server is stopping gracefully. Requests that arrive from now on are released (docs/design.md
     * §3: shutdown → released); once the requests in flight have been answered, the connection is closed with
     * {@code amqp:connection:forced}.
     */
    void stopGracefully() {
        handler.stopAdmitting();
        inbox.stop();
    }

    /**
     * Any thread: run by the budget when this connection's partial frame may be admitted to grow (the pass itself is
     * the task, so waiting costs no object): a pass that reads, and asks to be admitted again.
     */
    @Override
    public void run() {
        waitingForFrameRoom = false;
        inbox.fillableAgain();
        executor.execute(inbox);
    }

    /**
     * Any thread: the budget ended this connection's stalled handshake to make room for a newer connection; the
     * next pass closes it, as the handshake timeout would have.
     */
    @Override
    public void evicted() {
        inbox.evict();
    }

    /**
     * The peer's IP address: behind Jetty's {@code ProxyConnectionFactory} (PROXY protocol) the end point is the
     * proxy's view and names the client the proxy serves, not the proxy. Null when the transport has none.
     */
    private static InetAddress peerAddress(EndPoint endPoint) {
        SocketAddress remote = endPoint.getRemoteSocketAddress();
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** Jetty closed the connection (any thread). */
    void closed() {
        budget.close(); // every close path gives the connection's part of the server budget back
        Scheduler.Task t = tick;
        if (t != null) {
            t.cancel();
        }
        inbox.connectionClosed(); // responses streaming on the engine thread fail their waiting writes
    }

    // ------------------------------------------------------------------------------------------ the pass

    /**
     * Runs the pass on this thread if no other thread is, until every recorded event has been handled; otherwise
     * leaves the work to the thread that is running it.
     *
     * @param nonBlocking the caller must not block (the selector's thread, reading an open connection or completing
     *                    a write): send callbacks that may block are completed on the pool instead
     */
    void drive(boolean nonBlocking) {
        if ((int) WORK.getAndAdd(this, 1) != 0) {
            return;
        }
        int missed = 1;
        while (true) {
            try {
                pass();
            } catch (RuntimeException | Error e) {
                // A bug must not leave the counter raised (no one would run the engine again): log, close.
                LOG.warn("AMQP connection {} failed", connection, e);
                closeEndPoint(e);
            }
            missed = (int) WORK.getAndAdd(this, -missed) - missed;
            if (missed == 0) {
                break;
            }
        }
        // Outside the engine: Jetty's request cycle ends here, and other threads drive the engine meanwhile.
        CompletedCallbacks.ofThisThread().completeAll(nonBlocking ? executor : null);
    }

    private void pass() {
        long now = nowMillis();
        if (inbox.closed()) {
            state = ConnectionState.CLOSED;
        }
        if (inbox.evicted() && !state.closing()) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("{}: stalled handshake ended to make room for a new connection", connection);
            }
            closeEndPoint(null);
        }
        Engine engine = awaitTls(now);
        if (engine == null) {
            return;
        }
        followBudget(engine);
        takeWriteOutcome(engine);
        read(now);
        takeHandedBack(engine);
        if (state == ConnectionState.CLOSED) {
            engine.transportClosed(); // an engine whose close exchange did not finish ends too: onClosed, once
            handler.connectionClosed(); // what streams now has no connection to go on: its writes fail
        }
        long next = Long.MAX_VALUE;
        if (inbox.stopRequested() && (state == ConnectionState.ACTIVE || state == ConnectionState.STOPPING)) {
            state = ConnectionState.STOPPING;
            next = stop.step(engine, now, handler.inFlight());
        }
        if ((engine.idleTimeoutPassed(now) || engine.partialFrameTimeoutPassed(now)) && !state.closing()) {
            // The peer's frames (or the rest of the one it began) may be in the socket, the selector not yet heard.
            io.readBeforeIdleClose(this, now);
            if (tick != null && now - tickAtMillis >= LATE_TICK_MILLIS) {
                // The tick came long after it was due: this process was paused. A TLS end point reads only when its
                // selector says so, and the selector has not caught up yet: give it time before judging the silence.
                engine.excusePause(now, PAUSE_GRACE_MILLIS);
            }
        }
        next = Math.min(next, engine.tick(now));
        next = Math.min(next, handler.tick(engine, now));
        next = Math.min(next, closeIfUnanswered(engine, now));
        write(engine);
        budget.passEnded(engine.outputBytes() + engine.queuedBytes(), BudgetShare.stateBytes(engine.sessionCount(),
                engine.linkCount(), engine.unsettledIncoming() + engine.unsettledSent()));
        next = Math.min(next, handler.trimWhenIdle(now, engine));
        scheduleTick(next, now);
        if (!io.writing() && handler.inFlight() == 0) {
            // docs/design.md §2: nothing in flight, so the engine's buffers and decode objects go back to the
            // server-wide pool; a connection with requests being served keeps them until it is quiet again. A frame
            // half sent a second ago leaves them too, its bytes kept apart.
            engine.releaseScratch();
        }
        int partial = engine.partialFrameBytes();
        if (partial != countedPartialFrameBytes) {
            countedPartialFrameBytes = partial;
            budget.partialFrameBytes(partial);
        }
        if (partial == 0 && admittedReservation > 0) {
            admittedReservation = 0;
            budget.partialFrameDone(); // its admission goes to a waiting frame
        }
        closeWhenDone(engine);
    }

    /**
     * The engine, or null while it waits for the TLS handshake: then the first bytes after it make the engine, and
     * a peer that leaves (or a stop) before that ends the connection.
     */
    private Engine awaitTls(long now) {
        if (engine == null) {
            read(now);
            if (engine == null) {
                if ((io.inputShutdown() || inbox.stopRequested()) && !state.closing()) {
                    closeEndPoint(null);
                }
                return null;
            }
        }
        return engine;
    }

    /**
     * While the byte budget is used up (server-wide, or by this connection's source address), no credit is granted;
     * the budget says when it has room.
     */
    private void followBudget(Engine engine) {
        boolean exhausted = budget.isExhausted();
        engine.pauseCredit(exhausted);
        if (exhausted && !waitingForRoom) {
            waitingForRoom = true;
            Runnable r = roomAgain;
            if (r == null) {
                r = () -> {
                    waitingForRoom = false;
                    executor.execute(inbox);
                };
                roomAgain = r;
            }
            budget.whenRoom(r);
        }
    }

    /**
     * Reading: whether to stop before the next read because the engine holds part of a frame, which more input would
     * grow, and the frame is not admitted to grow: frames that have not all arrived may reserve half the server's
     * byte budget, the largest frame the peer may send and the engine's working buffers each. Without it a peer that sends frames in
     * pieces on many connections would hold a frame's worth of memory on each; with it, a frame that is not admitted
     * holds what one read brought until an admitted frame completes (or its connection ends) and makes room. An
     * admitted frame always completes or meets its deadline, so waiting frames are always admitted in the end.
     */
    boolean partialFrameWaitsForRoom(Engine engine) {
        if (engine.partialFrameBytes() == 0) {
            return false;
        }
        // What a partial frame reserves: the largest frame the peer may send now (512 bytes in the handshake), and
        // the engine's working buffers. An admission made in the handshake is made again for a larger frame.
        long reservation = engine.incomingFrameLimitBytes() + Engine.SCRATCH_BYTES;
        if (admittedReservation >= reservation) {
            return false;
        }
        if (admittedReservation > 0) {
            admittedReservation = 0;
            budget.partialFrameDone();
        }
        if (budget.admitPartialFrame(reservation)) {
            admittedReservation = reservation; // until a pass ends with no partial frame
            return false;
        }
        engine.parkPartialFrame(); // it will not grow for a while: its bytes leave the working buffers at the pass end
        if (!waitingForFrameRoom) {
            waitingForFrameRoom = true;
            budget.whenFrameRoom(this, reservation);
        }
        return true;
    }


    /** A finished write lets the engine reuse its buffer and, if reading paused for it, reading go on. */
    private void takeWriteOutcome(Engine engine) {
        if (inbox.takeWriteCompleted()) {
            io.writeEnded();
            engine.endFlush();
        }
        if (io.readMayGoOn(engine, maxPendingOutputBytes())) {
            inbox.fillableAgain();
        }
        Throwable failure = inbox.takeWriteFailure();
        if (failure != null) {
            io.writeEnded();
            if (LOG.isDebugEnabled()) {
                LOG.debug("write failed on {}", connection, failure);
            }
            closeEndPoint(failure);
        }
    }

    private void read(long now) {
        if (inbox.takeFillable() && !state.closing()) {
            io.read(this, now);
        }
    }

    /** What the servlet side handed back: bodies whose reader caught up, parts of streamed responses, exchanges. */
    private void takeHandedBack(Engine engine) {
        if (!inbox.opened()) {
            return;
        }
        boolean closing = state.closing();
        RequestBody body;
        while ((body = inbox.takeResumed()) != null) {
            body.resumeOnEngine();
        }
        ResponsePart part;
        while ((part = inbox.takeResponsePart()) != null) {
            handler.responsePart(engine, part, closing);
        }
        Exchange exchange;
        while ((exchange = inbox.takeCompleted()) != null) {
            handler.completed(engine, exchange, closing);
        }
    }

    /**
     * Writes what the engine has, unless a write is in flight (its completion brings the next pass) or the output is
     * held back for the responses of requests still being served ({@link OutputCoalescing}).
     */
    private void write(Engine engine) {
        if (state.closing() || io.writing()) {
            return;
        }
        long hold = settings.writeCoalescingNanos();
        if (OutputCoalescing.worthHolding(engine, handler.inFlight(), hold)) {
            if (coalescing == null) {
                coalescing = new OutputCoalescing(hold, scheduler, inbox::holdEnded);
            }
            if (coalescing.hold(NanoTime.now())) {
                return;
            }
        } else if (coalescing != null) {
            coalescing.released();
        }
        io.flush(engine);
    }

    /**
     * After a close of ours (or once the engine is done with bytes unwritten) the peer has the close timeout to answer
     * and read; then the transport ends.
     *
     * @return when to look again
     */
    private long closeIfUnanswered(Engine engine, long now) {
        if (!state.closing() && stop.closeTimedOut(engine, now, io.writing())) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("{}: no answer to our close within {} ms, ending the transport", connection,
                        stop.closeTimeoutMillis());
            }
            closeEndPoint(null);
        }
        return stop.closeDeadlineMillis();
    }

    /** The engine is done (or the peer will send nothing more) and everything is written: the end point closes. */
    private void closeWhenDone(Engine engine) {
        if (!state.closing() && !io.writing() && !engine.hasOutput() && (engine.isDone() || io.inputShutdown())) {
            closeEndPoint(null);
        }
    }

    private void closeEndPoint(Throwable cause) {
        if (state.closing()) {
            return;
        }
        state = ConnectionState.CLOSING;
        if (cause == null) {
            connection.getEndPoint().close();
        } else {
            connection.getEndPoint().close(cause);
        }
    }

    /** Keeps one tick scheduled no later than the engine asked for. */
    private void scheduleTick(long nextMillis, long now) {
        if (nextMillis == Long.MAX_VALUE || state.closing()) {
            return;
        }
        boolean pending = tick != null && tickAtMillis > now;
        if (pending && tickAtMillis <= nextMillis) {
            return; // an earlier tick will come; the engine then says when it wants the next one
        }
        if (pending) {
            tick.cancel();
        }
        tickAtMillis = Math.max(nextMillis, now + 1);
        tick = scheduler.schedule(inbox, tickAtMillis - now, TimeUnit.MILLISECONDS);
    }

    private static long nowMillis() {
        return NanoTime.now() / 1_000_000L;
    }
}
