package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;

/**
 * The {@code error} composite (AMQP 1.0 §2.8.14): a condition symbol, an optional description and an optional
 * info map. Held as a reusable field of close, end, detach and the rejected outcome; it counts as absent
 * ({@link #isNull()}) while its mandatory condition is null.
 */
public final class ErrorCondition extends DescribedList {
    private final MutableBytes condition = new MutableBytes();
    private final MutableBytes description = new MutableBytes();
    private final EncodedValue info = new EncodedValue();

    /** Creates an empty {@code ErrorCondition}. */
    public ErrorCondition() {
    }

    @Override
    public long descriptor() {
        return Descriptors.ERROR;
    }

    @Override
    public String typeName() {
        return "error";
    }

    /** Absent: no condition set. */
    @Override
    public boolean isNull() {
        return condition.isNull();
    }

    @Override
    public ErrorCondition clear() {
        condition.clear();
        description.clear();
        info.clear();
        return this;
    }

    /** {@return the condition symbol, e.g. {@code amqp:decode-error} (see {@link ErrorConditions})} */
    public MutableBytes condition() {
        return condition;
    }

    /**
     * Sets the condition; the error is then present.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public ErrorCondition condition(Symbol value) {
        condition.set(value);
        return this;
    }

    /**
     * {@return whether the condition is exactly {@code symbol}; allocates nothing}
     *
     * @param symbol the condition to compare with
     */
    public boolean is(Symbol symbol) {
        return condition.contentEquals(symbol);
    }

    /** {@return the human-readable description, or a null holder} */
    public MutableBytes description() {
        return description;
    }

    /**
     * Sets the description (null clears it).
     *
     * @param value the new value
     * @return this, for chaining
     */
    public ErrorCondition description(String value) {
        description.set(value);
        return this;
    }

    /** {@return the info map ({@code fields}), kept encoded} */
    public EncodedValue info() {
        return info;
    }

    /**
     * Sets condition, description and info to those of {@code other}.
     *
     * @param other the value to copy
     * @return this, for chaining
     */
    public ErrorCondition set(ErrorCondition other) {
        condition.set(other.condition);
        description.set(other.description);
        if (other.info.isNull()) {
            info.clear();
        } else {
            info.set(other.info.array(), 0, other.info.length());
        }
        return this;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "condition");
        condition.read(reader);
        reader.nextField();
        description.read(reader);
        reader.nextField();
        info.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        if (condition.isNull()) {
            throw missing("condition");
        }
        startFields(writer);
        symbolField(writer, condition);
        stringField(writer, description);
        encodedField(writer, info);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceSymbol(sb, "condition", condition);
        traceString(sb, "description", description);
        traceEncoded(sb, "info", info);
        return traceEnd(sb);
    }
}
