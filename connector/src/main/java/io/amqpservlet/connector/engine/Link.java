package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Source;
import io.amqpservlet.protocol.types.messaging.Target;
import io.amqpservlet.protocol.types.transport.SenderSettleMode;

/**
 * One link (AMQP 1.0 §2.6) of a {@link Session}, seen from this engine: a sending link ({@link #isSender()}) moves
 * messages to the peer, a receiving link takes them from it. The link keeps its credit (§2.6.7), its agreed source
 * and target, and for a sending link a bounded queue of messages waiting for credit or session window. Where it
 * is in its life is a {@link LinkState} (see the diagram there); what only one role has lives in a
 * {@link SenderState} or a {@link ReceiverState}, the other being null.
 *
 * <p>All methods must be called on the engine's thread.
 */
public final class Link {
    private final Session session;
    private final MutableBytes name = new MutableBytes();
    /** Bytes of the peer's attach this link keeps, counted in {@code Engine.linkBytes} (see {@code Session.keepPeerBytes}). */
    int peerBytes;
    private final int localHandle;
    private int remoteHandle = -1;
    private final Source source = new Source();
    private final Target target = new Target();
    private SenderSettleMode sndSettleMode = SenderSettleMode.MIXED;
    private LinkState state = LinkState.DETACHED;
    /** Our detach (or refusal) went out before the peer's detach. */
    private boolean endedHere;
    private long remoteMaxMessageSize;
    private final LinkCredit credit = new LinkCredit(0);
    private Object attachment;
    /** Link pairing ({@link LinkPairing}): how far this link has got to being a half, and the other half. */
    private LinkPairing.Stage pairing = LinkPairing.Stage.PLAIN;
    private Link pairedWith;
    /** Non-null exactly for a sending link. */
    private final SenderState sending;
    /** Non-null exactly for a receiving link. */
    private final ReceiverState receiving;

    ReplyNode node;

    Link(Session session, int localHandle, boolean sender) {
        this.session = session;
        this.localHandle = localHandle;
        this.sending = sender ? new SenderState(session.engine()) : null;
        this.receiving = sender ? null : new ReceiverState();
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
        return sending != null;
    }

    /** What only a sending link has; null for a receiving link. */
    SenderState sending() {
        return sending;
    }

    /** What only a receiving link has; null for a sending link. */
    ReceiverState receiving() {
        return receiving;
    }

