package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;

/** The {@code end} performative (AMQP 1.0 §2.7.8): ends a session, with an optional error. */
public final class End extends Performative {
    private final ErrorCondition error = new ErrorCondition();

    @Override
    public long descriptor() {
        return Descriptors.END;
    }

    @Override
    public String typeName() {
        return "end";
    }

    @Override
    public End clear() {
        error.clear();
        return this;
    }

    /** The error, absent ({@link ErrorCondition#isNull()}) for a clean end; set its condition to send one. */
    public ErrorCondition error() {
        return error;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        if (reader.nextField() != FormatCode.NULL) {
            error.decode(reader);
        }
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        compositeField(writer, error);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceComposite(sb, "error", error);
        return traceEnd(sb);
    }
}
