package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.EncodedValue;

/**
 * The {@code flow} performative (AMQP 1.0 §2.7.4): session window and, when {@link #hasHandle()}, link credit
 * state. Every number is an unsigned 32-bit value held in an {@code int}; the optional ones carry a presence
 * flag because the spec gives absence a meaning (no handle: a session-only flow).
 */
public final class Flow extends Performative {
    private int nextIncomingId;
    private boolean hasNextIncomingId;
    private int incomingWindow;
    private int nextOutgoingId;
    private int outgoingWindow;
    private int handle;
    private boolean hasHandle;
    private int deliveryCount;
    private boolean hasDeliveryCount;
    private int linkCredit;
    private boolean hasLinkCredit;
    private int available;
    private boolean hasAvailable;
    private boolean drain;
    private boolean echo;
    private final EncodedValue properties = new EncodedValue();

    /** Creates an empty {@code Flow}. */
    public Flow() {
    }

    @Override
    public long descriptor() {
        return Descriptors.FLOW;
    }

    @Override
    public String typeName() {
        return "flow";
    }

    @Override
    public Flow clear() {
        nextIncomingId = 0;
        hasNextIncomingId = false;
        incomingWindow = 0;
        nextOutgoingId = 0;
        outgoingWindow = 0;
        handle = 0;
        hasHandle = false;
        deliveryCount = 0;
        hasDeliveryCount = false;
        linkCredit = 0;
        hasLinkCredit = false;
        available = 0;
        hasAvailable = false;
        drain = false;
        echo = false;
        properties.clear();
        return this;
    }

    /** {@return whether next-incoming-id is set (absent before the peer's begin was seen)} */
    public boolean hasNextIncomingId() {
        return hasNextIncomingId;
    }

    /** {@return the next transfer-id expected from the peer; 0 when absent} */
    public int nextIncomingId() {
        return nextIncomingId;
    }

    /**
     * Sets next-incoming-id.
     *
     * @param transferId the new value
     * @return this, for chaining
     */
    public Flow nextIncomingId(int transferId) {
        nextIncomingId = transferId;
        hasNextIncomingId = true;
        return this;
    }

    /**
     * Removes next-incoming-id.
     *
     * @return this, for chaining
     */
    public Flow clearNextIncomingId() {
        nextIncomingId = 0;
        hasNextIncomingId = false;
        return this;
    }

    /** {@return the incoming window in transfer frames} */
    public int incomingWindow() {
        return incomingWindow;
    }

    /**
     * Sets incoming-window.
     *
     * @param frames the new value
     * @return this, for chaining
     */
    public Flow incomingWindow(int frames) {
        incomingWindow = frames;
        return this;
    }

    /** {@return the next transfer-id this side will send} */
    public int nextOutgoingId() {
        return nextOutgoingId;
    }

    /**
     * Sets next-outgoing-id.
     *
     * @param transferId the new value
     * @return this, for chaining
     */
    public Flow nextOutgoingId(int transferId) {
        nextOutgoingId = transferId;
        return this;
    }

    /** {@return the outgoing window in transfer frames} */
    public int outgoingWindow() {
        return outgoingWindow;
    }

    /**
     * Sets outgoing-window.
     *
     * @param frames the new value
     * @return this, for chaining
     */
    public Flow outgoingWindow(int frames) {
        outgoingWindow = frames;
        return this;
    }

    /** {@return whether the flow is about a link (handle set) rather than only the session} */
    public boolean hasHandle() {
        return hasHandle;
    }

    /** {@return the link handle; 0 when absent} */
    public int handle() {
        return handle;
    }

    /**
     * Sets the handle.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Flow handle(int value) {
        handle = value;
        hasHandle = true;
        return this;
    }

    /**
     * Removes the handle, making this a session flow.
     *
     * @return this, for chaining
     */
    public Flow clearHandle() {
        handle = 0;
        hasHandle = false;
        return this;
    }

    /** {@return whether delivery-count is set} */
    public boolean hasDeliveryCount() {
        return hasDeliveryCount;
    }

    /** {@return the link's delivery-count (a serial number); 0 when absent} */
    public int deliveryCount() {
        return deliveryCount;
    }

    /**
     * Sets delivery-count.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Flow deliveryCount(int value) {
        deliveryCount = value;
        hasDeliveryCount = true;
        return this;
    }

    /**
     * Removes delivery-count.
     *
     * @return this, for chaining
     */
    public Flow clearDeliveryCount() {
        deliveryCount = 0;
        hasDeliveryCount = false;
        return this;
    }

