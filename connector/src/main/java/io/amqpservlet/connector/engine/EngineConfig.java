package io.amqpservlet.connector.engine;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecoderLimits;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything an {@link Engine} needs to know before the first byte: its role, identity, SASL setup and every
 * limit a peer could otherwise push past (docs/design.md §5). Set it up with the fluent setters, then hand it to one or
 * more engines; an engine reads it once at construction, so changing it later affects only new engines.
 *
 * <p>Defaults suit a gateway on a small machine: 64 KiB frames, 256 channels, 1,024 links per session, 16 MiB
 * messages, 1,024 deliveries in flight per connection, 60 s idle timeout, 10 s from connect to the peer's open, 30 s
 * for a frame to arrive whole.
 */
public final class EngineConfig {
    /**
     * The longest any timeout of the engine may be, 2^32 - 1 ms (about 49.7 days): half the idle timeout goes in the
     * open as a uint (AMQP 1.0 §2.7.1), and deadlines add a timeout to the clock. A setter refuses a longer one.
     */
    public static final long MAX_TIMEOUT_MILLIS = 0xFFFF_FFFFL;
    /**
     * The deepest nesting {@link #decoderLimits(DecoderLimits)} may allow, 1,024 (sixteen times the default): each
     * decoder sizes its nesting stack from it once (20 bytes a level, three decoders to an engine's scratch), so a
     * depth set by mistake in the millions would cost megabytes per connection at work.
     */
    public static final int MAX_DECODE_DEPTH = 1024;

    /** Which side of the connection the engine plays. */
    public enum Role {
        /** Waits for the peer's protocol header and answers: the gateway. */
        ACCEPTOR,
        /** Speaks first: the load generator, tests, a client. */
        INITIATOR
    }

    private Role role = Role.ACCEPTOR;
    private String containerId = "amqp-servlet";
    private String hostname;
    private Map<String, String> connectionProperties = Map.of();
    /** {@link #connectionProperties} as the open carries them, encoded once; null when there are none. */
    private byte[] connectionPropertiesEncoded;
    private int maxFrameSizeBytes = 64 * 1024;
    private int channelMax = 255;
    private int handleMax = 1023;
    private int maxLinksPerConnection = 1024;
    private int maxLinkBytesPerConnection = 32 * 1024;
    private int sessionIncomingWindowFrames = 2048;
    private long maxMessageSizeBytes = 16L * 1024 * 1024;
    private int maxDeliveriesInFlight = 1024;
    private int maxUnsettledSentDeliveries = 16_384;
    private boolean releaseBeyondCredit;
    private boolean rejectTooLargeMessages;
    private int maxBufferedMessagesPerLink = 1024;
    private long maxBufferedBytesPerConnection = 8L * 1024 * 1024;
    private int maxPendingOutputBytes = 256 * 1024;
    private long idleTimeoutMillis = 60_000;
    private long minPeerIdleTimeoutMillis = 100;
    private long saslTimeoutMillis = 10_000;
    private long partialFrameTimeoutMillis = 30_000;
    private boolean saslRequired = true;
    private boolean anonymousAllowed;
    private PlainAuthenticator plainAuthenticator;
    private String saslMechanism;
    private String saslUsername;
    private String saslPassword;
    private DecoderLimits decoderLimits = DecoderLimits.DEFAULT;
    /**
     * The scratch of this configuration's idle engines (docs/design.md §2), made on first use; a change of the
     * frame size or the decoder limits starts a new one, as its scratch is sized by them.
     */
    private volatile EngineScratchPool scratchPool;
    private boolean trace = "1".equals(System.getenv("PN_TRACE_FRM")) || Boolean.getBoolean("amqp.trace");

    /** Creates an empty {@code EngineConfig}. */
    public EngineConfig() {
    }

    /** {@return which side of the connection the engine plays} */
    public Role role() {
        return role;
    }

    /**
     * Sets {@link #role()}.
     *
     * @param role its new value
     * @return this configuration
     */
    public EngineConfig role(Role role) {
        this.role = role;
        return this;
    }

    /** {@return the container-id sent in open} */
    public String containerId() {
        return containerId;
    }

    /**
     * Sets {@link #containerId()}.
     *
     * @param containerId its new value
     * @return this configuration
     */
    public EngineConfig containerId(String containerId) {
        this.containerId = containerId;
        return this;
    }

