package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;

/**
 * A performative that ends an endpoint and carries nothing but an optional error: {@link End} (a session,
 * AMQP 1.0 §2.7.8) and {@link Close} (the connection, §2.7.9) have the same single field.
 */
public abstract class EndingPerformative extends Performative {
    private final ErrorCondition error = new ErrorCondition();

    EndingPerformative() {
    }

    /** Makes the error absent. */
    @Override
    public EndingPerformative clear() {
        error.clear();
        return this;
    }

    /** {@return the error, absent ({@link ErrorCondition#isNull()}) when the endpoint ends cleanly; set its condition to send one} */
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
