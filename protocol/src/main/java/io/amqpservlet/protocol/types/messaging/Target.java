package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;

/** The {@code target} terminus (AMQP 1.0 §3.5.4): where a link's messages go. Fields of {@link Terminus}. */
public final class Target extends Terminus {
    /** An absent target with every field at its default. */
    public Target() {
        clear();
    }

    @Override
    public long descriptor() {
        return Descriptors.TARGET;
    }

    @Override
    public String typeName() {
        return "target";
    }

    /** Resets every field to its default and makes the target absent. */
    @Override
    public Target clear() {
        clearTerminus();
        return this;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        decodeLeadingFields(reader);
        reader.nextField();
        capabilities().read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        startFields(writer);
        encodeLeadingFields(writer);
        symbolsField(writer, capabilities());
        endFields(writer);
    }

    @Override
    public String toString() {
        if (isNull()) {
            return "null";
        }
        StringBuilder sb = traceStart();
        traceLeadingFields(sb);
        traceSymbols(sb, "capabilities", capabilities());
        return traceEnd(sb);
    }
}
