package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.Source;
import io.amqpservlet.protocol.types.messaging.Target;
import io.amqpservlet.protocol.types.transport.SenderSettleMode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One link (AMQP 1.0 §2.6) of a {@link Session}, seen from this engine: a sending link ({@link #isSender()}) moves
 * messages to the peer, a receiving link takes them from it. The link keeps its credit (§2.6.7), its agreed source
 * and target, and for a sending link a bounded queue of messages waiting for credit or session window.
 *
 * <p>All methods must be called on the engine's thread.
 */
public final class Link {
    private final Session session;
    private final MutableBytes name = new MutableBytes();
    private final boolean sender;
    private final int localHandle;
    private int remoteHandle = -1;
    private final Source source = new Source();
    private final Target target = new Target();
    private SenderSettleMode sndSettleMode = SenderSettleMode.MIXED;
    private boolean localAttached;
    private boolean detachReported;
    private boolean headStarted;
    private long remoteMaxMessageSize;
    private final LinkCredit credit = new LinkCredit(0);
    private boolean localDetachSent;
    private boolean remoteDetached;
    private boolean refused;
    private Object attachment;
    // Link pairing (LinkPairing): our attach carries paired=true; both attaches do; the other half once formed.
    private boolean pairRequested;
    private boolean pairAgreed;
    private Link pairedWith;

    // Receiving.
    private boolean streaming;
    private int autoCredit;
    private Delivery incoming;
    private byte[] assembly = NO_BYTES;
    private int assembled;
    private boolean discarding;

    // Sending: a ring of queued messages whose bytes are copied into reusable arrays.
    // Shared empty arrays until the first message is queued (docs/design.md §2: an idle link costs little).
    private static final byte[] NO_BYTES = {};
    private static final byte[][] NO_MESSAGES = {};
    private static final int[] NO_LENGTHS = {};
    private static final Delivery[] NO_DELIVERIES = {};
    private static final boolean[] NO_FLAGS = {};
    private byte[][] queuedBytes = NO_MESSAGES;
    private int[] queuedLength = NO_LENGTHS;
    private Delivery[] queuedDelivery = NO_DELIVERIES;
    private boolean[] queuedSettled = NO_FLAGS;
    private int queueHead;
    private int queueSize;
    private int sentOfHead;
    /** The queued message still being written ({@link #beginMessage}), or null: at most one per link. */
    Delivery openMessage;
    /** An open message the application aborted: dropped, or aborted on the wire, when it reaches the head. */
    Delivery abortedMessage;
    /** Bytes given so far for {@link #openMessage}, checked against the peer's max-message-size. */
    long openMessageBytes;
    private long nextTag;
    /** The length of the delivery tags this engine makes (§2.8.7: at most 32 bytes). */
    static final int TAG_BYTES = 8;
    private final byte[] tagBytes = new byte[TAG_BYTES];
    /** Writes the tag's 8 bytes at once, big-endian, instead of a byte at a time. */
    private static final VarHandle TAG_WRITER =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    ReplyNode node;

    Link(Session session, int localHandle, boolean sender) {
        this.session = session;
        this.localHandle = localHandle;
        this.sender = sender;
    }

    /**
     * The session this link belongs to.
     *
     * @return the session that attached this link; the same for the link's whole life
     */
    public Session session() {
        return session;
    }

    /**
     * The link name, unique per direction within a connection (§2.6.1).
     *
     * @return the name's bytes as sent in attach; owned by the link, do not modify
     */
    public MutableBytes name() {
        return name;
    }

    /**
     * Whether this side sends messages on the link.
     *
     * @return true for a sending link, false for a receiving one
     */
    public boolean isSender() {
        return sender;
    }

    /**
     * Our handle for the link.
     *
     * @return the handle we gave the link in our attach, unique among this session's links
     */
    public int localHandle() {
        return localHandle;
    }

    /**
     * The peer's handle, or -1 before its attach.
     *
     * @return the peer's handle, or -1 before its attach arrived
     */
    public int remoteHandle() {
        return remoteHandle;
    }

    void remoteHandle(int handle) {
        this.remoteHandle = handle;
    }

    /**
     * The source as agreed: ours for a sending link, the peer's (possibly with our dynamic address) otherwise.
     *
     * @return the source as agreed in attach; owned by the link, its fields empty before attach
     */
    public Source source() {
        return source;
    }

    /**
     * The target as agreed.
     *
     * @return the target as agreed in attach; owned by the link, its fields empty before attach
     */
    public Target target() {
        return target;
    }

    /**
     * The sender settle mode (AMQP 1.0 §2.8.2). The receiver settle mode is always first (§2.8.3).
     *
     * @return the sender settle mode both ends use on this link
     */
    public SenderSettleMode sndSettleMode() {
        return sndSettleMode;
    }

    void sndSettleMode(SenderSettleMode mode) {
        this.sndSettleMode = mode;
    }

    boolean localAttached() {
        return localAttached;
    }

    void localAttached(boolean value) {
        this.localAttached = value;
    }

    /** Whether the application has been told the link ended (it is told once). */
    boolean detachReported() {
        return detachReported;
    }

    void detachReported(boolean value) {
        this.detachReported = value;
    }

    boolean headStarted() {
        return headStarted;
    }

    void headStarted(boolean value) {
        this.headStarted = value;
    }

    /**
     * The largest message the peer accepts (0: no limit).
     *
     * @return the peer's max-message-size in bytes, or 0 when it sets no limit (or has not attached yet)
     */
    public long remoteMaxMessageSize() {
        return remoteMaxMessageSize;
    }

    void remoteMaxMessageSize(long bytes) {
        this.remoteMaxMessageSize = bytes;
    }

    /**
     * The link's credit state, for the engine only: credit changes by a flow the engine sends
     * ({@link #flow(long)}, {@link #drain()}, {@link #autoCredit(int)}) or receives, never by the application.
     */
    LinkCredit credit() {
        return credit;
    }

    /**
     * Sending link: whether the peer's credit (AMQP 1.0 §2.6.7) allows another message now.
     *
     * @return true when the link is a sender, open and holds at least one credit
     */
    public boolean canSend() {
        return credit.canSend();
    }

    /**
     * The link-credit as this end knows it (AMQP 1.0 §2.6.7); read-only, granted with {@link #flow(long)}.
     *
     * @return the credit in messages this end last knew of; 0 before any flow
     */
    public long linkCredit() {
        return credit.credit();
    }

    /**
     * The delivery-count as this end knows it (AMQP 1.0 §2.6.7).
     *
     * @return the delivery-count in messages (a sequence number, modulo 2^32)
     */
    public int deliveryCount() {
        return credit.deliveryCount();
    }

    /**
     * Whether both sides have attached and neither has detached.
     *
     * @return true between both attaches and the first detach
     */
    public boolean isOpen() {
        return localAttached && remoteHandle >= 0 && !localDetachSent && !remoteDetached && !refused;
    }

    /**
     * Whether a message may be given to this link now: it is open, or we attached it and the peer has not answered
     * yet. A message given before the answer waits on the link's queue for the peer's credit (AMQP 1.0 §2.6.7: no
     * credit before the peer's flow), as a client that attaches a sender and sends at once expects.
     *
     * @return true from our attach until either side detaches (or the peer refuses the link)
     */
    public boolean acceptsMessages() {
        return localAttached && !localDetachSent && !remoteDetached && !refused;
    }

    /**
     * Whether the link is over on both sides.
     *
     * @return true once our detach is sent and the peer's detach arrived (or the link was refused)
     */
    public boolean isClosed() {
        return localDetachSent && (remoteDetached || refused);
    }

    boolean localDetachSent() {
        return localDetachSent;
    }

    void localDetachSent(boolean sent) {
        this.localDetachSent = sent;
    }

    boolean remoteDetached() {
        return remoteDetached;
    }

    void remoteDetached(boolean detached) {
        this.remoteDetached = detached;
    }

    void refused(boolean value) {
        this.refused = value;
    }

    /**
     * An object of the application's, kept with the link.
     *
     * @return what the application last set with {@link #attachment(Object)}, or null
     */
    public Object attachment() {
        return attachment;
    }

    /**
     * Keeps an object of the application's with the link, e.g. the request a reply link answers; the engine never reads
     * it.
     *
     * @param value the object to keep, replacing any earlier one; null to clear it
     */
    public void attachment(Object value) {
        this.attachment = value;
    }

    /**
     * The other half of this link's pair (OASIS "AMQP Request-Response Messaging with Link Pairing"): the link of the
     * same session with the same name and the other role, both attached with the link property {@code paired = true}
     * on both sides. A request received on a pair's receiving half with {@code reply-to = "$me"} is answered on its
     * sending half.
     *
     * @return the other half while both halves are attached and paired; null for a link that is not paired, whose
     *     other half has not been attached yet, or has ended
     */
    public Link paired() {
        return pairedWith;
    }

    void pairedWith(Link other) {
        this.pairedWith = other;
    }

    /** Whether our attach carries {@code paired = true}. */
    boolean pairRequested() {
        return pairRequested;
    }

    void pairRequested(boolean value) {
        this.pairRequested = value;
    }

    /** Whether both attaches carry {@code paired = true}: this link is a half, with or without its partner yet. */
    boolean pairAgreed() {
        return pairAgreed;
    }

    void pairAgreed(boolean value) {
        this.pairAgreed = value;
    }

    // ------------------------------------------------------------------------------------------ receiving

    /**
     * Receiving link: whether messages of more than one frame are handed over frame by frame
     * ({@link EngineHandler#onMessageChunk}) instead of whole ({@link EngineHandler#onMessage}). Streaming never
     * buffers a message; a message that fits in one frame still comes whole, as a view over the frame. To stop a
     * sender in the middle of a streamed message, hold the session's window ({@link Session#holdIncoming()}).
     *
     * @param value true to hand multi-frame messages over frame by frame, false (the default) to hand them over whole
     * @return this link, for chaining
     */
    public Link streaming(boolean value) {
        this.streaming = value;
        return this;
    }

    /**
     * Receiving link: whether messages of more than one frame are handed over frame by frame
     * ({@link #streaming(boolean)}).
     *
     * @return true when streaming was turned on; false by default
     */
    public boolean streaming() {
        return streaming;
    }

    /**
     * Receiving link: grants {@code newCredit} to the peer now (a flow is queued). The engine never grants more than
     * its in-flight limit leaves room for.
     *
     * @param newCredit the link-credit to grant, in messages, not negative; it replaces the current credit (AMQP 1.0
     *     §2.7.4), capped by the in-flight limit; while credit is paused nothing is granted
     * @throws IllegalStateException when this is a sending link
     */
    public void flow(long newCredit) {
        requireReceiver();
        session.engine().grantCredit(this, newCredit, false);
    }

    /** Receiving link: asks the sender to use up or give back its credit (§2.6.7 drain). */
    public void drain() {
        requireReceiver();
        session.engine().grantCredit(this, credit.credit(), true);
    }

    /**
     * Receiving link: keeps the peer's credit topped up to {@code window} messages, replenished once half is
     * used; 0 turns it off. Grants the first window now.
     *
     * @param window the credit to keep the peer at, in messages; 0 turns auto-credit off
     * @return this link, for chaining
     * @throws IllegalStateException when this is a sending link
     */
    public Link autoCredit(int window) {
        requireReceiver();
        this.autoCredit = window;
        if (window > 0 && isOpen()) {
            session.engine().grantCredit(this, window, false);
        }
        return this;
    }

    int autoCreditWindow() {
        return autoCredit;
    }

    Delivery incoming() {
        return incoming;
    }

    void incoming(Delivery d) {
        this.incoming = d;
        this.assembled = 0;
        this.discarding = false;
    }

    boolean discarding() {
        return discarding;
    }

    void discarding(boolean value) {
        this.discarding = value;
    }

    /** Appends payload to the message being assembled; returns the assembly array (grown as needed). */
    byte[] assemble(byte[] payload, int offset, int length) {
        if (assembly.length - assembled < length) {
            assembly = Arrays.copyOf(assembly, Math.max(assembled + length, Math.max(256, assembly.length * 2)));
        }
        System.arraycopy(payload, offset, assembly, assembled, length);
        assembled += length;
        return assembly;
    }

    int assembled() {
        return assembled;
    }

    byte[] assembly() {
        return assembly;
    }

    private void requireReceiver() {
        if (sender) {
            throw new IllegalStateException("link " + name + " is a sending link");
        }
    }

    // ------------------------------------------------------------------------------------------ sending

    /**
     * Sending link: sends a message (its encoded sections), now if credit and session window allow, otherwise
     * queued (its bytes copied) until they do.
     *
     * @param message the array holding the encoded message; read during the call (copied when it must wait), then free
     *     for the caller to reuse
     * @param offset index in {@code message} of its first byte
     * @param length the message's length in bytes
     * @param settled whether to send it pre-settled (at-most-once, §3.4); a link whose snd-settle-mode is settled
     *     sends every message pre-settled, as that mode promises (§2.8.2)
     * @return the delivery, or null when the link takes no messages ({@link #acceptsMessages()}) or the message
     *         would have to wait and the link's queue is full ({@link EngineConfig#maxBufferedMessagesPerLink()}) or
     *         the connection's is
     *         ({@link EngineConfig#maxBufferedBytesPerConnection()}): the application then settles the request it
     *         answers as it sees fit (released, or modified once it has acted on it)
     * @throws IllegalStateException when this is a receiving link
     * @throws IllegalArgumentException when {@code length} exceeds the peer's max-message-size
     */
    public Delivery send(byte[] message, int offset, int length, boolean settled) {
        if (!sender) {
            throw new IllegalStateException("link " + name + " is a receiving link");
        }
        return session.engine().send(this, message, offset, length, settled || sndSettleMode == SenderSettleMode.SETTLED);
    }

    /**
     * Messages queued and not yet fully sent.
     *
     * @return the number of messages on this link's queue, the one being sent included
     */
    public int queued() {
        return queueSize;
    }

    /**
     * Sending link: starts a message whose bytes are not all known yet, sent as one delivery of several transfer
     * frames ({@code more=true} until the last, AMQP 1.0 §2.6.14) as its bytes come with {@link #appendMessage}
     * and credit, session window and the peer's max-frame-size allow. {@link #endMessage} sends the last frame,
     * {@link #abortMessage} aborts it. One open message per link at a time; messages sent after it wait behind it
     * (a link's deliveries go out one after the other). The application bounds memory by appending only when
     * {@link #unsentBytes} is low, which {@link EngineHandler#onSendable} tells it.
     *
     * @param bytes the first bytes of the encoded message (its header sections, usually)
     * @param offset index in {@code bytes} of the first byte
     * @param length how many bytes to take from {@code offset}; may be 0
     * @param settled whether to send it pre-settled (at-most-once, §3.4); always, on a link whose snd-settle-mode is
     *     settled (§2.8.2)
     * @return the delivery, or null when the link takes no messages ({@link #acceptsMessages()}) or its queue, or
     *         the connection's, is full (as for {@link #send})
     * @throws IllegalStateException when the link already has an open message
     * @throws IllegalArgumentException when the bytes exceed the peer's max-message-size
     */
    public Delivery beginMessage(byte[] bytes, int offset, int length, boolean settled) {
        if (!sender) {
            throw new IllegalStateException("link " + name + " is a receiving link");
        }
        if (openMessage != null) {
            throw new IllegalStateException("link " + name + " already has an open message");
        }
        if (!acceptsMessages() || !session.engine().isOpen()) {
            return null;
        }
        checkMessageSize(length);
        return session.outbound().beginMessage(this, bytes, offset, length,
                settled || sndSettleMode == SenderSettleMode.SETTLED);
    }

    /**
     * Appends bytes to the open message {@code d} and sends what credit and window allow.
     *
     * @param d the delivery {@link #beginMessage} returned
     * @param bytes the array holding the next bytes of the message; copied, then free for the caller to reuse
     * @param offset index in {@code bytes} of the first byte to append
     * @param length how many bytes to append
     * @return false when {@code d} is not this link's open message (any more): the link ended, or it was aborted
     * @throws IllegalArgumentException when the message would exceed the peer's max-message-size
     */
    public boolean appendMessage(Delivery d, byte[] bytes, int offset, int length) {
        if (d == null || d != openMessage) {
            return false;
        }
        checkMessageSize(openMessageBytes + length);
        openMessageBytes += length;
        appendToSlot(slotOf(d), bytes, offset, length);
        session.outbound().pumpForApplication(this);
        return true;
    }

    /**
     * Ends the open message {@code d}: its last frame goes as soon as the bytes before it have.
     *
     * @param d the delivery {@link #beginMessage} returned; ignored when it is null or not this link's open message
     */
    public void endMessage(Delivery d) {
        if (d != null && d == openMessage) {
            openMessage = null;
            session.outbound().pumpForApplication(this);
        }
    }

    /**
     * Aborts the open message {@code d}: if frames of it went out, a transfer with {@code aborted=true} follows
     * them (AMQP 1.0 §2.6.14: the delivery is then settled and gone); otherwise it is dropped unseen.
     *
     * @param d the delivery {@link #beginMessage} returned; ignored when it is null or not this link's open message
     */
    public void abortMessage(Delivery d) {
        if (d != null && d == openMessage) {
            openMessage = null;
            abortedMessage = d;
            session.outbound().pumpForApplication(this);
        }
    }

    /**
     * Bytes of the open message {@code d} given but not yet sent; 0 when {@code d} is not open.
     *
     * @param d the delivery {@link #beginMessage} returned
     * @return the bytes appended to {@code d} and not yet encoded into transfer frames
     */
    public long unsentBytes(Delivery d) {
        if (d == null || d != openMessage) {
            return 0;
        }
        int slot = slotOf(d);
        return queuedLength[slot] - (slot == queueHead ? sentOfHead : 0);
    }

    private void checkMessageSize(long bytes) {
        if (remoteMaxMessageSize > 0 && bytes > remoteMaxMessageSize) {
            throw new IllegalArgumentException("message of " + bytes + " bytes exceeds the peer's max-message-size "
                    + remoteMaxMessageSize);
        }
    }

    private int slotOf(Delivery d) {
        for (int i = queueSize - 1; i >= 0; i--) {
            int slot = (queueHead + i) % queuedBytes.length;
            if (queuedDelivery[slot] == d) {
                return slot;
            }
        }
        throw new IllegalStateException("open message not queued on " + name);
    }

    /** Appends to a queued message; the head drops what it already sent first, so only unsent bytes are kept. */
    private void appendToSlot(int slot, byte[] bytes, int offset, int length) {
        byte[] b = queuedBytes[slot];
        int have = queuedLength[slot];
        if (slot == queueHead && sentOfHead > 0) {
            System.arraycopy(b, sentOfHead, b, 0, have - sentOfHead);
            have -= sentOfHead;
            sentOfHead = 0;
        }
        if (b.length - have < length) {
            b = Arrays.copyOf(b, Math.max(have + length, b.length * 2));
            queuedBytes[slot] = b;
        }
        System.arraycopy(bytes, offset, b, have, length);
        queuedLength[slot] = have + length;
        session.engine().queuedBytes += length;
    }

    /** The next delivery tag: 8 bytes of a per-link counter, in an array reused for every message. */
    byte[] nextTag() {
        TAG_WRITER.set(tagBytes, 0, nextTag++);
        return tagBytes;
    }

    boolean enqueue(byte[] message, int offset, int length, boolean settled, Delivery delivery, int limit) {
        if (queueSize >= limit) {
            return false;
        }
        if (queueSize == queuedBytes.length) {
            growQueue();
        }
        int slot = (queueHead + queueSize) % queuedBytes.length;
        byte[] b = queuedBytes[slot];
        if (b == null || b.length < length) {
            b = new byte[Math.max(length, 256)];
            queuedBytes[slot] = b;
        }
        System.arraycopy(message, offset, b, 0, length);
        queuedLength[slot] = length;
        queuedSettled[slot] = settled;
        queuedDelivery[slot] = delivery;
        queueSize++;
        session.engine().queuedBytes += length;
        return true;
    }

    /** Doubles the ring; called only when it is full, so every slot is occupied and copied in order. */
    private void growQueue() {
        int old = queuedBytes.length;
        int n = Math.max(4, old * 2);
        byte[][] b = new byte[n][];
        int[] l = new int[n];
        Delivery[] d = new Delivery[n];
        boolean[] s = new boolean[n];
        for (int i = 0; i < queueSize; i++) {
            int from = (queueHead + i) % old;
            b[i] = queuedBytes[from];
            l[i] = queuedLength[from];
            d[i] = queuedDelivery[from];
            s[i] = queuedSettled[from];
        }
        queuedBytes = b;
        queuedLength = l;
        queuedDelivery = d;
        queuedSettled = s;
        queueHead = 0;
    }

    /**
     * Lets go of the reusable message arrays and the assembly buffer when nothing is queued or being assembled (an
     * idle link, docs/design.md §2); the next message makes them again.
     */
    void trimIdle() {
        if (queueSize == 0 && openMessage == null && abortedMessage == null) {
            queuedBytes = NO_MESSAGES;
            queuedLength = NO_LENGTHS;
            queuedDelivery = NO_DELIVERIES;
            queuedSettled = NO_FLAGS;
            queueHead = 0;
        }
        if (incoming == null && assembled == 0) {
            assembly = NO_BYTES;
        }
    }

    boolean hasQueued() {
        return queueSize > 0;
    }

    byte[] headBytes() {
        return queuedBytes[queueHead];
    }

    int headLength() {
        return queuedLength[queueHead];
    }

    Delivery headDelivery() {
        return queuedDelivery[queueHead];
    }

    boolean headSettled() {
        return queuedSettled[queueHead];
    }

    int sentOfHead() {
        return sentOfHead;
    }

    void sentOfHead(int bytes) {
        this.sentOfHead = bytes;
    }

    void dequeue() {
        // What of the head was not sent leaves the connection's count (all of it was, unless aborted or dropped).
        session.engine().queuedBytes -= queuedLength[queueHead] - sentOfHead;
        queuedDelivery[queueHead] = null;
        queueHead = (queueHead + 1) % queuedBytes.length;
        queueSize--;
        sentOfHead = 0;
        headStarted = false;
    }

    /** Drops every queued message (the link is ending) and recycles their deliveries. */
    void clearQueue(Engine engine) {
        openMessage = null;
        abortedMessage = null;
        while (queueSize > 0) {
            Delivery d = queuedDelivery[queueHead];
            // A started, unsettled head is also in the session's outgoing map, which recycles it.
            boolean inMap = headStarted && !queuedSettled[queueHead];
            dequeue();
            if (d != null && !inMap) {
                engine.recycle(d);
            }
        }
    }

    /**
     * Ends the link from this side (detach with closed=true), with an error condition or none.
     *
     * @param condition the AMQP error condition to send (e.g. {@code amqp:internal-error}), or null to detach without
     *     error
     * @param description human-readable detail sent with {@code condition}, or null for none
     */
    public void detach(io.amqpservlet.protocol.types.Symbol condition, String description) {
        session.detach(this, condition, description);
    }

    @Override
    public String toString() {
        return "Link[" + name + (sender ? " sender" : " receiver") + ", handle=" + localHandle + "/" + remoteHandle
                + ", credit=" + credit.credit() + ", queued=" + queueSize + "]";
    }
}
