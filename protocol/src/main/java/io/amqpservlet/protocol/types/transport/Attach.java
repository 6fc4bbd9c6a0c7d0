package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.SymbolArray;
import io.amqpservlet.protocol.types.messaging.Source;
import io.amqpservlet.protocol.types.messaging.Target;

/**
 * The {@code attach} performative (AMQP 1.0 §2.7.3): attaches a link to a session. The source and target are
 * owned, reused instances, absent while {@link Source#isNull()} / {@link Target#isNull()}. A transaction
 * coordinator target (AMQP 1.0 §4.5.1) is kept as its raw encoding in {@link #coordinator()}.
 */
public final class Attach extends Performative {
    private final MutableBytes name = new MutableBytes();
    private int handle;
    private Role role = Role.SENDER;
    private SenderSettleMode sndSettleMode = SenderSettleMode.MIXED;
    private ReceiverSettleMode rcvSettleMode = ReceiverSettleMode.FIRST;
    private final Source source = new Source();
    private final Target target = new Target();
    private final EncodedValue coordinator = new EncodedValue();
    private final EncodedValue unsettled = new EncodedValue();
    private boolean incompleteUnsettled;
    private int initialDeliveryCount;
    private boolean hasInitialDeliveryCount;
    private long maxMessageSize;
    private boolean hasMaxMessageSize;
    private final SymbolArray offeredCapabilities = new SymbolArray();
    private final SymbolArray desiredCapabilities = new SymbolArray();
    private final EncodedValue properties = new EncodedValue();

    /** Creates an empty {@code Attach}. */
    public Attach() {
    }

    @Override
    public long descriptor() {
        return Descriptors.ATTACH;
    }

    @Override
    public String typeName() {
        return "attach";
    }

    @Override
    public Attach clear() {
        name.clear();
        handle = 0;
        role = Role.SENDER;
        sndSettleMode = SenderSettleMode.MIXED;
        rcvSettleMode = ReceiverSettleMode.FIRST;
        source.clear();
        target.clear();
        coordinator.clear();
        unsettled.clear();
        incompleteUnsettled = false;
        initialDeliveryCount = 0;
        hasInitialDeliveryCount = false;
        maxMessageSize = 0;
        hasMaxMessageSize = false;
        offeredCapabilities.clear();
        desiredCapabilities.clear();
        properties.clear();
        return this;
    }

    /** {@return the link name (mandatory)} */
    public MutableBytes name() {
        return name;
    }

    /**
     * Sets the link name.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach name(String value) {
        name.set(value);
        return this;
    }

    /** {@return the handle (unsigned)} */
    public int handle() {
        return handle;
    }

    /**
     * Sets the handle.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach handle(int value) {
        handle = value;
        return this;
    }

    /** {@return the role of the sender of this attach} */
    public Role role() {
        return role;
    }

    /**
     * Sets the role.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach role(Role value) {
        role = value;
        return this;
    }

    /** {@return the sender settle mode (default mixed)} */
    public SenderSettleMode sndSettleMode() {
        return sndSettleMode;
    }

    /**
     * Sets snd-settle-mode.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach sndSettleMode(SenderSettleMode value) {
        sndSettleMode = value;
        return this;
    }

    /** {@return the receiver settle mode (default first)} */
    public ReceiverSettleMode rcvSettleMode() {
        return rcvSettleMode;
    }

    /**
     * Sets rcv-settle-mode.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach rcvSettleMode(ReceiverSettleMode value) {
        rcvSettleMode = value;
        return this;
    }

    /** {@return the source, absent when {@link Source#isNull()}} */
    public Source source() {
        return source;
    }

    /** {@return the target, absent when {@link Target#isNull()} (and when the target is a coordinator)} */
    public Target target() {
        return target;
    }

    /** {@return a coordinator target's raw encoding, or absent} */
    public EncodedValue coordinator() {
        return coordinator;
    }

    /** {@return the unsettled map (delivery-tag to delivery-state), kept encoded} */
    public EncodedValue unsettled() {
        return unsettled;
    }

    /** {@return whether the unsettled map is incomplete (default false)} */
    public boolean incompleteUnsettled() {
        return incompleteUnsettled;
    }

    /**
     * Sets incomplete-unsettled.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach incompleteUnsettled(boolean value) {
        incompleteUnsettled = value;
        return this;
    }

    /** {@return whether initial-delivery-count is set (a sender must set it)} */
    public boolean hasInitialDeliveryCount() {
        return hasInitialDeliveryCount;
    }

    /** {@return the sender's initial delivery-count (a serial number); 0 when absent} */
    public int initialDeliveryCount() {
        return initialDeliveryCount;
    }

    /**
     * Sets initial-delivery-count.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Attach initialDeliveryCount(int value) {
        initialDeliveryCount = value;
        hasInitialDeliveryCount = true;
        return this;
    }

    /**
     * Removes initial-delivery-count.
     *
     * @return this, for chaining
     */
    public Attach clearInitialDeliveryCount() {
        initialDeliveryCount = 0;
        hasInitialDeliveryCount = false;
        return this;
    }

