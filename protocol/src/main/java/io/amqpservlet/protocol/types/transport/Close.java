package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;

/** The {@code close} performative (AMQP 1.0 §2.7.9): closes the connection, with an optional error. */
public final class Close extends Performative {
    private final ErrorCondition error = new ErrorCondition();

    @Override
    public long descriptor() {
        return Descriptors.CLOSE;
    }

    @Override
    public String typeName() {
        return "close";
    }

    @Override
    public Close clear() {
        error.clear();
        return this;
    }

    /** The error, absent ({@link ErrorCondition#isNull()}) for a clean close; set its condition to send one. */
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