    /** Where the link is in its life. */
    LinkState state() {
        return state;
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

    /** The peer's attach arrived with {@code handle}: the link is attached on its side too. */
    void onAttachReceived(int handle) {
        this.remoteHandle = handle;
        if (state == LinkState.DETACHED) {
            state = LinkState.ATTACH_RECEIVED;
        } else if (state == LinkState.ATTACH_SENT) {
            state = LinkState.ATTACHED;
        } // else we detached before the peer answered our attach: its detach ends the link
    }

    /** Our attach went out (accepting the peer's, or starting the link). */
    void onAttachSent() {
        if (state == LinkState.DETACHED) {
            state = LinkState.ATTACH_SENT;
        } else if (state == LinkState.ATTACH_RECEIVED) {
            state = LinkState.ATTACHED;
        } // else the application detached it from onLinkAttach: it stays detached
    }

    /** We refused the peer's attach: our attach with a null terminus and our detach went out (AMQP 1.0 §2.6.3). */
    void onRefused() {
        state = LinkState.REFUSED;
        endedHere = true;
    }

    /** Our detach went out; the peer's will close the link. */
    void onDetachSent() {
        state = LinkState.DETACH_SENT;
        endedHere = true;
    }

    /** Detached on both sides, or gone with its session or connection. */
    void onClosed() {
        state = LinkState.CLOSED;
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
        return state == LinkState.ATTACHED;
    }

    /**
     * Whether a message may be given to this link now: it is open, or we attached it and the peer has not answered
     * yet. A message given before the answer waits on the link's queue for the peer's credit (AMQP 1.0 §2.6.7: no
     * credit before the peer's flow), as a client that attaches a sender and sends at once expects.
     *
     * @return true from our attach until either side detaches (or the peer refuses the link)
     */
    public boolean acceptsMessages() {
        return state == LinkState.ATTACHED || state == LinkState.ATTACH_SENT;
    }

    /**
     * Whether the link is over on both sides.
     *
     * @return true once our detach is sent and the peer's detach arrived, the link was refused, or it ended with its
     *     session or connection
     */
    public boolean isClosed() {
        return state == LinkState.REFUSED || state == LinkState.CLOSED;
    }

    /**
     * Whether this side ended the link: its detach (asked for by the application, or sent by the engine, as for a
     * message over the link's max-message-size) or its refusal of the peer's attach went out before the peer's
     * detach. Then the error {@link EngineHandler#onLinkDetach} reports is the one this side sent; false when the
     * peer detached it, or it went with its session or connection.
     *
     * @return true once this side ended the link first
     */
    public boolean endedHere() {
        return endedHere;
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

    /** How far the link has got to being a half of a pair. */
    LinkPairing.Stage pairing() {
        return pairing;
    }

    void pairing(LinkPairing.Stage stage) {
        this.pairing = stage;
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
     * @throws IllegalStateException when this is a sending link
     */
    public Link streaming(boolean value) {
        requireReceiver();
        receiving.streaming(value);
        return this;
    }

    /**
     * Receiving link: whether messages of more than one frame are handed over frame by frame
     * ({@link #streaming(boolean)}).
     *
     * @return true when streaming was turned on; false by default, and always for a sending link
     */
    public boolean streaming() {
        return receiving != null && receiving.streaming();
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
        receiving.autoCreditWindow(window);
        if (window > 0 && isOpen()) {
            session.engine().grantCredit(this, window, false);
        }
        return this;
    }

    /** The credit auto-credit keeps the peer at; 0 when it is off, and always for a sending link. */
    int autoCreditWindow() {
        return receiving == null ? 0 : receiving.autoCreditWindow();
    }

    private void requireReceiver() {
        if (sending != null) {
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
     *     sends every message pre-settled, one whose mode is unsettled none, as the mode promises (§2.8.2)
     * @return the delivery, or null when the link takes no messages ({@link #acceptsMessages()}) or the message
     *         would have to wait and the link's queue is full ({@link EngineConfig#maxBufferedMessagesPerLink()}) or
     *         the connection's is
     *         ({@link EngineConfig#maxBufferedBytesPerConnection()}): the application then settles the request it
     *         answers as it sees fit (released, or modified once it has acted on it)
     * @throws IllegalStateException when this is a receiving link
     * @throws IllegalArgumentException when {@code length} exceeds the peer's max-message-size
     */
    public Delivery send(byte[] message, int offset, int length, boolean settled) {
        if (sending == null) {
            throw new IllegalStateException("link " + name + " is a receiving link");
        }
        return session.engine().send(this, message, offset, length, presettled(settled));
    }

    /**
     * Whether a message goes pre-settled: the agreed snd-settle-mode decides when it is not mixed (AMQP 1.0 §2.8.2:
     * settled promises every delivery pre-settled, unsettled promises none), the application otherwise.
     */
    private boolean presettled(boolean settled) {
        return sndSettleMode == SenderSettleMode.MIXED ? settled : sndSettleMode == SenderSettleMode.SETTLED;
    }

    /**
     * Messages queued and not yet fully sent.
     *
     * @return the number of messages on this link's queue, the one being sent included
     */
    public int queued() {
        return sending == null ? 0 : sending.queued();
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
     * @param settled whether to send it pre-settled (at-most-once, §3.4); always on a link whose snd-settle-mode is
     *     settled, never on one whose mode is unsettled (§2.8.2)
     * @return the delivery, or null when the link takes no messages ({@link #acceptsMessages()}) or its queue, or
     *         the connection's, is full (as for {@link #send})
     * @throws IllegalStateException when the link already has an open message
     * @throws IllegalArgumentException when the bytes exceed the peer's max-message-size
     */
    public Delivery beginMessage(byte[] bytes, int offset, int length, boolean settled) {
        if (sending == null) {
            throw new IllegalStateException("link " + name + " is a receiving link");
        }
        if (sending.openMessage != null) {
            throw new IllegalStateException("link " + name + " already has an open message");
        }
        if (!acceptsMessages() || !session.engine().isOpen()) {
            return null;
        }
        checkMessageSize(length);
        boolean presettled = presettled(settled);
        if (!presettled && session.engine().unsettledSentFull()) {
            return null;
        }
        return session.outbound().beginMessage(this, bytes, offset, length, presettled);
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
        if (d == null || sending == null || d != sending.openMessage) {
            return false;
        }
        checkMessageSize(sending.openMessageBytes + length);
        sending.append(d, bytes, offset, length);
        session.outbound().pumpForApplication(this);
        return true;
    }

    /**
     * Ends the open message {@code d}: its last frame goes as soon as the bytes before it have.
     *
     * @param d the delivery {@link #beginMessage} returned; ignored when it is null or not this link's open message
     */
    public void endMessage(Delivery d) {
        if (d != null && sending != null && d == sending.openMessage) {
            sending.openMessage = null;
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
        if (d != null && sending != null && d == sending.openMessage) {
            sending.openMessage = null;
            sending.abortedMessage = d;
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
        return sending == null ? 0 : sending.unsentBytes(d);
    }

    private void checkMessageSize(long bytes) {
        if (remoteMaxMessageSize > 0 && bytes > remoteMaxMessageSize) {
            throw new IllegalArgumentException("message of " + bytes + " bytes exceeds the peer's max-message-size "
                    + remoteMaxMessageSize);
        }
    }

    /**
     * Lets go of the reusable message arrays and the assembly buffer when nothing is queued or being assembled (an
     * idle link, docs/design.md §2); the next message makes them again.
     */
    void trimIdle() {
        if (sending != null) {
            sending.trimIdle();
        } else {
            receiving.trimIdle();
        }
    }

    /**
     * Ends the link from this side (detach with closed=true), with an error condition or none.
     *
     * @param condition the AMQP error condition to send (e.g. {@code amqp:internal-error}), or null to detach without
     *     error
     * @param description human-readable detail sent with {@code condition}, or null for none
     */
    public void detach(Symbol condition, String description) {
        session.detach(this, condition, description);
    }

    @Override
    public String toString() {
        return "Link[" + name + (sending != null ? " sender" : " receiver") + ", " + state + ", handle=" + localHandle
                + "/" + remoteHandle + ", credit=" + credit.credit() + ", queued=" + queued() + "]";
    }
}
