package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.SymbolArray;

/**
 * {@code sasl-mechanisms} (AMQP 1.0 §5.3.3.1): the mechanisms the server supports. The field is
 * {@code multiple}: a single symbol or an array are both accepted.
 */
public final class SaslMechanisms extends SaslFrame {
    private final SymbolArray mechanisms = new SymbolArray();

    /** Creates an empty {@code SaslMechanisms}. */
    public SaslMechanisms() {
    }

    @Override
    public long descriptor() {
        return Descriptors.SASL_MECHANISMS;
    }

    @Override
    public String typeName() {
        return "sasl-mechanisms";
    }

    @Override
    public SaslMechanisms clear() {
        mechanisms.clear();
        return this;
    }

    /** {@return the sasl-server-mechanisms (mandatory), such as {@code PLAIN} or {@code ANONYMOUS}} */
    public SymbolArray mechanisms() {
        return mechanisms;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "sasl-server-mechanisms");
        mechanisms.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        if (mechanisms.isNull()) {
            throw missing("sasl-server-mechanisms");
        }
        startFields(writer);
        symbolsField(writer, mechanisms);
        endFields(writer);
    }

    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceSymbols(sb, "sasl-server-mechanisms", mechanisms);
        return traceEnd(sb);
    }
}
