package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.SymbolArray;

/**
 * The fields a {@link Source} and a {@link Target} share (AMQP 1.0 §3.5.3, §3.5.4): address, durable,
 * expiry-policy, timeout, dynamic and dynamic-node-properties, in that order at the start of both lists, and
 * capabilities. A terminus held by an attach is absent ({@link #isNull()}) until it is decoded or
 * {@link #present(boolean) made present}; the setters here make it present.
 */
public abstract class Terminus extends DescribedList {
    private boolean present;
    private final MutableBytes address = new MutableBytes();
    private int durable;
    private int expiryPolicy;
    private long timeoutSeconds;
    private boolean dynamic;
    private final EncodedValue dynamicNodeProperties = new EncodedValue();
    private final SymbolArray capabilities = new SymbolArray();

    Terminus() {
    }

    /** Absent: an attach without this terminus (a null source or target). */
    @Override
    public boolean isNull() {
        return !present;
    }

    /**
     * Makes the terminus present or absent without changing its fields.
     *
     * @param value whether the terminus is present
     * @return this, for chaining
     */
    public Terminus present(boolean value) {
        present = value;
        return this;
    }

    /** Resets the shared fields to their defaults and makes the terminus absent. */
    protected final void clearTerminus() {
        present = false;
        address.clear();
        durable = TerminusDurability.NONE;
        expiryPolicy = TerminusExpiryPolicy.SESSION_END;
        timeoutSeconds = 0;
        dynamic = false;
        dynamicNodeProperties.clear();
        capabilities.clear();
    }

    /** {@return the address, or a null holder (a dynamic terminus before the node is created)} */
    public MutableBytes address() {
        return address;
    }

    /**
     * Sets the address (null clears it) and makes the terminus present.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Terminus address(String value) {
        address.set(value);
        present = true;
        return this;
    }

    /** {@return what is retained durably: a {@link TerminusDurability} constant (default none)} */
    public int durable() {
        return durable;
    }

    /**
     * Sets durable and makes the terminus present.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Terminus durable(int value) {
        durable = value;
        present = true;
        return this;
    }

    /** {@return when the expiry timer starts: a {@link TerminusExpiryPolicy} constant (default session-end)} */
    public int expiryPolicy() {
        return expiryPolicy;
    }

    /**
     * Sets expiry-policy and makes the terminus present.
     *
     * @param policy the new value
     * @return this, for chaining
     */
    public Terminus expiryPolicy(int policy) {
        TerminusExpiryPolicy.symbol(policy); // range check
        expiryPolicy = policy;
        present = true;
        return this;
    }

    /** {@return the expiry timeout in seconds (unsigned 32-bit; default 0)} */
    public long timeoutSeconds() {
        return timeoutSeconds;
    }

    /**
     * Sets timeout and makes the terminus present.
     *
     * @param seconds the new value
     * @return this, for chaining
     */
    public Terminus timeoutSeconds(long seconds) {
        if ((seconds & 0xFFFFFFFF00000000L) != 0) {
            throw new IllegalArgumentException("timeout out of uint range: " + seconds);
        }
        timeoutSeconds = seconds;
        present = true;
        return this;
    }

    /** {@return whether the peer is asked to create the node (default false)} */
    public boolean dynamic() {
        return dynamic;
    }

    /**
     * Sets dynamic and makes the terminus present.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Terminus dynamic(boolean value) {
        dynamic = value;
        present = true;
        return this;
    }

    /** {@return the dynamic-node-properties map, kept encoded} */
    public EncodedValue dynamicNodeProperties() {
        return dynamicNodeProperties;
    }

    /** {@return the capabilities, such as {@code temporary-queue}} */
    public SymbolArray capabilities() {
        return capabilities;
    }

    /**
     * Decodes the six leading shared fields; the reader is inside the list.
     *
     * @param reader the reader to decode from
     */
    protected final void decodeLeadingFields(AmqpReader reader) {
        present = true;
        reader.nextField();
        address.read(reader);
        if (reader.nextField() != FormatCode.NULL) {
            durable = reader.getInt();
            if (durable < 0 || durable > TerminusDurability.UNSETTLED_STATE) {
                throw new InvalidEncodingException(typeName()
                        + ": terminus-durability " + Integer.toUnsignedString(durable) + " is not 0, 1 or 2",
                        reader.valueStart());
            }
        }
        if (reader.nextField() != FormatCode.NULL) {
            expiryPolicy = TerminusExpiryPolicy.read(reader);
        }
        if (reader.nextField() != FormatCode.NULL) {
            timeoutSeconds = reader.getUnsignedInt();
        }
        dynamic = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        reader.nextField();
        dynamicNodeProperties.read(reader);
    }

    /**
     * Encodes the six leading shared fields; a list is open.
     *
     * @param writer the writer to encode into
     */
    protected final void encodeLeadingFields(AmqpWriter writer) {
        // AMQP 1.0 §3.5.3: address is an address-string in practice; written as a string.
        stringField(writer, address);
        if (durable == TerminusDurability.NONE) {
            skipField();
        } else {
            uintField(writer, durable);
        }
        if (expiryPolicy == TerminusExpiryPolicy.SESSION_END) {
            skipField();
        } else {
            symbolField(writer, TerminusExpiryPolicy.symbol(expiryPolicy));
        }
        if (timeoutSeconds == 0) {
            skipField();
        } else {
            uintField(writer, (int) timeoutSeconds);
        }
        flagField(writer, dynamic);
        encodedField(writer, dynamicNodeProperties);
    }

    /**
     * Traces the six leading shared fields.
     *
     * @param sb the trace being built
     */
    protected final void traceLeadingFields(StringBuilder sb) {
        traceString(sb, "address", address);
        trace(sb, "durable", durable);
        trace(sb, "expiry-policy", TerminusExpiryPolicy.symbol(expiryPolicy));
        trace(sb, "timeout", timeoutSeconds);
        trace(sb, "dynamic", dynamic);
        traceEncoded(sb, "dynamic-node-properties", dynamicNodeProperties);
    }
}