    /** {@return whether link-credit is set} */
    public boolean hasLinkCredit() {
        return hasLinkCredit;
    }

    /** {@return the link credit; 0 when absent} */
    public int linkCredit() {
        return linkCredit;
    }

    /**
     * Sets link-credit.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Flow linkCredit(int value) {
        linkCredit = value;
        hasLinkCredit = true;
        return this;
    }

    /**
     * Removes link-credit.
     *
     * @return this, for chaining
     */
    public Flow clearLinkCredit() {
        linkCredit = 0;
        hasLinkCredit = false;
        return this;
    }

    /** {@return whether available is set} */
    public boolean hasAvailable() {
        return hasAvailable;
    }

    /** {@return the number of messages the sender has available; 0 when absent} */
    public int available() {
        return available;
    }

    /**
     * Sets available.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Flow available(int value) {
        available = value;
        hasAvailable = true;
        return this;
    }

    /**
     * Removes available.
     *
     * @return this, for chaining
     */
    public Flow clearAvailable() {
        available = 0;
        hasAvailable = false;
        return this;
    }

    /** {@return whether the sender is asked to use up its credit (AMQP 1.0 §2.6.7; default false)} */
    public boolean drain() {
        return drain;
    }

    /**
     * Sets drain.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Flow drain(boolean value) {
        drain = value;
        return this;
    }

    /** {@return whether the receiver of this flow must answer with its own flow (default false)} */
    public boolean echo() {
        return echo;
    }

    /**
     * Sets echo.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Flow echo(boolean value) {
        echo = value;
        return this;
    }

    /** {@return the link state properties map, kept encoded} */
    public EncodedValue properties() {
        return properties;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        if (reader.nextField() != FormatCode.NULL) {
            nextIncomingId = reader.getInt();
            hasNextIncomingId = true;
        }
        reader.nextField();
        requireField(reader, "incoming-window");
        incomingWindow = reader.getInt();
        reader.nextField();
        requireField(reader, "next-outgoing-id");
        nextOutgoingId = reader.getInt();
        reader.nextField();
        requireField(reader, "outgoing-window");
        outgoingWindow = reader.getInt();
        if (reader.nextField() != FormatCode.NULL) {
            handle = reader.getInt();
            hasHandle = true;
        }
        if (reader.nextField() != FormatCode.NULL) {
            deliveryCount = reader.getInt();
            hasDeliveryCount = true;
        }
        if (reader.nextField() != FormatCode.NULL) {
            linkCredit = reader.getInt();
            hasLinkCredit = true;
        }
        if (reader.nextField() != FormatCode.NULL) {
            available = reader.getInt();
            hasAvailable = true;
        }
        drain = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        echo = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        reader.nextField();
        properties.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        optionalUInt(writer, hasNextIncomingId, nextIncomingId);
        uintField(writer, incomingWindow);
        uintField(writer, nextOutgoingId);
        uintField(writer, outgoingWindow);
        optionalUInt(writer, hasHandle, handle);
        optionalUInt(writer, hasDeliveryCount, deliveryCount);
        optionalUInt(writer, hasLinkCredit, linkCredit);
        optionalUInt(writer, hasAvailable, available);
        flagField(writer, drain);
        flagField(writer, echo);
        encodedField(writer, properties);
        endFields(writer);
    }

    private void optionalUInt(AmqpWriter writer, boolean present, int value) {
        if (present) {
            uintField(writer, value);
        } else {
            skipField();
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        if (hasNextIncomingId) {
            traceUInt(sb, "next-incoming-id", nextIncomingId);
        }
        traceUInt(sb, "incoming-window", incomingWindow);
        traceUInt(sb, "next-outgoing-id", nextOutgoingId);
        traceUInt(sb, "outgoing-window", outgoingWindow);
        if (hasHandle) {
            traceUInt(sb, "handle", handle);
        }
        if (hasDeliveryCount) {
            traceUInt(sb, "delivery-count", deliveryCount);
        }
        if (hasLinkCredit) {
            traceUInt(sb, "link-credit", linkCredit);
        }
        if (hasAvailable) {
            traceUInt(sb, "available", available);
        }
        trace(sb, "drain", drain);
        trace(sb, "echo", echo);
        traceEncoded(sb, "properties", properties);
        return traceEnd(sb);
    }
}
