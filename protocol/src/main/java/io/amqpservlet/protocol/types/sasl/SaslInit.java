package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;

/** {@code sasl-init} (AMQP 1.0 §5.3.3.2): the client's chosen mechanism and its initial response. */
public final class SaslInit extends SaslFrame {
    private final MutableBytes mechanism = new MutableBytes();
    private final MutableBytes initialResponse = new MutableBytes();
    private final MutableBytes hostname = new MutableBytes();

    /** Creates an empty {@code SaslInit}. */
    public SaslInit() {
    }

    @Override
    public long descriptor() {
        return Descriptors.SASL_INIT;
    }

    @Override
    public String typeName() {
        return "sasl-init";
    }

    @Override
    public SaslInit clear() {
        mechanism.clear();
        initialResponse.clear();
        hostname.clear();
        return this;
    }

    /** {@return the selected mechanism symbol (mandatory)} */
    public MutableBytes mechanism() {
        return mechanism;
    }

    /**
     * Sets the mechanism.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public SaslInit mechanism(Symbol value) {
        mechanism.set(value);
        return this;
    }

    /** {@return the initial response bytes (for PLAIN: NUL authzid NUL authcid NUL password), or a null holder} */
    public MutableBytes initialResponse() {
        return initialResponse;
    }

    /** {@return the hostname the client connects to, or a null holder} */
    public MutableBytes hostname() {
        return hostname;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "mechanism");
        mechanism.read(reader);
        reader.nextField();
        initialResponse.read(reader);
        reader.nextField();
        hostname.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        if (mechanism.isNull()) {
            throw missing("mechanism");
        }
        startFields(writer);
        symbolField(writer, mechanism);
        binaryField(writer, initialResponse);
        stringField(writer, hostname);
        endFields(writer);
    }

    /** Traces without the initial response's content, which may hold a password. */
    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        traceSymbol(sb, "mechanism", mechanism);
        if (!initialResponse.isNull()) {
            trace(sb, "initial-response", "<" + initialResponse.length() + " bytes>");
        }
        traceString(sb, "hostname", hostname);
        return traceEnd(sb);
    }
}