    /** {@return whether max-message-size is set} */
    public boolean hasMaxMessageSize() {
        return hasMaxMessageSize;
    }

    /** {@return the largest message accepted, in bytes (a ulong, unsigned); 0 when absent or unlimited} */
    public long maxMessageSize() {
        return maxMessageSize;
    }

    /**
     * Sets max-message-size (0 means no limit, AMQP 1.0 §2.7.3).
     *
     * @param bytes the new value
     * @return this, for chaining
     */
    public Attach maxMessageSize(long bytes) {
        maxMessageSize = bytes;
        hasMaxMessageSize = true;
        return this;
    }

    /**
     * Removes max-message-size.
     *
     * @return this, for chaining
     */
    public Attach clearMaxMessageSize() {
        maxMessageSize = 0;
        hasMaxMessageSize = false;
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

    /** {@return the link properties map, kept encoded} */
    public EncodedValue properties() {
        return properties;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "name");
        int nameCode = reader.formatCode();
        if (nameCode != FormatCode.STR8 && nameCode != FormatCode.STR32) {
            // AMQP 1.0 §2.7.3: a string. Taken as bytes, a binary name would be echoed in our attach as a string
            // that is not UTF-8.
            throw new UnexpectedTypeException("attach: name is a " + FormatCode.name(nameCode) + ", not a string",
                    reader.valueStart());
        }
        name.read(reader);
        reader.nextField();
        requireField(reader, "handle");
        handle = reader.getInt();
        reader.nextField();
        requireField(reader, "role");
        role = Role.of(reader.getBoolean());
        if (reader.nextField() != FormatCode.NULL) {
            sndSettleMode = SenderSettleMode.of(readUByte(reader, "snd-settle-mode"), reader.valueStart());
        }
        if (reader.nextField() != FormatCode.NULL) {
            rcvSettleMode = ReceiverSettleMode.of(readUByte(reader, "rcv-settle-mode"), reader.valueStart());
        }
        if (reader.nextField() != FormatCode.NULL) {
            source.decode(reader);
        }
        if (reader.nextField() != FormatCode.NULL) {
            if (reader.formatCode() == FormatCode.DESCRIBED && Descriptors.codeOf(reader) == Descriptors.COORDINATOR) {
                coordinator.read(reader);
            } else {
                target.decode(reader);
            }
        }
        reader.nextField();
        unsettled.read(reader);
        incompleteUnsettled = reader.nextField() != FormatCode.NULL && reader.getBoolean();
        if (reader.nextField() != FormatCode.NULL) {
            initialDeliveryCount = reader.getInt();
            hasInitialDeliveryCount = true;
        }
        if (reader.nextField() != FormatCode.NULL) {
            maxMessageSize = reader.getLong();
            hasMaxMessageSize = true;
        }
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
        if (name.isNull()) {
            throw missing("name");
        }
        startFields(writer);
        stringField(writer, name);
        uintField(writer, handle);
        booleanField(writer, role.encoded());
        if (sndSettleMode == SenderSettleMode.MIXED) {
            skipField();
        } else {
            ubyteField(writer, sndSettleMode.code());
        }
        if (rcvSettleMode == ReceiverSettleMode.FIRST) {
            skipField();
        } else {
            ubyteField(writer, rcvSettleMode.code());
        }
        compositeField(writer, source);
        if (!coordinator.isNull()) {
            encodedField(writer, coordinator);
        } else {
            compositeField(writer, target);
        }
        encodedField(writer, unsettled);
        flagField(writer, incompleteUnsettled);
        if (hasInitialDeliveryCount) {
            uintField(writer, initialDeliveryCount);
        } else {
            skipField();
        }
        if (hasMaxMessageSize) {
            ulongField(writer, maxMessageSize);
        } else {
            skipField();
        }
        symbolsField(writer, offeredCapabilities);
        symbolsField(writer, desiredCapabilities);
        encodedField(writer, properties);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceString(sb, "name", name);
        traceUInt(sb, "handle", handle);
        trace(sb, "role", role == Role.RECEIVER);
        trace(sb, "snd-settle-mode", sndSettleMode.code());
        trace(sb, "rcv-settle-mode", rcvSettleMode.code());
        traceComposite(sb, "source", source);
        traceComposite(sb, "target", target);
        traceEncoded(sb, "coordinator", coordinator);
        traceEncoded(sb, "unsettled", unsettled);
        trace(sb, "incomplete-unsettled", incompleteUnsettled);
        if (hasInitialDeliveryCount) {
            traceUInt(sb, "initial-delivery-count", initialDeliveryCount);
        }
        if (hasMaxMessageSize) {
            trace(sb, "max-message-size", Long.toUnsignedString(maxMessageSize));
        }
        traceSymbols(sb, "offered-capabilities", offeredCapabilities);
        traceSymbols(sb, "desired-capabilities", desiredCapabilities);
        traceEncoded(sb, "properties", properties);
        return traceEnd(sb);
    }
}
