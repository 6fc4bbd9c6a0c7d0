package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;

/** {@code sasl-outcome} (AMQP 1.0 §5.3.3.5): the result of the authentication, a {@code sasl-code} ubyte. */
public final class SaslOutcome extends SaslFrame {
    /** AMQP 1.0 §5.3.3.6: authentication succeeded. */
    public static final int OK = 0;
    /** Failed because of bad credentials. */
    public static final int AUTH = 1;
    /** Failed because of a system error. */
    public static final int SYS = 2;
    /** Failed because of an unrecoverable system error. */
    public static final int SYS_PERM = 3;
    /** Failed because of a transient system error. */
    public static final int SYS_TEMP = 4;

    private int code;
    private final MutableBytes additionalData = new MutableBytes();

    /** Creates an empty {@code SaslOutcome}. */
    public SaslOutcome() {
    }

    @Override
    public long descriptor() {
        return Descriptors.SASL_OUTCOME;
    }

    @Override
    public String typeName() {
        return "sasl-outcome";
    }

    @Override
    public SaslOutcome clear() {
        code = OK;
        additionalData.clear();
        return this;
    }

    /** {@return the sasl-code: {@link #OK}, {@link #AUTH}, {@link #SYS}, {@link #SYS_PERM} or {@link #SYS_TEMP}} */
    public int code() {
        return code;
    }

    /**
     * Sets the code (a ubyte).
     *
     * @param value the new value
     * @return this, for chaining
     */
    public SaslOutcome code(int value) {
        if ((value & 0xFFFFFF00) != 0) {
            throw new IllegalArgumentException("sasl-code out of ubyte range: " + value);
        }
        code = value;
        return this;
    }

    /** {@return additional data for the client, or a null holder} */
    public MutableBytes additionalData() {
        return additionalData;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "code");
        code = readUByte(reader, "code");
        reader.nextField();
        additionalData.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        ubyteField(writer, code);
        binaryField(writer, additionalData);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        trace(sb, "code", code);
        traceBinary(sb, "additional-data", additionalData);
        return traceEnd(sb);
    }
}
