package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.DeliveryState;

/**
 * The {@code transfer} performative (AMQP 1.0 §2.7.5): one frame of a delivery; the message bytes follow it in
 * the frame. The hot path of the codec: decoding and encoding allocate nothing once the delivery-tag holder has
 * grown to the tag size seen. On a continuation frame the peer may omit delivery-id, delivery-tag,
 * message-format, settled and rcv-settle-mode; their presence flags say which were sent.
 */
public final class Transfer extends Performative {
    private int handle;
    private int deliveryId;
    private boolean hasDeliveryId;
    private final MutableBytes deliveryTag = new MutableBytes();
    private int messageFormat;
    private boolean hasMessageFormat;
    private boolean settled;
    private boolean hasSettled;
    private boolean more;
    private ReceiverSettleMode rcvSettleMode;
    private final DeliveryState state = new DeliveryState();
    private boolean resume;
    private boolean aborted;
    private boolean batchable;

    /** Creates an empty {@code Transfer}. */
    public Transfer() {
    }

    @Override
    public long descriptor() {
        return Descriptors.TRANSFER;
    }

    @Override
    public String typeName() {
        return "transfer";
    }

    @Override
    public Transfer clear() {
        handle = 0;
        deliveryId = 0;
        hasDeliveryId = false;
        deliveryTag.clear();
        messageFormat = 0;
        hasMessageFormat = false;
        settled = false;
        hasSettled = false;
        more = false;
        rcvSettleMode = null;
        state.clear();
        resume = false;
        aborted = false;
        batchable = false;
        return this;
    }

    /** {@return the link handle (unsigned)} */
    public int handle() {
        return handle;
    }

    /**
     * Sets the handle.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer handle(int value) {
        handle = value;
        return this;
    }

    /** {@return whether delivery-id is set (it must be on a delivery's first frame)} */
    public boolean hasDeliveryId() {
        return hasDeliveryId;
    }

    /** {@return the delivery-id (a serial number); 0 when absent} */
    public int deliveryId() {
        return deliveryId;
    }

    /**
     * Sets delivery-id.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer deliveryId(int value) {
        deliveryId = value;
        hasDeliveryId = true;
        return this;
    }

    /**
     * Removes delivery-id.
     *
     * @return this, for chaining
     */
    public Transfer clearDeliveryId() {
        deliveryId = 0;
        hasDeliveryId = false;
        return this;
    }

    /** {@return the delivery-tag bytes, or a null holder} */
    public MutableBytes deliveryTag() {
        return deliveryTag;
    }

    /**
     * Sets the delivery-tag to a copy of {@code tag[offset, offset + length)}.
     *
     * @param tag holds the delivery-tag
     * @param offset where they start in {@code tag}
     * @param length their length in bytes
     * @return this, for chaining
     */
    public Transfer deliveryTag(byte[] tag, int offset, int length) {
        deliveryTag.set(tag, offset, length);
        return this;
    }

    /** {@return whether message-format is set} */
    public boolean hasMessageFormat() {
        return hasMessageFormat;
    }

    /** {@return the message-format (unsigned; 0 is the standard AMQP message format); 0 when absent} */
    public int messageFormat() {
        return messageFormat;
    }

    /**
     * Sets message-format.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer messageFormat(int value) {
        messageFormat = value;
        hasMessageFormat = true;
        return this;
    }

    /**
     * Removes message-format.
     *
     * @return this, for chaining
     */
    public Transfer clearMessageFormat() {
        messageFormat = 0;
        hasMessageFormat = false;
        return this;
    }

    /** {@return whether settled is set} */
    public boolean hasSettled() {
        return hasSettled;
    }

    /** {@return whether the sender settled the delivery; false when absent} */
    public boolean settled() {
        return settled;
    }

    /**
     * Sets settled.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer settled(boolean value) {
        settled = value;
        hasSettled = true;
        return this;
    }

    /**
     * Removes settled.
     *
     * @return this, for chaining
     */
    public Transfer clearSettled() {
        settled = false;
        hasSettled = false;
        return this;
    }

    /** {@return whether more frames of this delivery follow (default false)} */
    public boolean more() {
        return more;
    }

    /**
     * Sets more.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer more(boolean value) {
        more = value;
        return this;
    }

    /** {@return the receiver settle mode for this delivery, or null when absent (the link's mode applies)} */
    public ReceiverSettleMode rcvSettleMode() {
        return rcvSettleMode;
    }

    /**
     * Sets rcv-settle-mode (null removes it).
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer rcvSettleMode(ReceiverSettleMode value) {
        rcvSettleMode = value;
        return this;
    }

    /** {@return the delivery state, absent when {@link DeliveryState#isNull()}} */
    public DeliveryState state() {
        return state;
    }

    /** {@return whether this resumes a delivery of a resumed link (default false)} */
    public boolean resume() {
        return resume;
    }

    /**
     * Sets resume.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer resume(boolean value) {
        resume = value;
        return this;
    }

    /** {@return whether the delivery is aborted (default false)} */
    public boolean aborted() {
        return aborted;
    }

    /**
     * Sets aborted.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer aborted(boolean value) {
        aborted = value;
        return this;
    }

    /** {@return whether the peer may delay acting on this transfer (default false)} */
    public boolean batchable() {
        return batchable;
    }

    /**
     * Sets batchable.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Transfer batchable(boolean value) {
        batchable = value;
        return this;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "handle");
        handle = reader.getInt();
        if (reader.nextField() != FormatCode.NULL) {
            deliveryId = reader.getInt();
            hasDeliveryId = true;
        }
        reader.nextField();
        deliveryTag.read(reader);
        if (reader.nextField() != FormatCode.NULL) {
            messageFormat = reader.getInt();
            hasMessageFormat = true;
        }
        if (reader.nextField() != FormatCode.NULL) {
            settled = reader.getBoolean();
            hasSettled = true;
        }
        more = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        if (reader.nextField() != FormatCode.NULL) {
            rcvSettleMode = ReceiverSettleMode.of(readUByte(reader, "rcv-settle-mode"), reader.valueStart());
        }
        if (reader.nextField() != FormatCode.NULL) {
            state.decode(reader);
        }
        resume = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        aborted = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        batchable = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        uintField(writer, handle);
        if (hasDeliveryId) {
            uintField(writer, deliveryId);
        } else {
            skipField();
        }
        binaryField(writer, deliveryTag);
        if (hasMessageFormat) {
            uintField(writer, messageFormat);
        } else {
            skipField();
        }
        if (hasSettled) {
            booleanField(writer, settled);
        } else {
            skipField();
        }
        flagField(writer, more);
        if (rcvSettleMode != null) {
            ubyteField(writer, rcvSettleMode.code());
        } else {
            skipField();
        }
        compositeField(writer, state);
        flagField(writer, resume);
        flagField(writer, aborted);
        flagField(writer, batchable);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceUInt(sb, "handle", handle);
        if (hasDeliveryId) {
            traceUInt(sb, "delivery-id", deliveryId);
        }
        traceBinary(sb, "delivery-tag", deliveryTag);
        if (hasMessageFormat) {
            traceUInt(sb, "message-format", messageFormat);
        }
        if (hasSettled) {
            trace(sb, "settled", settled);
        }
        trace(sb, "more", more);
        if (rcvSettleMode != null) {
            trace(sb, "rcv-settle-mode", rcvSettleMode.code());
        }
        traceComposite(sb, "state", state);
        trace(sb, "resume", resume);
        trace(sb, "aborted", aborted);
        trace(sb, "batchable", batchable);
        return traceEnd(sb);
    }
}
