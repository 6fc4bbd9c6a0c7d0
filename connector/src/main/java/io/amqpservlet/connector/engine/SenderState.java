package io.amqpservlet.connector.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What only a sending link has: the messages waiting for credit, session window or output room (a ring whose
 * bytes are copied into reusable arrays), the open message still being written ({@link Link#beginMessage}) and
 * an aborted one, and the counter its delivery tags come from. A receiving link has none of it
 * ({@link ReceiverState} is its counterpart).
 */
final class SenderState {
    /** The length of the delivery tags this engine makes (AMQP 1.0 §2.8.7: at most 32 bytes). */
    static final int TAG_BYTES = 8;
    /** Writes the tag's 8 bytes at once, big-endian, instead of a byte at a time. */
    private static final VarHandle TAG_WRITER =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    // Shared empty arrays until the first message is queued (docs/design.md §2: an idle link costs little).
    private static final byte[][] NO_MESSAGES = {};
    private static final int[] NO_LENGTHS = {};
    private static final Delivery[] NO_DELIVERIES = {};
    private static final boolean[] NO_FLAGS = {};

    private final Engine engine;
    private byte[][] queuedBytes = NO_MESSAGES;
    private int[] queuedLength = NO_LENGTHS;
    private Delivery[] queuedDelivery = NO_DELIVERIES;
    private boolean[] queuedSettled = NO_FLAGS;
    private int queueHead;
    private int queueSize;
    private int sentOfHead;
    /** Whether the head's first transfer frame went out (it then has a delivery-id, AMQP 1.0 §2.7.5). */
    private boolean headStarted;
    /** The queued message still being written ({@link Link#beginMessage}), or null: at most one per link. */
    Delivery openMessage;
    /** An open message the application aborted: dropped, or aborted on the wire, when it reaches the head. */
    Delivery abortedMessage;
    /** Bytes given so far for {@link #openMessage}, checked against the peer's max-message-size. */
    long openMessageBytes;
    private long nextTag;
    private final byte[] tagBytes = new byte[TAG_BYTES];

    SenderState(Engine engine) {
        this.engine = engine;
    }

    /** The next delivery tag: 8 bytes of a per-link counter, in an array reused for every message. */
    byte[] nextTag() {
        TAG_WRITER.set(tagBytes, 0, nextTag++);
        return tagBytes;
    }

    /** Messages queued and not yet fully sent, the one being sent included. */
    int queued() {
        return queueSize;
    }

    boolean hasQueued() {
        return queueSize > 0;
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
        engine.queuedBytes += length;
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

    /** Bytes of the open message {@code d} given but not yet sent; 0 when {@code d} is not open. */
    long unsentBytes(Delivery d) {
        if (d == null || d != openMessage) {
            return 0;
        }
        int slot = slotOf(d);
        return queuedLength[slot] - (slot == queueHead ? sentOfHead : 0);
    }

    /** Appends bytes to the open message {@code d}, which is queued. */
    void append(Delivery d, byte[] bytes, int offset, int length) {
        openMessageBytes += length;
        appendToSlot(slotOf(d), bytes, offset, length);
    }

    private int slotOf(Delivery d) {
        for (int i = queueSize - 1; i >= 0; i--) {
            int slot = (queueHead + i) % queuedBytes.length;
            if (queuedDelivery[slot] == d) {
                return slot;
            }
        }
        throw new IllegalStateException("open message not queued");
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
        engine.queuedBytes += length;
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

    boolean headStarted() {
        return headStarted;
    }

    void headStarted(boolean value) {
        this.headStarted = value;
    }

    int sentOfHead() {
        return sentOfHead;
    }

    void sentOfHead(int bytes) {
        this.sentOfHead = bytes;
    }

    void dequeue() {
        // What of the head was not sent leaves the connection's count (all of it was, unless aborted or dropped).
        engine.queuedBytes -= queuedLength[queueHead] - sentOfHead;
        queuedDelivery[queueHead] = null;
        queueHead = (queueHead + 1) % queuedBytes.length;
        queueSize--;
        sentOfHead = 0;
        headStarted = false;
    }

    /** Drops every queued message (the link is ending) and recycles their deliveries. */
    void clear() {
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
     * Lets go of the reusable message arrays when nothing is queued (an idle link, docs/design.md §2); the next
     * message makes them again.
     */
    void trimIdle() {
        if (queueSize == 0 && openMessage == null && abortedMessage == null) {
            queuedBytes = NO_MESSAGES;
            queuedLength = NO_LENGTHS;
            queuedDelivery = NO_DELIVERIES;
            queuedSettled = NO_FLAGS;
            queueHead = 0;
        }
    }
}
