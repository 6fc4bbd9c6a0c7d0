package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.SymbolArray;

/**
 * The {@code open} performative (AMQP 1.0 §2.7.1): negotiates connection parameters. Sizes and durations are
 * held as {@code long} (unsigned 32-bit values), the spec's defaults applied to absent fields.
 */
public final class Open extends Performative {
    /** AMQP 1.0 §2.7.1: max-frame-size defaults to 4294967295 (no limit beyond the 32-bit frame size field). */
    public static final long DEFAULT_MAX_FRAME_SIZE = 0xFFFFFFFFL;
    /** AMQP 1.0 §2.7.1: channel-max defaults to 65535. */
    public static final int DEFAULT_CHANNEL_MAX = 65535;

    private final MutableBytes containerId = new MutableBytes();
    private final MutableBytes hostname = new MutableBytes();
    private long maxFrameSize;
    private int channelMax;
    private long idleTimeOutMillis;
    private boolean hasIdleTimeOut;
    private final SymbolArray outgoingLocales = new SymbolArray();
    private final SymbolArray incomingLocales = new SymbolArray();
    private final SymbolArray offeredCapabilities = new SymbolArray();
    private final SymbolArray desiredCapabilities = new SymbolArray();
    private final EncodedValue properties = new EncodedValue();

    /** An open with every field at its default and no container-id yet. */
    public Open() {
        clear();
    }

    @Override
    public long descriptor() {
        return Descriptors.OPEN;
    }

    @Override
    public String typeName() {
        return "open";
    }

    @Override
    public Open clear() {
        containerId.clear();
        hostname.clear();
        maxFrameSize = DEFAULT_MAX_FRAME_SIZE;
        channelMax = DEFAULT_CHANNEL_MAX;
        idleTimeOutMillis = 0;
        hasIdleTimeOut = false;
        outgoingLocales.clear();
        incomingLocales.clear();
        offeredCapabilities.clear();
        desiredCapabilities.clear();
        properties.clear();
        return this;
    }

    /** {@return the container-id (mandatory)} */
    public MutableBytes containerId() {
        return containerId;
    }

    /**
     * Sets the container-id.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Open containerId(String value) {
        containerId.set(value);
        return this;
    }

    /** {@return the hostname the peer wants to reach, or a null holder} */
    public MutableBytes hostname() {
        return hostname;
    }

    /**
     * Sets the hostname (null clears it).
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Open hostname(String value) {
        hostname.set(value);
        return this;
    }

    /** {@return the largest frame the sender of this open accepts, in bytes (default 4294967295)} */
    public long maxFrameSize() {
        return maxFrameSize;
    }

    /**
     * Sets max-frame-size, an unsigned 32-bit value.
     *
     * @param bytes the new value
     * @return this, for chaining
     */
    public Open maxFrameSize(long bytes) {
        if ((bytes & 0xFFFFFFFF00000000L) != 0) {
            throw new IllegalArgumentException("max-frame-size out of uint range: " + bytes);
        }
        maxFrameSize = bytes;
        return this;
    }

    /** {@return the highest channel number the sender of this open may use (default 65535)} */
    public int channelMax() {
        return channelMax;
    }

    /**
     * Sets channel-max, a ushort.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Open channelMax(int value) {
        if ((value & 0xFFFF0000) != 0) {
            throw new IllegalArgumentException("channel-max out of ushort range: " + value);
        }
        channelMax = value;
        return this;
    }

    /** {@return whether idle-time-out is set} */
    public boolean hasIdleTimeOut() {
        return hasIdleTimeOut;
    }

    /** {@return the idle time-out in milliseconds, 0 when absent (no time-out)} */
    public long idleTimeOutMillis() {
        return idleTimeOutMillis;
    }

    /**
     * Sets idle-time-out, an unsigned 32-bit number of milliseconds.
     *
     * @param millis the new value
     * @return this, for chaining
     */
    public Open idleTimeOutMillis(long millis) {
        if ((millis & 0xFFFFFFFF00000000L) != 0) {
            throw new IllegalArgumentException("idle-time-out out of uint range: " + millis);
        }
        idleTimeOutMillis = millis;
        hasIdleTimeOut = true;
        return this;
    }

    /**
     * Removes idle-time-out.
     *
     * @return this, for chaining
     */
    public Open clearIdleTimeOut() {
        idleTimeOutMillis = 0;
        hasIdleTimeOut = false;
        return this;
    }

    /** {@return the outgoing-locales (symbols)} */
    public SymbolArray outgoingLocales() {
        return outgoingLocales;
    }

    /** {@return the incoming-locales (symbols)} */
    public SymbolArray incomingLocales() {
        return incomingLocales;
    }

    /** {@return the offered-capabilities, such as {@code ANONYMOUS-RELAY}} */
    public SymbolArray offeredCapabilities() {
        return offeredCapabilities;
    }

    /** {@return the desired-capabilities} */
    public SymbolArray desiredCapabilities() {
        return desiredCapabilities;
    }

    /** {@return the connection properties map, kept encoded} */
    public EncodedValue properties() {
        return properties;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "container-id");
        containerId.read(reader);
        reader.nextField();
        hostname.read(reader);
        if (reader.nextField() != FormatCode.NULL) {
            maxFrameSize = reader.getUnsignedInt();
        }
        if (reader.nextField() != FormatCode.NULL) {
            channelMax = readUShort(reader, "channel-max");
        }
        if (reader.nextField() != FormatCode.NULL) {
            idleTimeOutMillis = reader.getUnsignedInt();
            hasIdleTimeOut = true;
        }
        reader.nextField();
        outgoingLocales.read(reader);
        reader.nextField();
        incomingLocales.read(reader);
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
        if (containerId.isNull()) {
            throw missing("container-id");
        }
        startFields(writer);
        stringField(writer, containerId);
        stringField(writer, hostname);
        if (maxFrameSize == DEFAULT_MAX_FRAME_SIZE) {
            skipField();
        } else {
            uintField(writer, (int) maxFrameSize);
        }
        if (channelMax == DEFAULT_CHANNEL_MAX) {
            skipField();
        } else {
            ushortField(writer, channelMax);
        }
        if (hasIdleTimeOut) {
            uintField(writer, (int) idleTimeOutMillis);
        } else {
            skipField();
        }
        symbolsField(writer, outgoingLocales);
        symbolsField(writer, incomingLocales);
        symbolsField(writer, offeredCapabilities);
        symbolsField(writer, desiredCapabilities);
        encodedField(writer, properties);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceString(sb, "container-id", containerId);
        traceString(sb, "hostname", hostname);
        trace(sb, "max-frame-size", maxFrameSize);
        trace(sb, "channel-max", channelMax);
        if (hasIdleTimeOut) {
            trace(sb, "idle-time-out", idleTimeOutMillis);
        }
        traceSymbols(sb, "outgoing-locales", outgoingLocales);
        traceSymbols(sb, "incoming-locales", incomingLocales);
        traceSymbols(sb, "offered-capabilities", offeredCapabilities);
        traceSymbols(sb, "desired-capabilities", desiredCapabilities);
        traceEncoded(sb, "properties", properties);
        return traceEnd(sb);
    }
}
