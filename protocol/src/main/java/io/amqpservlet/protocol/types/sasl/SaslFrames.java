package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.TruncatedEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;

/**
 * One reusable instance of each SASL frame body, for one connection, and the dispatch that decodes a SASL frame
 * body (AMQP 1.0 §5.3.1, frame type 0x01) into the right one without allocating. Not thread-safe.
 */
public final class SaslFrames {
    private final SaslMechanisms mechanisms = new SaslMechanisms();
    private final SaslInit init = new SaslInit();
    private final SaslChallenge challenge = new SaslChallenge();
    private final SaslResponse response = new SaslResponse();
    private final SaslOutcome outcome = new SaslOutcome();

    /** Creates an empty {@code SaslFrames}. */
    public SaslFrames() {
    }

    /**
     * Reads the next value of {@code reader} (positioned at the start of a SASL frame body) and decodes it into
     * the instance of its type, which it returns.
     *
     * @param reader the reader to decode from
     * @return this set's instance of the SASL frame read, filled
     * @throws io.amqpservlet.protocol.codec.DecodeException when the body is not a SASL frame or does not decode
     */
    public SaslFrame decode(AmqpReader reader) {
        if (!reader.hasNext()) {
            // Only AMQP frames may be empty (heartbeats, AMQP 1.0 §2.4.5); a SASL frame carries a body (§5.3.1).
            throw new TruncatedEncodingException("an empty frame body where a SASL frame was expected",
                    reader.position());
        }
        reader.next();
        if (reader.formatCode() != FormatCode.DESCRIBED) {
            throw new UnexpectedTypeException("expected a described SASL frame but found "
                    + FormatCode.name(reader.formatCode()), reader.valueStart());
        }
        long code = Descriptors.codeOf(reader);
        SaslFrame frame = forCode(code);
        if (frame == null) {
            throw new UnexpectedTypeException("descriptor " + (code < 0 ? "of an unknown type" : "0x"
                    + Long.toHexString(code)) + " is not a SASL frame", reader.valueStart());
        }
        frame.decode(reader);
        return frame;
    }

    /**
     * {@return the instance for a descriptor code, or null when the code is not a SASL frame's}
     *
     * @param descriptorCode a descriptor code
     */
    public SaslFrame forCode(long descriptorCode) {
        if (descriptorCode == Descriptors.SASL_MECHANISMS) {
            return mechanisms;
        } else if (descriptorCode == Descriptors.SASL_INIT) {
            return init;
        } else if (descriptorCode == Descriptors.SASL_CHALLENGE) {
            return challenge;
        } else if (descriptorCode == Descriptors.SASL_RESPONSE) {
            return response;
        } else if (descriptorCode == Descriptors.SASL_OUTCOME) {
            return outcome;
        }
        return null;
    }

    /** {@return the reusable sasl-mechanisms} */
    public SaslMechanisms mechanisms() {
        return mechanisms;
    }

    /** {@return the reusable sasl-init} */
    public SaslInit init() {
        return init;
    }

    /** {@return the reusable sasl-challenge} */
    public SaslChallenge challenge() {
        return challenge;
    }

    /** {@return the reusable sasl-response} */
    public SaslResponse response() {
        return response;
    }

    /** {@return the reusable sasl-outcome} */
    public SaslOutcome outcome() {
        return outcome;
    }
}
