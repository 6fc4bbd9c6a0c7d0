package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;

/** {@code sasl-challenge} (AMQP 1.0 §5.3.3.3): a security challenge from the server. */
public final class SaslChallenge extends SaslFrame {
    private final MutableBytes challenge = new MutableBytes();

    /** Creates an empty {@code SaslChallenge}. */
    public SaslChallenge() {
    }

    @Override
    public long descriptor() {
        return Descriptors.SASL_CHALLENGE;
    }

    @Override
    public String typeName() {
        return "sasl-challenge";
    }

    @Override
    public SaslChallenge clear() {
        challenge.clear();
        return this;
    }

    /** {@return the challenge bytes (mandatory)} */
    public MutableBytes challenge() {
        return challenge;
    }

    @Override
    public void decode(AmqpReader reader) {
        enterFields(reader);
        clear();
        reader.nextField();
        requireField(reader, "challenge");
        challenge.read(reader);
        exitFields(reader);
    }

    @Override
    public void encode(AmqpWriter writer) {
        if (challenge.isNull()) {
            throw missing("challenge");
        }
        startFields(writer);
        binaryField(writer, challenge);
        endFields(writer);
    }

    /** Traces the length only: the bytes may be credentials. */
    @Override
    public String toString() {
        StringBuilder sb = traceStart();
        if (!challenge.isNull()) {
            trace(sb, "challenge", "<" + challenge.length() + " bytes>");
        }
        return traceEnd(sb);
    }
}
