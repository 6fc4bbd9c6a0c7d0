package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.jetty.AmqpAuthenticator;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.AmqpConnectionMetaData;
import io.amqpservlet.jetty.AmqpRequestAttributes;
import io.amqpservlet.jetty.AmqpServerBudget;
import io.amqpservlet.jetty.GracefulAmqpConnections;
import io.amqpservlet.jetty.internal.attach.AttachedLinks;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.exchange.ActiveStreams;
import io.amqpservlet.jetty.internal.exchange.Exchange;
import io.amqpservlet.jetty.internal.exchange.HttpStreamOverAmqp;
import io.amqpservlet.jetty.internal.exchange.RequestBody;
import io.amqpservlet.jetty.internal.exchange.RequestCounters;
import io.amqpservlet.jetty.internal.exchange.ResponseEncoderPool;
import io.amqpservlet.jetty.internal.exchange.ResponsePart;
import io.amqpservlet.jetty.internal.exchange.ServingHandler;
import io.amqpservlet.jetty.internal.exchange.SlotPool;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.AbstractMetaDataConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Attributes;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One AMQP 1.0 connection accepted by a Jetty connector: drives an acceptor {@link Engine} from the
 * {@link EndPoint} and serves each request message through Jetty's {@link HttpChannel}, so the server's handler
 * tree answers AMQP clients.
 *
 * <p><b>One thread at a time in the engine.</b> The engine takes no locks, and four kinds of events want it: input
 * ({@link #onFillable()}), a finished write, a finished response from a servlet thread, and the idle-timeout
 * tick. Each records what happened (a flag, or the exchange in a lock-free queue), then calls {@link #drive()}:
 * the first caller runs the engine until no event is left, later callers only count themselves in and leave
 * (a work-in-progress counter, as Jetty's own flushers serialise writers). No lock is held while encoding (the
 * servlet thread encodes its response before queueing it) or during I/O, and nothing here blocks: reads and
 * writes are non-blocking, and a write that cannot finish completes later through its callback.
 *
 * <p><b>Who reads.</b> Until the peer's open has arrived, input comes through Jetty's blocking fill callback
 * ({@link #onFillable()}, on a pool thread: SASL may ask a login service that blocks). Once the connection is open,
 * the fill interest is non-blocking ({@link #awaitInput()}), so the selector's own thread reads the socket and runs
 * the engine pass, and the handlers of the requests it brings go to the pool. That is one thread hand-off per
 * request, where Jetty's HTTP/1.1 pays two wake-ups (a thread taking over the selector, and the selector woken to
 * watch the socket again). A read that does not fill the buffer ends the read on a plain socket.
 *
 * <p>Output is written with one gathered {@link EndPoint#write} of everything the engine produced, while the
 * engine keeps encoding into its other buffer. The connection closes its end point when the engine is done (or
 * the peer closed its output) and every byte has been written.
 */
public class AmqpConnection extends AbstractMetaDataConnection implements Connection.UpgradeTo, AmqpConnectionMetaData {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpConnection.class);
    private static final HttpChannel.Factory CHANNELS = new HttpChannel.DefaultFactory();
    /** Each driving thread's callbacks to complete after its pass (see {@link CompletedCallbacks}). */
    private static final ThreadLocal<CompletedCallbacks> COMPLETED = ThreadLocal.withInitial(CompletedCallbacks::new);
    /** The SASL identity as a Jetty authentication: none without jetty-security, an optional dependency. */
    private static final SaslUserAuthentication SASL_USERS = SaslUserAuthentication.available();

    /**
     * Null until the TLS handshake is done when the identity for SASL EXTERNAL comes from the client's certificate
     * ({@link #startEngine}); an engine reads its identity once, when it is made.
     */
    private volatile Engine engine;
    private final EngineConfig engineConfig;
    private final ServingHandler handler;
    private final ByteBufferPool bufferPool;
    private final ResponseEncoderPool encoders = new ResponseEncoderPool();
    /** Exchanges (each with its stream) reused across requests (see {@link Exchange} for when). */
    private final SlotPool<Exchange> exchanges = new SlotPool<>(ResponseEncoderPool.SLOTS);
    private final Scheduler scheduler;
    private final Attributes attributes = new Attributes.Lazy();
    private volatile String id;
    /** The connector's idle timeout, each request stream's idle timeout (the end point's own is 0 once idle). */
    private volatile long streamIdleTimeoutMillis;
    /** The SASL identity as Jetty authentication; set on the engine thread before any request, read by servlets. */
    private volatile Request.AuthenticationState authentication;
    /** SASL EXTERNAL: the certificate's identity, and the LoginService for its roles (jetty-security is optional). */
    private String externalIdentity;
    private Object externalLoginService;

    // Events from other threads, each set before drive() counts it in.
    private final AtomicInteger work = new AtomicInteger();
    private volatile boolean fillable;
    private volatile boolean writeCompleted;
    private volatile Throwable writeFailure;
    private volatile boolean shutdownRequested;
    private volatile boolean closedEvent;
    // Made by the first dispatch (engine thread), before any other thread can offer to them: a connection that never
    // served a request does not hold them (docs/design.md §2). The executor's hand-off publishes them to servlet
    // threads, the work counter to later driving threads.
    private ConcurrentLinkedQueue<Exchange> completed;
    private ConcurrentLinkedQueue<RequestBody> resumed;
    private ConcurrentLinkedQueue<ResponsePart> responseParts;
    private volatile int responseBufferBytes = AmqpConnectionFactory.DEFAULT_RESPONSE_BUFFER_BYTES;
    private long qpidJmsHeartbeatMillis;
    /**
     * This connection's part of its factory's server-wide limits: set by the factory before onOpen, or a budget of
     * its own made there for a connection built without one.
     */
    private volatile BudgetShare budget;
    /** The graceful stop's steps and the close timeout (engine thread). */
    private final ConnectionStop stop = new ConnectionStop();
    /** Expired requests and late responses, counted for the factory or attachment that made the connection. */
    private volatile RequestCounters counters = RequestCounters.UNATTRIBUTED;
    /** The most body bytes one streamed request has had waiting unread on this connection (a statistic). */
    private volatile long maxBufferedRequestBytes;

    // Engine-thread state.
    /** Bytes a detector read before upgrading to this connection: the engine's first input. */
    private byte[] upgradeInput;
    private RetainableByteBuffer input;
    private boolean writing;
    private boolean inputShutdown;
    private boolean closing;
    private Scheduler.Task tick;
    private long tickAtMillis;
    private long streamIds;
    /** Requests dispatched to Jetty whose exchange has not come back to the engine thread yet. */
    private int dispatched;
    /** Reading stopped because the engine's output is full: the peer is not reading what we write. */
    private boolean readPaused;
    /** When the engine thread last saw a request being served; 0 once the reusables were trimmed (or never). */
    private long lastBusyMillis;
    /** How long a connection serves no request before it lets go of what it kept for reuse. */
    public static final long TRIM_AFTER_IDLE_MILLIS = 2_000;

    // Shared with Jetty threads.
    private ConcurrentLinkedQueue<HttpChannel> idleChannels;
    private final ActiveStreams streams;
    /** Reads one fill makes before it lets the selector serve other connections. */
    private static final int MAX_READS = 8;
    /** The end point is the socket itself (no TLS layer between): a short read means the socket is drained. */
    private final boolean plainSocket;

    private final Callback writeCallback = new Callback() {
        @Override
        public void succeeded() {
            writeCompleted = true;
            drive(true);
        }

        @Override
        public void failed(Throwable x) {
            writeFailure = x;
            drive(true);
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING; // drive() never blocks
        }
    };

    /**
     * The fill interest of an open connection: the selector's own thread reads the socket and runs the engine pass,
     * which never blocks, and the requests it brings go to the pool (see {@link #awaitInput()}).
     */
    private final Callback readOnSelector = new Callback() {
        @Override
        public void succeeded() {
            fillable = true;
            drive(true);
        }

        @Override
        public void failed(Throwable x) {
            onFillInterestedFailed(x);
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }
    };

    private final Runnable onTick = this::drive;
    /** Set while this connection waits for the server budget to have room (credit paused meanwhile). */
    private volatile boolean waitingForRoom;
    /** Run by the budget when it has room again: drives the engine, which grants credit again. */
    private final Runnable roomAgain = () -> {
        waitingForRoom = false;
        execute(onTick);
    };

    /**
     * A connection without SASL EXTERNAL: its engine is made at once and started when the connection opens.
     *
     * @param connector the Jetty connector that accepted the socket; its byte buffer pool and scheduler are used
     * @param httpConfiguration the HTTP configuration every request of this connection sees
     * @param endPoint the accepted socket, plain or TLS
     * @param engineConfig the acceptor configuration (shared, read once by the engine)
     * @param serverName the host of requests that name none
     * @param linkCredit the credit kept open on each link clients send requests on
     */
    public AmqpConnection(Connector connector, HttpConfiguration httpConfiguration, EndPoint endPoint,
                          EngineConfig engineConfig, String serverName, int linkCredit) {
        this(connector, httpConfiguration, endPoint, engineConfig, serverName, linkCredit, false);
    }

    /**
     * A connection that, on a TLS end point and with {@code saslExternal}, makes its engine once the TLS handshake
     * has established the client's certificate.
     *
     * @param connector the Jetty connector that accepted the socket; its byte buffer pool and scheduler are used
     * @param httpConfiguration the HTTP configuration every request of this connection sees
     * @param endPoint the accepted socket, plain or TLS
     * @param engineConfig the acceptor configuration (shared, read once by the engine)
     * @param serverName the host of requests that name none
     * @param linkCredit the credit kept open on each link clients send requests on, in messages
     * @param saslExternal on a TLS end point, offer SASL EXTERNAL to a client that presented a certificate, with
     *                     {@link ClientCertificateIdentity its subject} as the identity
     */
    public AmqpConnection(Connector connector, HttpConfiguration httpConfiguration, EndPoint endPoint,
                          EngineConfig engineConfig, String serverName, int linkCredit, boolean saslExternal) {
        this(connector, httpConfiguration, endPoint, engineConfig, serverName, linkCredit, saslExternal, null);
    }

    /**
     * A connection an {@link AmqpBrokerAttachment} made to a broker ({@code attached} non-null, an initiator
     * {@code engineConfig}), or one a client made to us.
     */
    public AmqpConnection(Connector connector, HttpConfiguration httpConfiguration, EndPoint endPoint,
                   EngineConfig engineConfig, String serverName, int linkCredit, boolean saslExternal,
                   AttachedLinks attached) {
        super(connector, AmqpRequestAttributes.configurationFor(httpConfiguration), endPoint);
        this.bufferPool = connector.getByteBufferPool();
        this.scheduler = connector.getScheduler();
        this.streams = new ActiveStreams(scheduler, endPoint::isOpen);
        // Not endPoint.isSecure() alone on a TLS end point: before the handshake it would compute and cache the
        // end point's SslSessionData without the client's certificate, which SASL EXTERNAL then could not see.
        boolean secure = endPoint instanceof SslConnection.SslEndPoint || endPoint.isSecure();
        this.handler = new ServingHandler(this, serverName, linkCredit, secure, attached);
        this.engineConfig = engineConfig;
        // TLS decrypts into its own buffers: a short read there says nothing about what the socket still holds.
        this.plainSocket = endPoint instanceof SocketChannelEndPoint;
        this.id = "amqp-tls"; // until the engine, and its number, exist
        if (!(saslExternal && secure)) {
            startEngine(null, -1);
        }
    }

    /**
     * Makes the engine, with the identity TLS established for SASL EXTERNAL (or null), and starts it at
     * {@code nowMillis} unless that is negative (the constructor: {@link #onOpen()} starts it).
     */
    private void startEngine(String externalIdentity, long nowMillis) {
        this.externalIdentity = externalIdentity;
        Engine e = new Engine(engineConfig, handler, externalIdentity);
        id = "amqp-" + e.id();
        engine = e;
        EndPoint endPoint = getEndPoint();
        streamIdleTimeoutMillis = endPoint.getIdleTimeout();
        if (!(endPoint instanceof SslConnection.SslEndPoint)) {
            // From now on onIdleExpired ignores the end point's timeout (the engine's own timeouts and heartbeats
            // rule), so its scheduled check would only wake up to be ignored: 0 cancels it, one scheduler task less
            // per idle connection (docs/design.md §2). A TLS end point keeps it: it belongs to the TLS layer.
            endPoint.setIdleTimeout(0);
        }
        if (nowMillis >= 0) {
            e.start(nowMillis);
        }
    }

    // ------------------------------------------------------------------------------------------ Jetty lifecycle

    /**
     * A {@code DetectorConnectionFactory} recognized this connection from its first bytes (the start of the AMQP
     * header) and hands them over; they are the engine's first input. Called before {@link #onOpen()}.
     */
    @Override
    public void onUpgradeTo(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        upgradeInput = bytes;
    }

    @Override
    public void onOpen() {
        super.onOpen();
        if (budget == null) {
            budget = new BudgetShare(new AmqpServerBudget());
        }
        if (!budget.startHandshake()) {
            // Too many connections between accept and open: no AMQP connection exists yet to refuse, so the transport
            // ends before any frame (AmqpServerBudget).
            closing = true;
            getEndPoint().close();
            return;
        }
        Engine e = engine;
        if (e != null) { // else it starts with the first bytes after the TLS handshake (fill)
            e.start(nowMillis()); // no event can reach the engine before fillInterested()
        }
        if (upgradeInput != null) {
            fillable = true; // the detector's bytes first; fill() then reads the socket and asks for more itself
        } else {
            fillInterested();
        }
        drive(); // schedules the first tick (the SASL deadline)
    }

    @Override
    public void onFillable() {
        fillable = true;
        drive(false);
    }

    @Override
    public boolean onIdleExpired(TimeoutException timeout) {
        // AMQP has its own idle timeout (AMQP 1.0 §2.4.5), enforced by the engine's tick, with heartbeats that a
        // quiet but healthy peer relies on: the end point's timeout must not close a connection the engine keeps.
        // Before the engine exists (a TLS handshake not done yet), the end point's timeout is the only one.
        return engine == null;
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        BudgetShare share = budget;
        if (share != null) {
            share.close(); // every close path gives the connection's part of the server budget back
        }
        Scheduler.Task t = tick;
        if (t != null) {
            t.cancel();
        }
        closedEvent = true;
        drive(); // responses streaming on the engine thread fail their waiting writes
        // Requests still being served will have no connection to answer on.
        for (HttpStreamOverAmqp stream : streams.all()) {
            Runnable task = stream.channel().onRemoteFailure(new EofException(cause == null
                    ? "AMQP connection closed" : cause.toString()));
            if (task != null) {
                execute(task);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ serialised engine loop

    /**
     * Runs the engine on this thread if no other thread is, until every recorded event has been handled;
     * otherwise leaves the work to the thread that is running it.
     */
    public void drive() {
        drive(false);
    }

    /**
     * @param nonBlocking the caller is a thread that must not block (the selector's: reading an open connection,
     *                    completing a write): send callbacks that may block are completed on the pool instead
     */
    private void drive(boolean nonBlocking) {
        if (work.getAndIncrement() != 0) {
            return;
        }
        CompletedCallbacks done = COMPLETED.get();
        int missed = 1;
        while (true) {
            try {
                runEngine();
            } catch (RuntimeException | Error e) {
                // A bug must not leave the counter raised (no one would run the engine again): log, close.
                LOG.warn("AMQP connection {} failed", this, e);
                closing = true;
                getEndPoint().close(e);
            }
            CompletedCallbacks pending = handler.pendingCallbacks();
            if (pending != null) {
                done.takeFrom(pending);
            }
            missed = work.addAndGet(-missed);
            if (missed == 0) {
                break;
            }
        }
        // Outside the engine: Jetty's request cycle ends here, and other threads drive the engine meanwhile.
        done.completeAll(nonBlocking ? getExecutor() : null);
    }

    private void runEngine() {
        long now = nowMillis();
        if (engine == null) { // waiting for the TLS handshake to finish: the first bytes after it make the engine
            if (fillable) {
                fillable = false;
                fill(now);
            }
            if (engine == null) {
                if ((inputShutdown || shutdownRequested) && !closing) {
                    closing = true;
                    getEndPoint().close();
                }
                return;
            }
        }
        Engine engine = this.engine;
        // The server-wide byte budget is used up: grant no more credit until it has room (AmqpServerBudget).
        boolean exhausted = budget.budget().isExhausted();
        engine.pauseCredit(exhausted);
        if (exhausted && !waitingForRoom) {
            waitingForRoom = true;
            budget.budget().whenRoom(roomAgain);
        }
        if (writeCompleted) {
            writeCompleted = false;
            writing = false;
            engine.endFlush();
        }
        if (readPaused && engine.outputBytes() < engineConfig.maxPendingOutputBytes()) {
            readPaused = false; // the peer reads again: so do we
            fillable = true;
        }
        Throwable failure = writeFailure;
        if (failure != null) {
            writeFailure = null;
            writing = false;
            closing = true;
            if (LOG.isDebugEnabled()) {
                LOG.debug("write failed on {}", this, failure);
            }
            getEndPoint().close(failure);
        }
        if (fillable) {
            fillable = false;
            fill(now);
        }
        if (completed != null) {
            RequestBody body;
            while ((body = resumed.poll()) != null) {
                body.resumeOnEngine();
            }
            ResponsePart part;
            while ((part = responseParts.poll()) != null) {
                handler.responsePart(engine, part, closing);
            }
            Exchange exchange;
            while ((exchange = completed.poll()) != null) {
                dispatched--;
                handler.complete(engine, exchange, closing);
            }
        }
        long next = Long.MAX_VALUE;
        if (shutdownRequested && !closing) {
            next = stop.step(engine, now, dispatched);
        }
        if (closedEvent) {
            handler.connectionClosed();
        }
        next = Math.min(next, engine.tick(now));
        next = Math.min(next, handler.tick(engine, now));
        if (!closing && stop.closeTimedOut(engine, now, writing)) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("{}: no answer to our close within {} ms, ending the transport", this,
                        stop.closeTimeoutMillis());
            }
            closing = true;
            getEndPoint().close();
        }
        next = Math.min(next, stop.closeDeadlineMillis());
        flush();
        budget.outputBytes(engine.outputBytes() + engine.queuedBytes());
        if (dispatched > 0) {
            lastBusyMillis = now;
        } else if (lastBusyMillis != 0) {
            if (now - lastBusyMillis >= TRIM_AFTER_IDLE_MILLIS) {
                trimReusables();
            } else {
                next = Math.min(next, lastBusyMillis + TRIM_AFTER_IDLE_MILLIS); // a pass then, to trim
            }
        }
        scheduleTick(next, now);
        if (!writing && dispatched == 0) {
            // docs/design.md §2: nothing in flight, so the engine's buffers and decode objects go back to the
            // server-wide pool; a connection with requests being served keeps them until it is quiet again.
            engine.releaseScratch();
        }
        if (!closing && !writing && !engine.hasOutput() && (engine.isDone() || inputShutdown)) {
            closing = true;
            getEndPoint().close();
        }
    }

    /**
     * Engine thread: the connection has served no request for {@link #TRIM_AFTER_IDLE_MILLIS}. The exchanges,
     * channels and response encoders it kept for reuse go, and so do the engine's ({@link Engine#trimIdle()}) (docs/design.md §2: an idle connection gives its memory
     * back); a burst of requests later makes new ones, and keeps them while it lasts.
     */
    private void trimReusables() {
        lastBusyMillis = 0;
        if (idleChannels != null) {
            while (idleChannels.poll() != null) {
                // dropped
            }
        }
        exchanges.drain();
        encoders.drain();
        Engine e = engine;
        if (e != null) {
            e.trimIdle(); // pooled deliveries, empty maps, link message arrays
        }
    }

    /** How many objects this connection keeps for its next requests (exchanges, channels, encoders), for tests. */
    public int reusablesKept() {
        return (idleChannels == null ? 0 : idleChannels.size()) + exchanges.size() + encoders.size();
    }

    /** Reads what the socket has and feeds it to the engine; asks for more when it is drained. */
    private void fill(long now) {
        if (closing || inputShutdown) {
            return;
        }
        if (input == null) {
            input = bufferPool.acquire(getInputBufferSize(), false); // heap: the engine parses arrays in place
        }
        ByteBuffer buffer = input.getByteBuffer();
        byte[] upgraded = upgradeInput;
        if (upgraded != null) {
            upgradeInput = null;
            if (engine == null) {
                startEngine(ClientCertificateIdentity.of(getEndPoint()), now);
            }
            engine.ingest(upgraded, 0, upgraded.length, now);
        }
        int reads = 0;
        try {
            while (engine == null || !engine.isDone()) {
                if (engine != null && engine.outputBytes() >= engineConfig.maxPendingOutputBytes()) {
                    // The peer does not read what we write: stop reading what it sends (TCP back-pressure), so
                    // neither its requests nor our answers to them pile up here; a finished write reads again.
                    readPaused = true;
                    releaseInput();
                    return;
                }
                BufferUtil.clear(buffer);
                int n = getEndPoint().fill(buffer);
                if (n > 0) {
                    if (engine == null) {
                        // Application bytes: the TLS handshake is over and the client's certificate, if any, known.
                        startEngine(ClientCertificateIdentity.of(getEndPoint()), now);
                    }
                    engine.ingest(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining(), now);
                    if (plainSocket && n < buffer.capacity() || ++reads >= MAX_READS) {
                        // A read that did not fill the buffer drained the socket: the selector watches it again
                        // rather than one more read that would find nothing (bytes arriving meanwhile make the
                        // socket readable at once, the selector's readiness being level-triggered). A peer that
                        // keeps sending gets a few reads, then waits its turn behind the selector's other
                        // connections, so one fast sender cannot hold the selector's thread (TLS, holding bytes
                        // already read, calls back at once on the pool).
                        awaitInput();
                        return;
                    }
                } else if (n == 0) {
                    awaitInput();
                    return;
                } else {
                    inputShutdown = true; // the peer will send no more; finish writing, then close
                    break;
                }
            }
        } catch (IOException e) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("fill failed on {}", this, e);
            }
            inputShutdown = true;
        }
        releaseInput();
    }

    /** The socket is drained: the input buffer goes back and the selector watches the socket for more. */
    private void awaitInput() {
        releaseInput();
        if (engine != null && engine.isOpen()) {
            fillInterested(readOnSelector);
        } else {
            fillInterested();
        }
    }

    private void releaseInput() {
        if (input != null) {
            input.release();
            input = null;
        }
    }

    /** Starts one gathered write of everything the engine has produced, unless a write is in flight. */
    private void flush() {
        if (writing || closing) {
            return;
        }
        ByteBuffer out = engine.beginFlush();
        if (out == null) {
            return;
        }
        writing = true;
        getEndPoint().write(writeCallback, out); // may complete inline: writeCallback then only counts itself in
    }

    /** Keeps one tick scheduled no later than the engine asked for. */
    private void scheduleTick(long nextMillis, long now) {
        if (nextMillis == Long.MAX_VALUE || closing) {
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
        tick = scheduler.schedule(onTick, tickAtMillis - now, TimeUnit.MILLISECONDS);
    }

    private static long nowMillis() {
        return NanoTime.now() / 1_000_000L;
    }

    // ------------------------------------------------------------------------------------------ exchanges

    /**
     * Engine thread: SASL established the peer's identity (before any request can arrive). With jetty-security
     * present it becomes the authentication of every request of this connection (see {@link AmqpAuthenticator}).
     */
    public void authenticated(String identity) {
        authenticatedAs(identity, identity != null && identity.equals(externalIdentity) ? externalLoginService : null);
    }

    /** The authentication of every request of this connection: {@code identity}, with roles from the service. */
    public void authenticatedAs(String identity, Object loginService) {
        authentication = SASL_USERS.of(identity, loginService);
    }

    /**
     * The authentication of this connection's requests (a jetty-security {@code AuthenticationState.Succeeded}),
     * or null when the peer is anonymous or jetty-security is absent.
     *
     * @return the authentication state of the SASL user, or null for an anonymous peer or without jetty-security
     */
    public Request.AuthenticationState authentication() {
        return authentication;
    }

    /**
     * Any thread: the server is stopping gracefully ({@link GracefulAmqpConnections}). Requests that arrive from now
     * on are released (docs/design.md §3: shutdown → released); once the requests in flight have been answered, the
     * connection is closed with {@code amqp:connection:forced}.
     */
    public void shutdown() {
        shutdownRequested = true;
        drive();
    }

    /** Whether a graceful shutdown has begun, so new requests are released rather than served. */
    public boolean isDraining() {
        return shutdownRequested;
    }

    /** Engine thread: hands a mapped request to Jetty, whose handler tree runs on the executor. */
    public void dispatch(Exchange exchange) {
        dispatched++;
        if (completed == null) {
            completed = new ConcurrentLinkedQueue<>();
            resumed = new ConcurrentLinkedQueue<>();
            responseParts = new ConcurrentLinkedQueue<>();
            idleChannels = new ConcurrentLinkedQueue<>();
        }
        HttpChannel channel = idleChannels.poll();
        if (channel == null) {
            channel = CHANNELS.newHttpChannel(this);
        }
        channel.initialize();
        HttpStreamOverAmqp stream = exchange.stream;
        if (stream == null) {
            stream = new HttpStreamOverAmqp(this, exchange);
            exchange.stream = stream;
        }
        stream.init(channel, ++streamIds);
        channel.setHttpStream(stream);
        streams.add(stream); // sets the request-timeout timer if this expiry is the earliest
        Runnable task;
        try {
            task = channel.onRequest(exchange.request);
            // Before the task runs, nothing else sees the request: the user is set now, ahead of customizers and
            // handlers (which a SecurityHandler then re-checks through AmqpAuthenticator); the fixed attributes
            // come with the first customizer (AmqpRequestAttributes.CUSTOMIZER), on the thread that runs the task.
            AmqpRequestAttributes.setUser(channel.getRequest(), authentication);
        } catch (RuntimeException e) {
            task = channel.onFailure(e); // Jetty answers with its error handler, through this stream
        }
        if (task != null) {
            stream.handleWith(task);
            execute(stream); // the handler may block: never on the thread that drives the engine
        }
    }

    /** Engine thread: the peer's open arrived; false when the server-wide connection limit refuses it. */
    public boolean budgetOpened() {
        return budget.opened();
    }

    /** This connection's part of the server-wide limits. */
    public BudgetShare budgetShare() {
        return budget;
    }

    /** Joins the factory's server-wide limits (before the connection opens). */
    public void setServerBudget(AmqpServerBudget serverBudget) {
        this.budget = new BudgetShare(serverBudget);
    }

    /**
     * How long the peer has to answer our close before the transport ends.
     *
     * @return the close timeout in milliseconds
     */
    public long getCloseTimeoutMillis() {
        return stop.closeTimeoutMillis();
    }

    /**
     * Sets how long the peer has to answer our close before the transport ends
     * ({@link AmqpConnectionFactory#setCloseTimeout}, which checks the value).
     *
     * @param millis the close timeout in milliseconds
     */
    public void setCloseTimeoutMillis(long millis) {
        stop.closeTimeoutMillis(millis);
    }

    /**
     * Sets the idle-time-out announced to a Qpid JMS client ({@link AmqpConnectionFactory#setQpidJmsHeartbeatMillis},
     * which checks the value).
     *
     * @param millis milliseconds; 0 to announce the same as to other clients
     */
    public void setQpidJmsHeartbeatMillis(long millis) {
        this.qpidJmsHeartbeatMillis = millis;
    }

    /** {@return the idle-time-out to announce to a Qpid JMS client, in milliseconds; 0 for the default} */
    public long qpidJmsHeartbeatMillis() {
        return qpidJmsHeartbeatMillis;
    }

    /**
     * The most bytes this connection has held for its peer at once: encoded and not yet written, plus messages
     * queued on reply links (at most the engine's {@code maxPendingOutputBytes} plus one frame, plus its
     * {@code maxBufferedBytesPerConnection}).
     *
     * @return the high-water mark in bytes; 0 before the connection joined the server budget
     */
    public long getMaxBufferedOutputBytes() {
        BudgetShare share = budget;
        return share == null ? 0 : share.maxOutputBytes();
    }

    /** Engine thread: a body that could not let go of its window asks again once the server budget has room. */
    public void resumeWhenRoom(RequestBody body) {
        budget.budget().whenRoom(() -> execute(() -> resume(body)));
    }

    /** Any thread: the servlet caught up with a streamed body; the engine thread lets go of the session window. */
    public void resume(RequestBody body) {
        resumed.offer(body);
        drive();
    }

    /** Counts into its maker's counters (before the connection opens). */
    public void setCounters(RequestCounters counters) {
        this.counters = counters;
    }

    /** Engine thread: a request had expired before it could be served. */
    public void expiredRequest() {
        counters.expiredRequests.increment();
    }

    /** Any thread: a servlet answered after the request timeout had answered for it; its response went nowhere. */
    public void lateResponse() {
        counters.lateResponses.increment();
    }

    /** Engine thread: a streamed request now has {@code bytes} waiting unread. */
    public void bufferedRequestBytes(long bytes) {
        if (bytes > maxBufferedRequestBytes) {
            maxBufferedRequestBytes = bytes;
        }
    }

    /**
     * The most body bytes a streamed request of this connection has had waiting for its servlet to read them: with
     * the session window held, at most {@code sessionIncomingWindowFrames × maxFrameSizeBytes} plus
     * {@link RequestBody#HOLD_BYTES} (see docs/jetty.md).
     *
     * @return the high-water mark in bytes; 0 when no streamed request body waited
     */
    public long getMaxBufferedRequestBytes() {
        return maxBufferedRequestBytes;
    }

    /**
     * How long a request may take before it is answered 503 and released; 0 for no limit.
     *
     * @param millis the request timeout in milliseconds, counted from dispatch to the last response write; 0 for no
     *     limit
     */
    public void setRequestTimeoutMillis(long millis) {
        streams.timeoutMillis(millis);
    }

    /**
     * How long a request may take before it is answered 503 and released; see {@link #setRequestTimeoutMillis}.
     *
     * @return the request timeout in milliseconds; 0 means no limit
     */
    public long getRequestTimeoutMillis() {
        return streams.timeoutMillis();
    }

    /** Any thread: a part of a streamed response, for the engine thread to send. */
    public void responsePart(ResponsePart part) {
        responseParts.offer(part);
        drive();
    }

    /**
     * How many body bytes of a response without Content-Length are buffered to send it as one data section; a
     * longer one streams as several (see {@link AmqpConnectionFactory#setResponseBufferSize}).
     *
     * @return the response buffer size in bytes
     */
    public int getResponseBufferSize() {
        return responseBufferBytes;
    }

    /** Where SASL EXTERNAL identities get their roles ({@link AmqpConnectionFactory#setExternalLoginService}). */
    public void setExternalLoginService(Object loginService) {
        this.externalLoginService = loginService;
    }

    /**
     * Sets how many body bytes of a response without Content-Length are buffered; see {@link #getResponseBufferSize()}.
     *
     * @param bytes the response buffer size in bytes; the factory checks it is at least 1
     */
    public void setResponseBufferSize(int bytes) {
        this.responseBufferBytes = bytes;
    }

    /** The exchanges of this connection that may be reused. */
    public SlotPool<Exchange> exchanges() {
        return exchanges;
    }

    /** The response encoders of this connection, reused across its responses. */
    public ResponseEncoderPool encoders() {
        return encoders;
    }

    public ByteBufferPool bufferPool() {
        return bufferPool;
    }

    /** Any thread: a finished exchange goes back to the engine thread, which sends and settles it. */
    public void complete(Exchange exchange) {
        completed.offer(exchange);
        drive();
    }

    /** Any thread: a stream ended; a channel that completed normally is reused for the next request. */
    public void onStreamEnded(HttpStreamOverAmqp stream, boolean recycled) {
        streams.remove(stream);
        if (recycled) {
            idleChannels.offer(stream.channel());
        }
    }

    public void execute(Runnable task) {
        getExecutor().execute(task);
    }

    /**
     * The client's SASL identity ({@code anonymous} for ANONYMOUS or no SASL), or null before SASL ends. It is set
     * once, before the first request can arrive, so request threads may read it.
     *
     * @return the client's identity, or null while the SASL handshake has not ended
     */
    public String getSaslIdentity() {
        Engine e = engine;
        return e == null ? null : e.identity();
    }

    /** The idle timeout a request stream starts with: the connector's. */
    public long streamIdleTimeoutMillis() {
        return streamIdleTimeoutMillis;
    }

    /**
     * The number of requests being served (dispatched and not yet ended), for tests and statistics.
     *
     * @return the number of requests dispatched and not yet ended
     */
    public int getActiveRequests() {
        return streams.size();
    }

    // ------------------------------------------------------------------------------------------ ConnectionMetaData

    @Override
    public String getId() {
        return id;
    }

    @Override
    public HttpVersion getHttpVersion() {
        return HttpVersion.HTTP_1_1; // the version WD06 requests default to (http:request)
    }

    @Override
    public String getProtocol() {
        return AmqpConnectionFactory.PROTOCOL;
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public boolean isSecure() {
        return getEndPoint().isSecure();
    }

    @Override
    public Object removeAttribute(String name) {
        return attributes.removeAttribute(name);
    }

    @Override
    public Object setAttribute(String name, Object attribute) {
        return attributes.setAttribute(name, attribute);
    }

    @Override
    public Object getAttribute(String name) {
        return attributes.getAttribute(name);
    }

    @Override
    public Set<String> getAttributeNameSet() {
        return attributes.getAttributeNameSet();
    }

    @Override
    public void clearAttributes() {
        attributes.clearAttributes();
    }
}
