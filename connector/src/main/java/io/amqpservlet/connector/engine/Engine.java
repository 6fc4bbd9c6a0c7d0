package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Role;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One AMQP 1.0 connection's protocol engine, in the manner of Proton's: bytes in ({@link #ingest}), bytes out
 * ({@link #beginFlush()}/{@link #endFlush()}), time passed in ({@link #tick(long)}); no threads, no sockets. The
 * same code plays either {@link EngineConfig.Role}: an acceptor waits for the peer's protocol header, an
 * initiator speaks first after {@link #start(long)}.
 *
 * <p>Events reach the application through its {@link EngineHandler}, with the engine's reusable objects, never a
 * new object per frame or per message: performatives are decoded into reusable instances (the engine's scratch,
 * held while it works and given back when it is idle: {@link #releaseScratch()}), deliveries are pooled, message
 * payloads are viewed in the input buffer unless a message spans frames.
 *
 * <p>The engine owns the frame handling and the connection's state: protocol headers and SASL (through
 * {@code Handshake}), open and close (through {@code ConnectionLifecycle}), sessions by channel, reply nodes,
 * deliveries, credit and settlement, and the output it encodes. Time is owned by {@code ConnectionDeadlines}, which the engine tells when frames go in and out:
 * the idle timeouts (ours, and heartbeats for the peer's), the handshake deadline, the partial-frame deadline and the
 * excusal of our own pauses; {@link #tick}, {@link #idleTimeoutPassed}, {@link #partialFrameTimeoutPassed} and
 * {@link #excusePause} hand over to it.
 *
 * <p>Threading: an engine is confined to one thread at a time. The integration layer serialises calls (it drives
 * the engine from the thread that read the socket, and hands work from other threads over through a queue).
 */
public final class Engine {
    private static final AtomicLong IDS = new AtomicLong();
    /** A transfer performative with an 8-byte tag and every field takes fewer bytes than this. */
    static final int TRANSFER_OVERHEAD_BYTES = 96;
    /**
     * About what an engine's scratch (its working buffers and decode objects, held while it works) takes at its first
     * sizes, in bytes; buffers a large frame grew come on top.
     */
    public static final int SCRATCH_BYTES = EngineScratch.FIXED_BYTES + 3 * EngineScratch.INITIAL_OUTPUT_BYTES;

    final EngineConfig config;
    final EngineHandler handler;
    private final boolean acceptor;
    private final long id = IDS.incrementAndGet();
    /** What the engine needs only while it works: taken on first need, given back when idle (docs/design.md §2). */
    private EngineScratch scratch;
    private final EngineScratchPool scratchPool;
    private final EngineOutput output = new EngineOutput();
    private final PendingDisposition pendingDisposition = new PendingDisposition(this);
    private final KeptInput input;
    final FrameTracer tracer;
    /** The header exchange and SASL: dropped once the peer's open arrives, as nothing of it is needed after. */
    private Handshake handshake;
    private final FrameDispatcher dispatcher;

    /** Open and close, the peer's identity and limits from its open, the closes' errors. */
    final ConnectionLifecycle lifecycle = new ConnectionLifecycle(this);
    private boolean started;

    final SessionTable sessions = new SessionTable(this);
    final AddressTable<ReplyNode> nodes = new AddressTable<>();
    private long nodeCounter;
    private final DeliveryPool pool = new DeliveryPool();
    int incomingUnsettled;
    /** Links of all sessions, either side's, until removed (bounded by {@link EngineConfig#maxLinksPerConnection()}). */
    int linkCount;
    /** Bytes of the peer's attaches the links keep (bounded by {@link EngineConfig#maxLinkBytesPerConnection()}). */
    long linkBytes;
    /** Messages the peer sent without link credit, taken in rather than detaching ({@link #receivedBeyondCredit}). */
    long receivedBeyondCredit;
    /** Bytes of messages queued on this connection's sending links and not yet written (docs/design.md §5). */
    long queuedBytes;
    /** A sending link stopped because {@link EngineConfig#maxPendingOutputBytes()} of output waited. */
    private boolean blockedOnOutput;
    /** No credit is granted on receiving links ({@link #pauseCredit}); a stop is for good ({@link #stopCredit}). */
    private boolean creditPaused;
    private boolean creditStopped;

    /** The idle timeouts, heartbeats, handshake and partial-frame deadlines, and the excusal of our pauses. */
    final ConnectionDeadlines deadlines;

    /**
     * An acceptor or initiator engine (by {@link EngineConfig#role()}) for a transport that has not established the
     * peer's identity itself: SASL, when configured, does.
     *
     * @param config limits, role, container id and SASL options; the engine keeps it for its lifetime
     * @param handler receives the engine's callbacks (open, sessions, links, messages, close), on the thread that calls
     *     the engine
     */
    public Engine(EngineConfig config, EngineHandler handler) {
        this(config, handler, null);
    }

    /**
     * An engine for a transport that has already established the peer's identity (a TLS client certificate): an
     * acceptor then offers SASL EXTERNAL (RFC 4422 appendix A) with {@code externalIdentity} as the principal.
     *
     * @param config limits, role, container id and SASL options; the engine keeps it for its lifetime
     * @param handler receives the engine's callbacks (open, sessions, links, messages, close), on the thread that calls
     *     the engine
     * @param externalIdentity the principal the transport established (the client certificate's subject), offered as
     *     SASL EXTERNAL; null when there is none, which makes this the two-argument constructor
     */
    public Engine(EngineConfig config, EngineHandler handler, String externalIdentity) {
        this.config = config;
        this.handler = handler;
        this.acceptor = config.role() == EngineConfig.Role.ACCEPTOR;
        this.scratchPool = config.scratchPool();
        this.input = new KeptInput(this);
        this.deadlines = new ConnectionDeadlines(this, config);
        this.tracer = config.trace() ? new FrameTracer(config.containerId() + ":" + id, System.err) : null;
        SaslServer saslServer = null;
        if (acceptor && (config.plainAuthenticator() != null || config.anonymousAllowed() || externalIdentity != null)) {
            saslServer = new SaslServer(config.plainAuthenticator(), config.anonymousAllowed(), externalIdentity);
        }
        if (acceptor && config.saslRequired() && saslServer == null) {
            // EXTERNAL-only and a client without a certificate: refuse it in SASL (outcome auth), not by throwing.
            saslServer = SaslServer.refusing("no SASL mechanism for this client: EXTERNAL needs a TLS client "
                    + "certificate, and neither PLAIN nor ANONYMOUS is enabled");
        }
        this.handshake = new Handshake(this, saslServer);
        this.dispatcher = new FrameDispatcher(this, sessions, tracer, config.maxFrameSizeBytes());
    }

    /**
     * Asks the peer to send frames at least this often, by announcing {@code millis} as our idle-time-out in the open
     * we send when it is shorter than what we would announce (half of {@link EngineConfig#idleTimeoutMillis()}).
     * When this engine closes an idle connection does not change. The acceptor's handler may call it from
     * {@link EngineHandler#onOpen}, before the acceptor's open goes out: for a client whose output waits for its
     * next heartbeat (Qpid JMS, docs/jetty.md "Streaming"), frequent heartbeats bound that wait.
     *
     * @param millis the idle-time-out to announce, in milliseconds; 0 for the default
     */
    public void advertiseIdleTimeoutMillis(long millis) {
        deadlines.advertiseIdleTimeoutMillis(millis);
    }

    /** The protocol-header and SASL phases' state; null once the peer's open has arrived (it is dropped then). */
    Handshake handshake() {
        return handshake;
    }

    /**
     * A number unique to this engine within the process, for logs and generated addresses.
     *
     * @return the engine's id, positive and never reused within the process
     */
    public long id() {
        return id;
    }

    // ------------------------------------------------------------------------------------------ scratch

    /** The engine's scratch, taken from the pool when it holds none (docs/design.md §2). */
    EngineScratch scratch() {
        EngineScratch s = scratch;
        return s != null ? s : takeScratch();
    }

    private EngineScratch takeScratch() {
        EngineScratch s = scratchPool.take();
        output.attach(s);
        scratch = s;
        return s;
    }

    /** The performatives frames are decoded into. */
    Performatives in() {
        return scratch().in;
    }

    /** The performatives frames are encoded from. */
    Performatives out() {
        return scratch().out;
    }

    /** The decoder of performatives and SASL frames. */
    AmqpReader reader() {
        return scratch().reader;
    }

    /** The view handed to {@link EngineHandler#onMessage}. */
    MessageView view() {
        return scratch().view;
    }

    /**
     * Gives the engine's working buffers and decode objects back to the server-wide pool when nothing is in
     * progress: no output waiting to be written, no settlement held, no partial frame kept. An idle connection then
     * holds only its protocol state; the next frame or send takes scratch again, without allocating while the pool
     * has some (docs/design.md §2). Call it between engine calls, never from a handler callback, e.g. when a read
     * found no more bytes and every write has completed.
     *
     * @return whether the engine now holds no scratch
     */
    public boolean releaseScratch() {
        EngineScratch s = scratch;
        if (s == null) {
            return true;
        }
        if (output.hasPending() || pendingDisposition.isPending() || !input.park(s, deadlines.nowMillis())) {
            return false;
        }
        output.detach(s);
        scratch = null;
        scratchPool.giveBack(s);
        return true;
    }

    /**
     * Lets go of what the engine kept for reuse and is not using now (docs/design.md §2): pooled deliveries when
     * none is in flight, empty delivery maps, the message arrays of links with nothing queued, assembly buffers.
     * The next message makes them again, so call it after a quiet period, not between requests (the Jetty
     * connection does after 2 s without a request), and between engine calls, never from a handler callback.
     */
    public void trimIdle() {
        if (pool.allFree()) {
            pool.clear();
            settledSend = null;
            settledReceive = null;
        }
        sessions.trimIdle();
    }

    /** Whether the engine holds scratch now (for tests of {@link #releaseScratch()}). */
    boolean holdsScratch() {
        return scratch != null;
    }

    /** The scratch the engine holds now, or null: never takes one. */
    EngineScratch heldScratch() {
        return scratch;
    }

    /**
     * Lets the next {@link #releaseScratch()} park a frame that has not all arrived at once, without waiting for
     * {@link KeptInput#PARK_AFTER_MILLIS} without a byte: for a transport that will not read this connection for a
     * while (the Jetty connection, when its budget does not admit the frame to grow).
     */
    public void parkPartialFrame() {
        input.parkAtNextRelease();
    }

    /**
     * The largest frame the peer may send now: 512 bytes (AMQP's minimum max-frame-size) until this side's open is
     * out, then {@link EngineConfig#maxFrameSizeBytes()}. What a frame that has not all arrived may grow to.
     *
     * @return the limit in bytes
     */
    public int incomingFrameLimitBytes() {
        return dispatcher.frameLimitBytes();
    }

    /**
     * The memory a frame that has not all arrived holds now, in bytes: while its bytes are in the engine's scratch,
     * the scratch's buffers (the kept frame's, and the output buffers it holds with them) and its decode objects;
     * once the frame has waited {@link KeptInput#PARK_AFTER_MILLIS} ms without a new byte and the scratch went back,
     * its bytes only. 0 when no frame is partial. A transport that counts memory against a budget counts this; the
     * Jetty connection stops reading a connection with a partial frame while its server's budget is used up.
     *
     * @return the bytes held for a partial frame, 0 when there is none
     */
    public int partialFrameBytes() {
        return input.heldBytes();
    }

    /**
     * The configuration this engine was made with.
     *
     * @return the configuration given to the constructor
     */
    public EngineConfig config() {
        return config;
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    /**
     * Starts the connection at time {@code nowMillis}: an initiator writes its protocol header (and, without
     * SASL, its open); an acceptor starts the clock on the SASL handshake.
     *
     * @param nowMillis the current time in milliseconds, on the clock every later call of this engine uses
     */
    public void start(long nowMillis) {
        if (started) {
            return;
        }
        started = true;
        deadlines.start(nowMillis);
        if (!acceptor) {
            handshake.startInitiator();
        }
    }

    /**
     * The transport ended (its socket closed or failed), whether or not the close exchange finished: the connection is
     * over. Sessions and links still open end without an error, and the application is told once
     * ({@link EngineHandler#onClosed}) with the error a close carried, the peer's or, failing that, ours (a close we
     * sent that the peer never answered), or null when neither side sent one (the peer dropped the connection).
     * A transport calls it when its socket is gone; without it, an engine whose peer dropped the connection never
     * reports its end. Calling it again, or after the engine finished on its own, does nothing.
     */
    public void transportClosed() {
        lifecycle.finish();
    }

    /**
     * Whether the connection is over: the transport should write what output remains, then close.
     *
     * @return true once the connection is over (closed, failed or dropped); it stays true
     */
    public boolean isDone() {
        return lifecycle.isDone();
    }

    /**
     * Whether open has been exchanged and close has not.
     *
     * @return true from the peer's open on (ours has been sent by then) until our close begins (or our answer to the
     *     peer's): the handlers told of the links and sessions a close ends see it closed already
     */
    public boolean isOpen() {
        return lifecycle.isOpen();
    }

    /**
     * The peer's authenticated identity: the SASL identity, {@code anonymous} without SASL, null before.
     *
     * @return the authenticated identity, or null while the handshake is not complete
     */
    public String identity() {
        return lifecycle.identity();
    }

    /**
     * The error the peer sent in its close, when it did.
     *
     * @return the peer's error condition; when its close carried none (or it has not closed), an empty condition whose
     *     {@code condition()} is null
     */
    public ErrorCondition remoteError() {
        return lifecycle.remoteError();
    }

    /**
     * Whether our close has been written: nothing but the peer's close matters after it (AMQP 1.0 §2.4.3). A
     * transport gives the peer a bounded time to answer it, then ends.
     *
     * @return true once our close frame has been encoded; it stays true
     */
    public boolean closeSent() {
        return lifecycle.closeSent();
    }

    /**
     * The largest frame the peer accepts (from its open; 512 before).
     *
     * @return the peer's max-frame-size in bytes; 512 (the AMQP minimum) until its open has arrived
     */
    public int remoteMaxFrameSize() {
        return lifecycle.remoteMaxFrameSize();
    }

    /** Whether this engine waits for the peer to speak first. */
    boolean acceptor() {
        return acceptor;
    }

    /** Our open is out: from now on frames are limited to our max-frame-size, no longer to 512 bytes. */
    void openSent() {
        dispatcher.useNegotiatedLimit();
    }

    /** The peer's open arrived: nothing of the header exchange and SASL is needed any more. */
    void handshakeDone() {
        handshake = null;
    }

    // ------------------------------------------------------------------------------------------ input

    /**
     * Consumes bytes from the transport, any slice of the stream however frames are split; bytes of an incomplete
     * frame are kept until the rest arrives.
     *
     * @param bytes the array holding the transport's bytes; read during the call only, then free for the caller to
     *     reuse
     * @param offset index in {@code bytes} of the first byte to consume
     * @param length how many bytes to consume from {@code offset}
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     */
    public void ingest(byte[] bytes, int offset, int length, long nowMillis) {
        if (!started) {
            start(nowMillis);
        }
        input.ingest(bytes, offset, length, nowMillis);
    }

    /**
     * Consumes the remaining bytes of {@code buffer} (a heap or direct buffer), advancing its position.
     *
     * @param buffer the transport's bytes between its position and limit; read during the call only
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     */
    public void ingest(ByteBuffer buffer, long nowMillis) {
        if (!started) {
            start(nowMillis);
        }
        input.ingest(buffer, nowMillis);
    }

    /**
     * Consumes whole protocol headers and frames from {@code bytes[offset, offset + length)} and returns how many
     * bytes it used; the caller keeps the rest and offers it again with more. For transports that own their input
     * buffer (the Jetty connection); {@link #ingest} does the keeping for everyone else.
     *
     * @param bytes the transport's input buffer; the bytes used are read during the call only
     * @param offset index in {@code bytes} of the first unread byte
     * @param length how many bytes are readable from {@code offset}
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     * @return how many bytes from {@code offset} were consumed, from 0 (not even one whole frame yet) to {@code length}
     */
    public int process(byte[] bytes, int offset, int length, long nowMillis) {
        deadlines.receiving(length, nowMillis);
        int used = dispatcher.process(bytes, offset, length);
        if (length > 0 && deadlines.closedForPartialFrame(bytes, offset, length, used, nowMillis)) {
            return length;
        }
        return used;
    }

    // ------------------------------------------------------------------------------------------ output

    /**
     * The bytes to write to the transport next, or null when there are none. Write them (all at once if possible),
     * then call {@link #endFlush()}; until then this returns the same buffer, its position showing progress.
     *
     * @return the engine's output buffer with the bytes to write between position and limit, or null when nothing
     *     waits; owned by the engine, valid until {@link #endFlush()}
     */
    public ByteBuffer beginFlush() {
        flushDispositions();
        return output.beginFlush();
    }

    /**
     * The transport wrote everything {@link #beginFlush()} returned. Links that stopped sending because too much
     * output waited ({@link EngineConfig#maxPendingOutputBytes()}) send again now.
     */
    public void endFlush() {
        output.endFlush();
        if (blockedOnOutput && !outputFull()) {
            blockedOnOutput = false;
            sessions.pumpAll(); // sets blockedOnOutput again if the output fills before every link is done
        }
    }

    /**
     * Bytes encoded and not yet written: being flushed, or produced since. The transport's measure of how far the
     * engine is ahead of the socket (see {@link EngineConfig#maxPendingOutputBytes()}).
     *
     * @return the number of bytes encoded and not yet written, 0 when the output is empty
     */
    public int outputBytes() {
        return output.pendingBytes();
    }

    /** Whether sending links must wait for the transport before they encode more transfer frames. */
    boolean outputFull() {
        return output.pendingBytes() >= config.maxPendingOutputBytes();
    }

    /** A sending link stopped because the output was full: {@link #endFlush()} pumps the links again. */
    void blockedOnOutput() {
        blockedOnOutput = true;
    }

    /**
     * Whether output waits to be written.
     *
     * @return true when {@link #beginFlush()} would return bytes, held dispositions included
     */
    public boolean hasOutput() {
        return output.hasPending() || pendingDisposition.isPending();
    }

    AmqpWriter writer() {
        scratch();
        return output.writer();
    }

    /** A frame went out without {@link #writeFrame}: our silence for the peer's idle timeout starts again. */
    void wroteFrame() {
        deadlines.wroteFrame();
    }

    /** Encodes {@code p} as one AMQP frame on {@code channel}. */
    void writeFrame(int channel, Performative p) {
        flushDispositions();
        if (lifecycle.silenced()) {
            // AMQP 1.0 §2.4.3: nothing follows our close; the application may still settle or grant credit
            // from a callback that closed the connection.
            return;
        }
        AmqpWriter w = writer();
        int start = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, channel);
        p.encode(w);
        FrameWriter.end(w, start);
        deadlines.wroteFrame();
        if (tracer != null) {
            tracer.sent(channel, p, 0);
        }
    }

    /**
     * Writes a settled disposition of one delivery on {@code channel}, merged with the settlements just before it
     * when they form a range (see {@link PendingDisposition}).
     */
    void writeSettlement(int channel, Role role, int deliveryId, DeliveryState state) {
        if (!lifecycle.silenced()) {
            pendingDisposition.settle(channel, role, deliveryId, state);
        }
    }

    /** Writes the held range of settlements, if any: before every other frame, and when output is collected. */
    void flushDispositions() {
        if (pendingDisposition.isPending()) {
            pendingDisposition.flush(); // the check alone is small enough for the JIT to inline everywhere
        }
    }

    void writeHeader(ProtocolHeader header) {
        AmqpWriter w = writer();
        int at = w.reserve(ProtocolHeader.LENGTH);
        header.writeTo(w.array(), at);
        if (tracer != null) {
            tracer.header(false, header.toString());
        }
    }

    // ------------------------------------------------------------------------------------------ time

    /**
     * Whether {@link #tick} would now close the connection for the peer's silence. A transport that was not read for
     * a while (its process paused: a long GC, SIGSTOP, a suspended virtual machine; or its selector late) reads what
     * the socket holds before it ticks: the peer's frames may be there, unread.
     *
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     * @return true when no frame has arrived for the idle timeout
     */
    public boolean idleTimeoutPassed(long nowMillis) {
        return deadlines.idleTimeoutPassed(nowMillis);
    }

    /**
     * Whether {@link #tick} would now close the connection for a frame left incomplete longer than
     * {@link EngineConfig#partialFrameTimeoutMillis()}. As with {@link #idleTimeoutPassed}, a transport that was not
     * read for a while reads what the socket holds before it ticks: the rest of the frame may be there.
     *
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     * @return true when the frame the peer has begun is past its deadline
     */
    public boolean partialFrameTimeoutPassed(long nowMillis) {
        return deadlines.partialFrameTimeoutPassed(nowMillis);
    }

    /**
     * This side was paused (its process or its scheduler: a tick came long after it was due): the peer's frames of
     * that time may be in the transport, unread, so the silence is not judged yet. When the idle timeout has passed,
     * the next {@link #tick} that closes for silence comes {@code graceMillis} (at most the idle timeout) from now at
     * the earliest; once per silence, so that a peer that really went quiet is still closed, that much later. So
     * with a frame past its {@link #partialFrameTimeoutPassed deadline}: once per frame.
     *
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     * @param graceMillis how long the transport has to deliver what the peer sent meanwhile
     * @return true when the silence or the incomplete frame was excused now
     */
    public boolean excusePause(long nowMillis, long graceMillis) {
        return deadlines.excusePause(nowMillis, graceMillis);
    }

    /**
     * Lets time pass: closes the connection if the peer has been silent too long, or has left a frame incomplete for
     * longer than {@link EngineConfig#partialFrameTimeoutMillis()} (with {@code amqp:resource-limit-exceeded}), sends
     * a heartbeat when the peer's idle timeout needs one, and drops a transport whose SASL handshake did not finish
     * in time.
     *
     * @param nowMillis the current time in milliseconds, on the clock given to {@link #start}
     * @return when to call again at the latest, in the same clock as {@code nowMillis}
     */
    public long tick(long nowMillis) {
        long next = deadlines.tick(nowMillis);
        return Math.min(next, input.parkDue(nowMillis));
    }

    /** Writes an empty frame, a heartbeat (AMQP 1.0 §2.4.5), after any held settlements. */
    void writeHeartbeat() {
        flushDispositions();
        FrameWriter.writeEmpty(writer());
        if (tracer != null) {
            tracer.heartbeat(false);
        }
    }

    // ------------------------------------------------------------------------------------------ close

    /** Closes the connection cleanly (no error). */
    public void close() {
        lifecycle.close(null, null);
    }

    /**
     * Closes the connection with an error condition ({@code null} for a clean close).
     *
     * @param condition the AMQP error condition to send (e.g. {@code amqp:internal-error}), or null for a clean close
     * @param description human-readable detail sent with {@code condition}; null for none, ignored for a clean close
     */
    public void close(Symbol condition, String description) {
        lifecycle.close(condition, description);
    }

    // ------------------------------------------------------------------------------------------ sessions

    /** Forgets a session that ended on both sides. */
    void removeSession(Session s) {
        sessions.remove(s);
    }

    /**
     * Begins a session from this side; the peer's begin completes it.
     *
     * @return the new session on a free local channel, its begin frame queued for output
     * @throws IllegalStateException when our open has not been sent, the connection is closing or closed, or every
     *     channel up to the peer's channel-max is in use
     */
    public Session beginSession() {
        lifecycle.requireOpenForWork();
        int channelMax = lifecycle.remoteChannelMax();
        int local = sessions.freeLocalChannel(channelMax);
        if (local < 0) {
            throw new IllegalStateException("no channel free within the peer's channel-max " + channelMax);
        }
        Session s = sessions.create(local);
        s.sendBegin();
        return s;
    }

    // ------------------------------------------------------------------------------------------ reply nodes

    /** Generates an address no other node of this process has: used for dynamic nodes and temporary queues. */
    byte[] newNodeAddress() {
        String a = "amqp-servlet:" + id + ":node:" + (++nodeCounter);
        return a.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * The sending link that consumes from the reply node at {@code address} (a request's {@code reply-to}), or
     * null when no such node is attached on this connection. Allocates nothing.
     *
     * @param address the array holding the address bytes, as they appear in the message; not kept
     * @param offset index in {@code address} of the address's first byte
     * @param length the address's length in bytes
     * @return the link sending from that reply node, or null
     */
    public Link replyLink(byte[] address, int offset, int length) {
        ReplyNode n = nodes.get(address, offset, length);
        return n == null ? null : n.consumer;
    }

    // ------------------------------------------------------------------------------------------ deliveries

    /**
     * What {@link Link#send} returns for a pre-settled message written at once: settled on both sides, so already
     * without a link, like a delivery that was recycled. Reused for every such message, never pooled.
     */
    private Delivery settledSend;

    Delivery settledSend() {
        Delivery d = settledSend;
        if (d == null) {
            d = new Delivery();
            settledSend = d;
        }
        return d;
    }

    /**
     * The delivery of every pre-settled message received in one frame: settled by the peer and forgotten once the
     * application has seen it (AMQP 1.0 §2.6.12), so one object serves them all, never pooled. Taking and
     * returning a pooled delivery (four reference writes, each with its garbage-collector barrier) was the
     * dearest step of receiving such a message.
     */
    private Delivery settledReceive;

    Delivery settledReceive() {
        Delivery d = settledReceive;
        if (d == null) {
            d = new Delivery();
            settledReceive = d;
        }
        return d;
    }

    Delivery takeDelivery(Link link, int deliveryId) {
        Delivery d = pool.take();
        d.init(link, deliveryId);
        return d;
    }

    void recycle(Delivery d) {
        if (d.isReleased()) {
            return; // recycled already: the pool must not hold it twice
        }
        d.release();
        if (d.poolIndex >= 0) { // the settled records (settledSend, settledReceive) are released, never pooled
            pool.put(d);
        }
    }

    Delivery send(Link link, byte[] message, int offset, int length, boolean settled) {
        if (!link.acceptsMessages() || lifecycle.silenced()) {
            return null;
        }
        long max = link.remoteMaxMessageSize();
        if (max > 0 && length > max) {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds the peer's max-message-size " + max);
        }
        if (!settled && unsettledSentFull()) {
            return null;
        }
        return link.session().send(link, message, offset, length, settled);
    }

    /**
     * {@return whether the messages sent unsettled and not yet settled by the peer, on all sessions, have reached
     * {@link EngineConfig#maxUnsettledSentDeliveries()}} The peer's credit does not bound them, its settlements do.
     * While it is so, {@code send} and {@code beginMessage} return null for an unsettled message.
     */
    public boolean unsettledSentFull() {
        return unsettledSent() >= config.maxUnsettledSentDeliveries();
    }

    /** {@return the links this connection has now, on all its sessions (attached by either side, not yet ended)} */
    public int linkCount() {
        return linkCount;
    }

    /** {@return the sessions this connection has now (begun by either side and not yet ended)} Walks the sessions. */
    public int sessionCount() {
        int n = 0;
        Session[] all = sessions.all();
        for (int i = 0; i < all.length; i++) {
            if (all[i] != null) {
                n++;
            }
        }
        return n;
    }

    /**
     * {@return the messages this connection sent unsettled that the peer has not settled yet, on all sessions} Each
     * is a delivery the engine keeps until then (to apply the peer's disposition to): what a peer that never settles
     * makes the connection hold, up to {@link EngineConfig#maxUnsettledSentDeliveries()}. Walks the sessions.
     */
    public int unsettledSent() {
        int unsettled = 0;
        Session[] all = sessions.all();
        for (int i = 0; i < all.length; i++) {
            Session s = all[i];
            if (s != null) {
                unsettled += s.outgoing.size();
            }
        }
        return unsettled;
    }

    /**
     * Bytes of messages queued on this connection's sending links, waiting for credit or session window; sends
     * that would take it past {@link EngineConfig#maxBufferedBytesPerConnection()} are refused.
     *
     * @return the queued message bytes across every sending link of this connection
     */
    public long queuedBytes() {
        return queuedBytes;
    }

    /** Whether {@code length} more bytes may be queued: within the limit, or the first bytes queued at all. */
    boolean canQueue(int length) {
        return queuedBytes == 0 || queuedBytes + length <= config.maxBufferedBytesPerConnection();
    }

    /**
     * Stops or resumes granting credit on every receiving link: while paused, credit the application or
     * auto-credit would grant is not granted (the peer uses up what it has, then waits); on resume every link with
     * auto-credit is topped up at once. For a receiver that has no memory for more messages (AMQP 1.0 §2.6.7:
     * credit is the receiver's to give). No effect after {@link #stopCredit()}.
     *
     * @param paused true to stop granting credit, false to grant again (and top up auto-credit links)
     */
    public void pauseCredit(boolean paused) {
        if (creditPaused == paused || creditStopped) {
            return;
        }
        creditPaused = paused;
        if (!paused && isOpen()) {
            sessions.replenishCredit();
        }
    }

    /**
     * Whether credit is paused ({@link #pauseCredit}) or stopped ({@link #stopCredit}).
     *
     * @return true while credit is paused or after it was stopped for good
     */
    public boolean creditPaused() {
        return creditPaused;
    }

    /**
     * Takes back the credit of every receiving link for good: a flow with link-credit 0 goes to the peer on each
     * (AMQP 1.0 §2.6.7: a receiver may lower credit; the sender stops once it sees it), and no credit is granted
     * again on this connection. For a graceful stop: what the peer sent before it saw the flow still arrives.
     */
    public void stopCredit() {
        if (creditStopped) {
            return;
        }
        creditStopped = true;
        creditPaused = true;
        if (isOpen()) {
            sessions.revokeCredit();
        }
    }

    /**
     * Unsettled deliveries the peer sent us: received, not yet settled by the application.
     *
     * @return the number of received deliveries the application has not settled yet
     */
    public int unsettledIncoming() {
        return incomingUnsettled;
    }

    /**
     * Messages the peer sent on a link that had no credit for them, taken in (an unsettled one to be released) rather
     * than the link detached, as {@link EngineConfig#releaseBeyondCredit()} asks: RabbitMQ 3 overruns credit now and
     * then.
     *
     * @return how many such messages this connection received
     */
    public long receivedBeyondCredit() {
        return receivedBeyondCredit;
    }

    /** Grants credit on a receiving link, capped by the connection's in-flight limit, and writes the flow. */
    void grantCredit(Link link, long credit, boolean drain) {
        if (creditPaused) {
            return; // granted again on resume (pauseCredit), never after a stop
        }
        long room = Math.max(0, config.maxDeliveriesInFlight() - incomingUnsettled);
        link.credit().grant(Math.min(credit, room), drain);
        if (link.isOpen() && link.session().isOpen()) {
            link.session().writeLinkFlow(link, false);
        }
    }

    /**
     * Settles a delivery with an outcome: for a received message, tells the peer (unless it sent it settled) and
     * frees its place in flight; for a sent one, settles our side. The delivery is recycled: do not use it after.
     *
     * @param delivery a delivery of a link of this engine, as the handler received it or a send returned it
     * @param outcome the outcome to settle with (accepted, rejected, released or modified); read during the call only
     * @return false when the delivery was already recycled (settled before, or its link ended)
     */
    public boolean settle(Delivery delivery, DeliveryState outcome) {
        Link link = delivery.link();
        if (link == null) {
            return false; // already settled, or its link ended: nothing left to tell the peer
        }
        link.session().settle(delivery, outcome);
        return true;
    }

    /**
     * Settles a received message as accepted.
     *
     * @param delivery a received delivery not yet settled; recycled by this call
     */
    public void accept(Delivery delivery) {
        // The scratch outcome is the engine's own and only ever set whole: when it already says accepted, it need
        // not be cleared again (a dozen field writes per message).
        DeliveryState s = scratchState();
        settle(delivery, s.kind() == DeliveryState.Kind.ACCEPTED ? s : s.accepted());
    }

    /**
     * Settles a received message as released: not processed, the peer may send it again.
     *
     * @param delivery a received delivery not yet settled; recycled by this call
     */
    public void release(Delivery delivery) {
        DeliveryState s = scratchState();
        settle(delivery, s.kind() == DeliveryState.Kind.RELEASED ? s : s.released());
    }

    /**
     * Settles a received message as rejected with an error.
     *
     * @param delivery a received delivery not yet settled; recycled by this call
     * @param condition the AMQP error condition of the rejection (e.g. {@code amqp:decode-error}), or null for none
     * @param description human-readable detail sent with {@code condition}, or null for none
     */
    public void reject(Delivery delivery, Symbol condition, String description) {
        DeliveryState s = scratchState().rejected();
        s.error().condition(condition).description(description);
        settle(delivery, s);
    }

    /**
     * Settles a received message as modified (§3.4.5).
     *
     * @param delivery a received delivery not yet settled; recycled by this call
     * @param deliveryFailed true to tell the peer the delivery attempt failed (its delivery-count goes up on
     *     redelivery)
     * @param undeliverableHere true when this receiver will never take the message, so the peer must not send it here
     *     again
     */
    public void modified(Delivery delivery, boolean deliveryFailed, boolean undeliverableHere) {
        settle(delivery, scratchState().modified(deliveryFailed, undeliverableHere));
    }

    private DeliveryState scratchState() {
        return scratch().outcome;
    }

    /** A reusable outcome holder for the engine's own settlements. */
    DeliveryState scratchOutcome() {
        return scratch().outcome;
    }

    @Override
    public String toString() {
        return "Engine[" + config.containerId() + ":" + id + (acceptor ? " acceptor" : " initiator")
                + ", " + lifecycle + "]";
    }
}
