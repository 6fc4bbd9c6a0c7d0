package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.SymbolArray;

/**
 * The {@code begin} performative (AMQP 1.0 §2.7.2): starts a session. Transfer ids and windows are unsigned
 * 32-bit values held in {@code int}s.
 */
public final class Begin extends Performative {
    /** AMQP 1.0 §2.7.2: handle-max defaults to 4294967295, held as the int -1. */
    public static final int DEFAULT_HANDLE_MAX = -1;

    private int remoteChannel;
    private boolean hasRemoteChannel;
    private int nextOutgoingId;
    private int incomingWindow;
    private int outgoingWindow;
    private int handleMax;
    private final SymbolArray offeredCapabilities = new SymbolArray();
    private final SymbolArray desiredCapabilities = new SymbolArray();
    private final EncodedValue properties = new EncodedValue();

    /** A begin with every field at its default. */
    public Begin() {
        clear();
    }

    @Override
    public long descriptor() {
        return Descriptors.BEGIN;
    }

    @Override
    public String typeName() {
        return "begin";
    }

    @Override
    public Begin clear() {
        remoteChannel = 0;
        hasRemoteChannel = false;
        nextOutgoingId = 0;
        incomingWindow = 0;
        outgoingWindow = 0;
        handleMax = DEFAULT_HANDLE_MAX;
        offeredCapabilities.clear();
        desiredCapabilities.clear();
        properties.clear();
        return this;
    }

    /** {@return whether remote-channel is set (it is in a begin that answers the peer's begin)} */
    public boolean hasRemoteChannel() {
        return hasRemoteChannel;
    }

    /** {@return the channel of the peer's begin this answers; meaningful only when {@link #hasRemoteChannel()}} */
    public int remoteChannel() {
        return remoteChannel;
    }

    /**
     * Sets remote-channel, a ushort.
     *
     * @param channel the new value
     * @return this, for chaining
     */
    public Begin remoteChannel(int channel) {
        if ((channel & 0xFFFF0000) != 0) {
            throw new IllegalArgumentException("remote-channel out of ushort range: " + channel);
        }
        remoteChannel = channel;
        hasRemoteChannel = true;
        return this;
    }

    /**
     * Removes remote-channel.
     *
     * @return this, for chaining
     */
    public Begin clearRemoteChannel() {
        remoteChannel = 0;
        hasRemoteChannel = false;
        return this;
    }

    /** {@return the transfer-id of the next outgoing transfer (unsigned)} */
    public int nextOutgoingId() {
        return nextOutgoingId;
    }

    /**
     * Sets next-outgoing-id.
     *
     * @param transferId the new value
     * @return this, for chaining
     */
    public Begin nextOutgoingId(int transferId) {
        nextOutgoingId = transferId;
        return this;
    }

    /** {@return the incoming window in transfer frames (unsigned)} */
    public int incomingWindow() {
        return incomingWindow;
    }

    /**
     * Sets incoming-window.
     *
     * @param frames the new value
     * @return this, for chaining
     */
    public Begin incomingWindow(int frames) {
        incomingWindow = frames;
        return this;
    }

    /** {@return the outgoing window in transfer frames (unsigned)} */
    public int outgoingWindow() {
        return outgoingWindow;
    }

    /**
     * Sets outgoing-window.
     *
     * @param frames the new value
     * @return this, for chaining
     */
    public Begin outgoingWindow(int frames) {
        outgoingWindow = frames;
        return this;
    }

    /** {@return the highest handle the sender of this begin accepts (unsigned; default 4294967295, i.e. -1)} */
    public int handleMax() {
        return handleMax;
    }

    /**
     * Sets handle-max.
     *
     * @param handle the new value
     * @return this, for chaining
     */
    public Begin handleMax(int handle) {
        handleMax = handle;
        return this;
    }

    /** {@return the offered-capabilities} */
    public SymbolArray offeredCapabilities() {
        return offeredCapabilities;
    }

    /** {@return the desired-capabilities} */
    public SymbolArray desiredCapabilities() {
        return desiredCapabilities;
    }

    /** {@return the session properties map, kept encoded} */
    public EncodedValue properties() {
        return properties;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        if (reader.nextField() != FormatCode.NULL) {
            remoteChannel = readUShort(reader, "remote-channel");
            hasRemoteChannel = true;
        }
        reader.nextField();
        requireField(reader, "next-outgoing-id");
        nextOutgoingId = reader.getInt();
        reader.nextField();
        requireField(reader, "incoming-window");
        incomingWindow = reader.getInt();
        reader.nextField();
        requireField(reader, "outgoing-window");
        outgoingWindow = reader.getInt();
        handleMax = reader.nextField() == FormatCode.NULL ? DEFAULT_HANDLE_MAX : reader.getInt();
        reader.nextField();
        offeredCapabilities.read(reader);
        reader.nextField();
        desiredCapabilities.read(reader);
        reader.nextField();
        properties.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        if (hasRemoteChannel) {
            ushortField(writer, remoteChannel);
        } else {
            skipField();
        }
        uintField(writer, nextOutgoingId);
        uintField(writer, incomingWindow);
        uintField(writer, outgoingWindow);
        if (handleMax == DEFAULT_HANDLE_MAX) {
            skipField();
        } else {
            uintField(writer, handleMax);
        }
        symbolsField(writer, offeredCapabilities);
        symbolsField(writer, desiredCapabilities);
        encodedField(writer, properties);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        if (hasRemoteChannel) {
            trace(sb, "remote-channel", remoteChannel);
        }
        traceUInt(sb, "next-outgoing-id", nextOutgoingId);
        traceUInt(sb, "incoming-window", incomingWindow);
        traceUInt(sb, "outgoing-window", outgoingWindow);
        traceUInt(sb, "handle-max", handleMax);
        traceSymbols(sb, "offered-capabilities", offeredCapabilities);
        traceSymbols(sb, "desired-capabilities", desiredCapabilities);
        traceEncoded(sb, "properties", properties);
        return traceEnd(sb);
    }
}
