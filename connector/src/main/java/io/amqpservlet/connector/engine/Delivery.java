package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.DeliveryState;

/**
 * One message transfer on a link (AMQP 1.0 §2.6.12), in either direction. Deliveries are pooled by their engine:
 * the object is recycled once it is settled on both sides (or its link ends), so an application must not keep a
 * reference after that; {@link #generation()} changes on every reuse, for callers that hand deliveries across
 * threads and want to check they still hold the same one.
 */
public final class Delivery {
    /** The link, kept while the delivery is free (see {@link #released}) so that reuse need not store it again. */
    private Link link;
    /**
     * Whether the delivery is free (recycled): {@link #link()} is then null. A flag rather than clearing the
     * reference, because every reference store costs a garbage-collector barrier (a memory fence under G1), and a
     * pooled delivery is taken again, mostly for the same link, once per message.
     */
    private boolean released;
    private int deliveryId;
    private final MutableBytes tag = new MutableBytes();
    private int messageFormat;
    private boolean remotelySettled;
    private boolean locallySettled;
    /**
     * The states, made when first asked for (and kept by the pooled delivery from then on): most deliveries never
     * get one, and a state with its error and encoded fields is most of a delivery's memory, which a peer that never
     * settles multiplies by the deliveries it leaves unsettled.
     */
    private DeliveryState remoteState;
    private DeliveryState localState;
    private long sizeBytes;
    private boolean complete;
    private boolean aborted;
    private int generation;
    private Object attachment;
    /** This delivery's number in its engine's {@link DeliveryPool}. */
    int poolIndex = -1;

    /** Made by the engine's delivery pool only. */
    Delivery() {
    }

    void init(Link link, int deliveryId) {
        if (this.link != link) {
            this.link = link;
        }
        this.released = false;
        this.deliveryId = deliveryId;
        this.tag.clear();
        this.messageFormat = 0;
        this.remotelySettled = false;
        this.locallySettled = false;
        if (remoteState != null && !remoteState.isNull()) {
            remoteState.clear(); // most deliveries never get a state: skip the call
        }
        if (localState != null && !localState.isNull()) {
            localState.clear();
        }
        this.sizeBytes = 0;
        this.complete = false;
        this.aborted = false;
        if (this.attachment != null) {
            this.attachment = null;
        }
        this.generation++;
    }

    /**
     * Resets the engine's record of pre-settled sends for one more message: no link (settled, as if recycled),
     * and none of the reference writes a pooled delivery needs, which the garbage collector's write barrier makes
     * the dearest part of taking one.
     */
    void initSettledSend() {
        this.locallySettled = true;
        this.complete = true;
        this.sizeBytes = 0;
        this.generation++;
    }

    /** Whether the delivery has been recycled (it is free, or the engine's settled record after use). */
    boolean isReleased() {
        return released;
    }

    /** Marks the object free (in its engine's pool). */
    void release() {
        this.released = true;
        if (this.attachment != null) {
            this.attachment = null;
        }
    }

    void deliveryId(int id) {
        this.deliveryId = id;
    }

    /** {@return the link this delivery travels on; null once the delivery has been recycled} */
    public Link link() {
        return released ? null : link;
    }

    /** {@return the delivery-id (a session-scoped serial number)} */
    public int deliveryId() {
        return deliveryId;
    }

    /** {@return the delivery-tag bytes} */
    public MutableBytes tag() {
        return tag;
    }

    /** {@return the message-format of the transfer (0 for AMQP 1.0 messages)} */
    public int messageFormat() {
        return messageFormat;
    }

    void messageFormat(int format) {
        this.messageFormat = format;
    }

    /** {@return whether the peer has settled it} */
    public boolean remotelySettled() {
        return remotelySettled;
    }

    void remotelySettled(boolean settled) {
        this.remotelySettled = settled;
    }

    /** {@return whether we have settled it} */
    public boolean locallySettled() {
        return locallySettled;
    }

    void locallySettled(boolean settled) {
        this.locallySettled = settled;
    }

    /** {@return the state the peer last reported (none, received, or an outcome)} */
    public DeliveryState remoteState() {
        DeliveryState s = remoteState;
        if (s == null) {
            s = new DeliveryState();
            remoteState = s;
        }
        return s;
    }

    /** {@return the state we last reported or will report} */
    public DeliveryState localState() {
        DeliveryState s = localState;
        if (s == null) {
            s = new DeliveryState();
            localState = s;
        }
        return s;
    }

    /** {@return the message bytes seen so far, across all transfer frames} */
    public long sizeBytes() {
        return sizeBytes;
    }

    void addBytes(long n) {
        sizeBytes += n;
    }

    /** {@return whether the last transfer frame arrived (or was sent)} */
    public boolean complete() {
        return complete;
    }

    void complete(boolean value) {
        this.complete = value;
    }

    /** {@return whether the sender aborted it (AMQP 1.0 §2.6.14)} */
    public boolean aborted() {
        return aborted;
    }

    void aborted(boolean value) {
        this.aborted = value;
    }

    /** {@return the generation, incremented each time the pooled object is reused} */
    public int generation() {
        return generation;
    }

    /** {@return an object of the application's, kept with the delivery until it is recycled} */
    public Object attachment() {
        return attachment;
    }

    /**
     * Keeps an object of the application's with the delivery.
     *
     * @param value the object, or null
     */
    public void attachment(Object value) {
        this.attachment = value;
    }

    @Override
    public String toString() {
        return "Delivery[id=" + Integer.toUnsignedString(deliveryId) + ", link=" + (link() == null ? null : link.name())
                + ", remote=" + remoteState().typeName() + (remotelySettled ? " settled" : "")
                + ", local=" + localState().typeName() + (locallySettled ? " settled" : "") + "]";
    }
}