    /** {@return the hostname an initiator sends in open (and sasl-init); null sends none} */
    public String hostname() {
        return hostname;
    }

    /**
     * Sets {@link #hostname()}.
     *
     * @param hostname its new value
     * @return this configuration
     */
    public EngineConfig hostname(String hostname) {
        this.hostname = hostname;
        return this;
    }

    /**
     * {@return the connection properties our open offers (AMQP 1.0 §2.7.1 {@code properties}: symbol keys, here with
     * string values), in the order they were given; empty by default}
     */
    public Map<String, String> connectionProperties() {
        return connectionProperties;
    }

    /**
     * Sets {@link #connectionProperties()}: what the open tells the peer about this end. Some clients look here
     * before they go on: RabbitMQ 4's AMQP 1.0 clients read {@code product}, {@code version} (4.0.0 or later)
     * and {@code node}.
     *
     * @param properties the keys (sent as symbols: ASCII, not empty) and their string values; copied
     * @return this configuration
     * @throws IllegalArgumentException when a key is empty or not ASCII, or a key or value is null
     */
    public EngineConfig connectionProperties(Map<String, String> properties) {
        Map<String, String> copy = new LinkedHashMap<>();
        AmqpWriter w = new AmqpWriter(64);
        w.startMap();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            String key = e.getKey();
            if (key == null || key.isEmpty() || !key.chars().allMatch(c -> c < 0x80)) {
                throw new IllegalArgumentException("a connection property's key must be a non-empty ASCII symbol: "
                        + key);
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("connection property " + key + " has no value");
            }
            copy.put(key, e.getValue());
            w.writeSymbol(key);
            w.writeString(e.getValue());
        }
        w.endMap();
        this.connectionProperties = Collections.unmodifiableMap(copy);
        this.connectionPropertiesEncoded = copy.isEmpty() ? null : w.toByteArray();
        return this;
    }

    /** The encoded {@link #connectionProperties()}, or null when there are none (engine only). */
    byte[] connectionPropertiesEncoded() {
        return connectionPropertiesEncoded;
    }

    /** {@return the largest frame accepted from the peer, advertised in open (AMQP 1.0 §2.7.1); at least 512} */
    public int maxFrameSizeBytes() {
        return maxFrameSizeBytes;
    }

    /**
     * Sets {@link #maxFrameSizeBytes()}.
     *
     * @param bytes its new value
     * @return this configuration
     */
    public EngineConfig maxFrameSizeBytes(int bytes) {
        if (bytes < 512) {
            throw new IllegalArgumentException("max-frame-size must be at least 512: " + bytes);
        }
        this.maxFrameSizeBytes = bytes;
        this.scratchPool = null;
        return this;
    }

    /** {@return the highest channel number the peer may use, advertised in open; limits sessions per connection} */
    public int channelMax() {
        return channelMax;
    }

    /**
     * Sets {@link #channelMax()}.
     *
     * @param channelMax its new value
     * @return this configuration
     */
    public EngineConfig channelMax(int channelMax) {
        if (channelMax < 0 || channelMax > 65535) {
            throw new IllegalArgumentException("channel-max is a ushort: " + channelMax);
        }
        this.channelMax = channelMax;
        return this;
    }

    /**
     * {@return the highest link handle the peer may use in a session, advertised in begin; limits links per
     * session}
     */
    public int handleMax() {
        return handleMax;
    }

    /**
     * Sets {@link #handleMax()}.
     *
     * @param handleMax its new value
     * @return this configuration
     */
    public EngineConfig handleMax(int handleMax) {
        if (handleMax < 0) {
            throw new IllegalArgumentException("handle-max must be in [0, 2^31): " + handleMax);
        }
        this.handleMax = handleMax;
        return this;
    }

    /**
     * {@return how many links the peer may have attached on one connection, all its sessions together} Each link
     * keeps its name and termini, so channel-max × handle-max alone would let one connection hold hundreds of
     * thousands of them. An attach beyond it ends its session with {@code amqp:resource-limit-exceeded}, as one
     * beyond handle-max does.
     */
    public int maxLinksPerConnection() {
        return maxLinksPerConnection;
    }

    /**
     * Sets {@link #maxLinksPerConnection()}.
     *
     * @param links its new value, at least 1
     * @return this configuration
     */
    public EngineConfig maxLinksPerConnection(int links) {
        if (links < 1) {
            throw new IllegalArgumentException("max links per connection must be at least 1: " + links);
        }
        this.maxLinksPerConnection = links;
        return this;
    }

    /**
     * {@return how many bytes of names and termini the peer's attaches may leave on one connection's links, all its
     * sessions together} A link keeps its name and both termini (addresses, capabilities, filters, node properties)
     * as the peer sent them, up to a max-frame-size each: without this bound the links a connection may have would
     * let one client keep the server's heap in a few connections. An attach that would take the connection past it
     * ends its session with {@code amqp:resource-limit-exceeded}, as one beyond {@link #maxLinksPerConnection()}
     * does. The termini count as encoded.
     */
    public int maxLinkBytesPerConnection() {
        return maxLinkBytesPerConnection;
    }

    /**
     * Sets {@link #maxLinkBytesPerConnection()}.
     *
     * @param bytes its new value, at least 1
     * @return this configuration
     */
    public EngineConfig maxLinkBytesPerConnection(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("max link bytes per connection must be at least 1: " + bytes);
        }
        this.maxLinkBytesPerConnection = bytes;
        return this;
    }

    /** {@return the incoming window each session advertises, in transfer frames (AMQP 1.0 §2.5.6)} */
    public int sessionIncomingWindowFrames() {
        return sessionIncomingWindowFrames;
    }

    /**
     * Sets {@link #sessionIncomingWindowFrames()}.
     *
     * @param frames its new value
     * @return this configuration
     */
    public EngineConfig sessionIncomingWindowFrames(int frames) {
        if (frames < 1) {
            throw new IllegalArgumentException("incoming window must be at least 1 frame: " + frames);
        }
        this.sessionIncomingWindowFrames = frames;
        return this;
    }

    /**
     * {@return the largest message accepted, counted across all its transfer frames; advertised as max-message-size in
     * attach} A larger one detaches its link with {@code amqp:link:message-size-exceeded}.
     */
    public long maxMessageSizeBytes() {
        return maxMessageSizeBytes;
    }

    /**
     * Sets {@link #maxMessageSizeBytes()}.
     *
     * @param bytes its new value
     * @return this configuration
     */
    public EngineConfig maxMessageSizeBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("max message size must be positive: " + bytes);
        }
        this.maxMessageSizeBytes = bytes;
        return this;
    }

    /**
     * {@return how many messages sent unsettled on one connection may wait for the peer's settlement} Each is kept
     * until the peer settles it (AMQP 1.0 §2.6.12), and the peer's credit does not bound them: at the limit
     * {@code send} and {@code beginMessage} return null for an unsettled message, as for a full queue, until a
     * settlement makes room. Pre-settled messages are not counted.
     */
    public int maxUnsettledSentDeliveries() {
        return maxUnsettledSentDeliveries;
    }

    /**
     * Sets {@link #maxUnsettledSentDeliveries()}.
     *
     * @param deliveries its new value, at least 1
     * @return this configuration
     */
    public EngineConfig maxUnsettledSentDeliveries(int deliveries) {
        if (deliveries < 1) {
            throw new IllegalArgumentException("max unsettled sent deliveries must be at least 1: " + deliveries);
        }
        this.maxUnsettledSentDeliveries = deliveries;
        return this;
    }

    /**
     * {@return unsettled incoming deliveries allowed on one connection} Receivers never grant credit beyond it, and a
     * delivery that arrives past it anyway (credit granted on several links adds up) is not handed to the
     * application: it is settled as released once complete, so the peer may send it again (docs/design.md §3).
     */
    public int maxDeliveriesInFlight() {
        return maxDeliveriesInFlight;
    }

    /**
     * Sets {@link #maxDeliveriesInFlight()}.
     *
     * @param deliveries its new value
     * @return this configuration
     */
    public EngineConfig maxDeliveriesInFlight(int deliveries) {
        if (deliveries < 1) {
            throw new IllegalArgumentException("deliveries in flight must be at least 1: " + deliveries);
        }
        this.maxDeliveriesInFlight = deliveries;
        return this;
    }

    /**
     * {@return what a receiving link does with a message the sender had no credit for} False (the default): the
     * link is detached with {@code amqp:link:transfer-limit-exceeded} (AMQP 1.0 §2.6.7). True: the message is taken
     * in, not handed to the application, and released once complete, so the sender may deliver it again, as for a
     * message past {@link #maxDeliveriesInFlight()}. For a peer known to overrun credit now and then (RabbitMQ 3's
     * AMQP 1.0 plugin, whose queue keeps sending on credit the link has already taken back): detaching the link would
     * return every unsettled message to the queue, answered ones included.
     */
    public boolean releaseBeyondCredit() {
        return releaseBeyondCredit;
    }

    /**
     * Sets {@link #releaseBeyondCredit()}.
     *
     * @param release true to release messages sent beyond credit instead of detaching the link
     * @return this configuration
     */
    public EngineConfig releaseBeyondCredit(boolean release) {
        this.releaseBeyondCredit = release;
        return this;
    }

    /**
     * {@return what a receiving link does with a message larger than {@link #maxMessageSizeBytes()}} False (the
     * default): the link is detached with {@code amqp:link:message-size-exceeded} (AMQP 1.0 §2.7.3: the limit is
     * announced in the attach, and a sender that passes it commits a link error). True: the message alone is settled
     * as rejected with that condition, before its last frame (§2.6.12), the rest of it dropped as it comes, and the
     * link goes on; a pre-settled one is dropped. For a peer that does not keep to the announced limit and would
     * deliver the same message again on a new link (a broker's queue): detaching would bring it back at once, and
     * with it every message unsettled on the link; rejected, a broker dead-letters it. The application hears of a
     * message it had begun to receive as of an aborted one.
     */
    public boolean rejectTooLargeMessages() {
        return rejectTooLargeMessages;
    }

    /**
     * Sets {@link #rejectTooLargeMessages()}.
     *
     * @param reject true to reject a message over the size limit instead of detaching the link
     * @return this configuration
     */
    public EngineConfig rejectTooLargeMessages(boolean reject) {
        this.rejectTooLargeMessages = reject;
        return this;
    }

    /** {@return messages queued on one sending link while it waits for credit or session window; more are refused} */
    public int maxBufferedMessagesPerLink() {
        return maxBufferedMessagesPerLink;
    }

    /**
     * Sets {@link #maxBufferedMessagesPerLink()}.
     *
     * @param messages its new value
     * @return this configuration
     */
    public EngineConfig maxBufferedMessagesPerLink(int messages) {
        if (messages < 0) {
            throw new IllegalArgumentException("buffered messages must not be negative: " + messages);
        }
        this.maxBufferedMessagesPerLink = messages;
        return this;
    }

    /**
     * {@return bytes of messages queued on all sending links of one connection while they wait for credit or session
     * window (docs/design.md §5: a peer with many reply links must not multiply what it can tie up)} A
     * {@link Link#send} or {@link Link#beginMessage} whose bytes would take the total past it is refused (it
     * returns null), unless nothing is queued on the connection, so one message of any size can always wait. Bytes
     * appended to an open message count too but are never refused: a streaming sender bounds them with
     * {@link Link#unsentBytes}.
     */
    public long maxBufferedBytesPerConnection() {
        return maxBufferedBytesPerConnection;
    }

    /**
     * Sets {@link #maxBufferedBytesPerConnection()}.
     *
     * @param bytes its new value
     * @return this configuration
     */
    public EngineConfig maxBufferedBytesPerConnection(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("buffered bytes must not be negative: " + bytes);
        }
        this.maxBufferedBytesPerConnection = bytes;
        return this;
    }

    /**
     * Encoded bytes the engine keeps ahead of the transport: while this much output waits to be written (encoded and
     * not yet through {@link Engine#endFlush()}), sending links stop turning queued messages into transfer frames,
     * whatever credit and session window the peer granted, and resume when the transport has written. A peer that
     * stops reading its socket so costs this (plus at most one frame) in encoded output, and queued messages count
     * against {@link #maxBufferedBytesPerConnection()} instead of growing the output without bound. Control frames
     * (flow, disposition, close) are never held back. Default 256 KiB.
     *
     * @return the bound in bytes
     */
    public int maxPendingOutputBytes() {
        return maxPendingOutputBytes;
    }

    /**
     * Sets {@link #maxPendingOutputBytes()}.
     *
     * @param bytes its new value, at least 1
     * @return this configuration
     */
    public EngineConfig maxPendingOutputBytes(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("pending output must be at least 1 byte: " + bytes);
        }
        this.maxPendingOutputBytes = bytes;
        return this;
    }

    /**
     * {@return silence after which the connection is closed with {@code amqp:resource-limit-exceeded}; 0 disables it}
     * Half of it is advertised as idle-time-out in open, so a peer heartbeating at its advertised pace has a whole
     * interval to spare (AMQP 1.0 §2.4.5).
     */
    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    /**
     * Sets {@link #idleTimeoutMillis()}.
     *
     * @param millis its new value
     * @return this configuration
     */
    public EngineConfig idleTimeoutMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("idle timeout must not be negative: " + millis);
        }
        checkTimeout("idle timeout", millis);
        this.idleTimeoutMillis = millis;
        return this;
    }

    /**
     * {@return the shortest idle-time-out a peer may announce in its open} We send something at least every half of
     * it (AMQP 1.0 §2.4.5), so a peer that announced 1 ms would have us write 2,000 empty frames a second for it. A
     * shorter one (0 is none, and allowed) is answered with our open and a close with
     * {@code amqp:resource-limit-exceeded} that names both, as §2.4.5 has a peer that cannot keep to a proposed idle
     * timeout do.
     */
    public long minPeerIdleTimeoutMillis() {
        return minPeerIdleTimeoutMillis;
    }

    /**
     * Sets {@link #minPeerIdleTimeoutMillis()}.
     *
     * @param millis its new value; 1 accepts any
     * @return this configuration
     */
    public EngineConfig minPeerIdleTimeoutMillis(long millis) {
        if (millis < 1) {
            throw new IllegalArgumentException("min peer idle timeout must be at least 1: " + millis);
        }
        checkTimeout("min peer idle timeout", millis);
        this.minPeerIdleTimeoutMillis = millis;
        return this;
    }

    /**
     * {@return how long a frame the peer has begun may stay incomplete, from the arrival of its first byte; 0 disables
     * it} While a frame is partly read, the engine keeps its bytes (up to {@link #maxFrameSizeBytes()}) and holds
     * its working buffers; any byte counts as activity for {@link #idleTimeoutMillis()}, so without this deadline a
     * peer sending a frame a byte at a time would hold both for as long as it likes. A frame still incomplete after
     * it closes the connection with {@code amqp:resource-limit-exceeded}, naming the bytes received of the frame's
     * size. The clock is per frame (it starts again with the next frame), and time in which this side did not read
     * because its own output was backed up ({@link #maxPendingOutputBytes()}) is not the peer's: each time the
     * engine sees its output at that bound, and the first time it sees it below again, the frame's clock starts
     * again. While the handshake deadline
     * ({@link #saslTimeoutMillis()}) runs, until the peer's open, it applies instead. Default 30 s.
     */
    public long partialFrameTimeoutMillis() {
        return partialFrameTimeoutMillis;
    }

    /**
     * Sets {@link #partialFrameTimeoutMillis()}.
     *
     * @param millis its new value; 0 disables it
     * @return this configuration
     */
    public EngineConfig partialFrameTimeoutMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("partial frame timeout must not be negative: " + millis);
        }
        checkTimeout("partial frame timeout", millis);
        this.partialFrameTimeoutMillis = millis;
        return this;
    }

    /**
     * {@return time from the first byte until the peer's open must have arrived (SASL included, when used); an acceptor
     * closes the transport after it}
     */
    public long saslTimeoutMillis() {
        return saslTimeoutMillis;
    }

    /**
     * Sets {@link #saslTimeoutMillis()}.
     *
     * @param millis its new value
     * @return this configuration
     */
    public EngineConfig saslTimeoutMillis(long millis) {
        checkTimeout("SASL timeout", millis);
        this.saslTimeoutMillis = millis;
        return this;
    }

    /**
     * {@return acceptor: whether a peer must authenticate with SASL} When false, a peer may also open without SASL (its
     * identity is then anonymous). Initiator: whether to start with the SASL header.
     */
    public boolean saslRequired() {
        return saslRequired;
    }

    /**
     * Sets {@link #saslRequired()}.
     *
     * @param required its new value
     * @return this configuration
     */
    public EngineConfig saslRequired(boolean required) {
        this.saslRequired = required;
        return this;
    }

    /** {@return acceptor: whether SASL ANONYMOUS is offered} */
    public boolean anonymousAllowed() {
        return anonymousAllowed;
    }

    /**
     * Sets {@link #anonymousAllowed()}.
     *
     * @param allowed its new value
     * @return this configuration
     */
    public EngineConfig anonymousAllowed(boolean allowed) {
        this.anonymousAllowed = allowed;
        return this;
    }

    /** {@return acceptor: what checks SASL PLAIN credentials; null means PLAIN is not offered} */
    public PlainAuthenticator plainAuthenticator() {
        return plainAuthenticator;
    }

    /**
     * Sets {@link #plainAuthenticator()}.
     *
     * @param authenticator its new value
     * @return this configuration
     */
    public EngineConfig plainAuthenticator(PlainAuthenticator authenticator) {
        this.plainAuthenticator = authenticator;
        return this;
    }

    /**
     * Initiator: authenticate with SASL PLAIN as this user.
     *
     * @param username the authentication identity (RFC 4616)
     * @param password its password
     * @return this configuration
     */
    public EngineConfig saslPlain(String username, String password) {
        this.saslMechanism = "PLAIN";
        this.saslUsername = username;
        this.saslPassword = password;
        this.saslRequired = true;
        return this;
    }

    /**
     * Initiator: authenticate with SASL ANONYMOUS.
     *
     * @return this configuration
     */
    public EngineConfig saslAnonymous() {
        this.saslMechanism = "ANONYMOUS";
        this.saslRequired = true;
        return this;
    }

    /**
     * Initiator: authenticate with SASL EXTERNAL, the identity the transport (TLS) established.
     *
     * @return this configuration
     */
    public EngineConfig saslExternal() {
        this.saslMechanism = "EXTERNAL";
        this.saslRequired = true;
        return this;
    }

    /** {@return initiator: the mechanism to use (PLAIN, ANONYMOUS or EXTERNAL), or null} */
    public String saslMechanism() {
        return saslMechanism;
    }

    String saslUsername() {
        return saslUsername;
    }

    String saslPassword() {
        return saslPassword;
    }

    /** About the engines of one configuration that work at the same moment; more just allocate their scratch. */
    static final int SCRATCH_POOL_SLOTS = 64;

    /** Where this configuration's engines take their scratch from and give it back to. */
    EngineScratchPool scratchPool() {
        EngineScratchPool p = scratchPool;
        if (p == null) {
            synchronized (this) {
                p = scratchPool;
                if (p == null) {
                    p = new EngineScratchPool(this, SCRATCH_POOL_SLOTS);
                    scratchPool = p;
                }
            }
        }
        return p;
    }

    /** {@return the bounds on nesting and element counts when decoding what the peer sends} */
    public DecoderLimits decoderLimits() {
        return decoderLimits;
    }

    /**
     * Sets {@link #decoderLimits()}.
     *
     * @param limits its new value; its depth at most {@link #MAX_DECODE_DEPTH}
     * @return this configuration
     * @throws IllegalArgumentException when the depth is over {@link #MAX_DECODE_DEPTH}
     */
    public EngineConfig decoderLimits(DecoderLimits limits) {
        if (limits.maxDepth() > MAX_DECODE_DEPTH) {
            throw new IllegalArgumentException("decoder depth must be at most " + MAX_DECODE_DEPTH + ": "
                    + limits.maxDepth());
        }
        this.decoderLimits = limits;
        this.scratchPool = null;
        return this;
    }

    /**
     * {@return whether every frame in and out is printed to standard error, in the style of Proton's
     * {@code PN_TRACE_FRM=1}} Defaults to on when that variable is 1 or the system property {@code amqp.trace}
     * is true.
     */
    public boolean trace() {
        return trace;
    }

    /**
     * Sets {@link #trace()}.
     *
     * @param trace its new value
     * @return this configuration
     */
    public EngineConfig trace(boolean trace) {
        this.trace = trace;
        return this;
    }

    /** Timeouts are at most {@link #MAX_TIMEOUT_MILLIS}: see there. */
    private static void checkTimeout(String name, long millis) {
        if (millis > MAX_TIMEOUT_MILLIS) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_TIMEOUT_MILLIS + " ms: " + millis);
        }
    }
}
