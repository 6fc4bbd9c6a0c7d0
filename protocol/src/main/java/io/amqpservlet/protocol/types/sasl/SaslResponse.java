package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;

/** {@code sasl-response} (AMQP 1.0 §5.3.3.4): the client's answer to a challenge. */
public final class SaslResponse extends SaslFrame {
    private final MutableBytes response = new MutableBytes();

    /** Creates an empty {@code SaslResponse}. */
    public SaslResponse() {
    }

    @Override
    public long descriptor() {
        return Descriptors.SASL_RESPONSE;
    }

    @Override
    public String typeName() {
        return "sasl-response";
    }

    @Override
    public SaslResponse clear() {
        response.clear();
        return this;
    }

    /** {@return the response bytes (mandatory)} */
    public MutableBytes response() {
        return response;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "response");
        response.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        if (response.isNull()) {
            throw missing("response");
        }
        startFields(writer);
        binaryField(writer, response);
        endFields(writer);
    }

    /** Traces the length only: the bytes may be credentials. */
    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        if (!response.isNull()) {
            trace(sb, "response", "<" + response.length() + " bytes>");
        }
        return traceEnd(sb);
    }
}
