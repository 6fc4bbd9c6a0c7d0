package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.TruncatedEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;

/**
 * One reusable instance of each performative, for one connection, and the dispatch that decodes an AMQP frame
 * body into the right one (AMQP 1.0 §2.3.2: an AMQP frame body is one performative, then for a transfer the
 * payload). Decoding allocates nothing: the returned object is the same instance every time for its type, valid
 * until the next decode of that type. Not thread-safe.
 *
 * <pre>{@code
 * reader.wrap(frame, bodyOffset, bodyLength);
 * Performative p = performatives.decode(reader);
 * if (p == performatives.transfer()) {
 *     int payloadOffset = reader.position();   // the message bytes follow the transfer
 * }
 * }</pre>
 */
public final class Performatives {
    private final Open open = new Open();
    private final Begin begin = new Begin();
    private final Attach attach = new Attach();
    private final Flow flow = new Flow();
    private final Transfer transfer = new Transfer();
    private final Disposition disposition = new Disposition();
    private final Detach detach = new Detach();
    private final End end = new End();
    private final Close close = new Close();

    /** Creates an empty {@code Performatives}. */
    public Performatives() {
    }

    /**
     * Reads the next value of {@code reader} (positioned at the start of a frame body) and decodes it into the
     * instance of its type, which it returns; the reader is left just after the performative.
     *
     * @param reader the reader to decode from
     * @return this set's instance of the performative read, filled
     * @throws io.amqpservlet.protocol.codec.DecodeException when the body is not a known performative or
     *         does not decode
     */
    public Performative decode(AmqpReader reader) {
        if (!reader.hasNext()) {
            // An empty frame is a heartbeat (AMQP 1.0 §2.4.5), which callers handle before decoding.
            throw new TruncatedEncodingException("an empty frame body where a performative was expected",
                    reader.position());
        }
        reader.next();
        if (reader.formatCode() != FormatCode.DESCRIBED) {
            throw new UnexpectedTypeException("expected a described performative but found "
                    + FormatCode.name(reader.formatCode()), reader.valueStart());
        }
        long code = Descriptors.codeOf(reader);
        Performative p = forCode(code);
        if (p == null) {
            throw new UnexpectedTypeException("descriptor " + (code < 0 ? "of an unknown type" : "0x"
                    + Long.toHexString(code)) + " is not a performative", reader.valueStart());
        }
        p.decode(reader);
        return p;
    }

    /**
     * {@return the instance for a descriptor code, or null when the code is not a performative's}
     *
     * @param descriptorCode a descriptor code
     */
    public Performative forCode(long descriptorCode) {
        if (descriptorCode < Descriptors.OPEN || descriptorCode > Descriptors.CLOSE) {
            return null;
        }
        switch ((int) descriptorCode) {
            case 0x10: return open;
            case 0x11: return begin;
            case 0x12: return attach;
            case 0x13: return flow;
            case 0x14: return transfer;
            case 0x15: return disposition;
            case 0x16: return detach;
            case 0x17: return end;
            default: return close;
        }
    }

    /** {@return the reusable open} */
    public Open open() {
        return open;
    }

    /** {@return the reusable begin} */
    public Begin begin() {
        return begin;
    }

    /** {@return the reusable attach} */
    public Attach attach() {
        return attach;
    }

    /** {@return the reusable flow} */
    public Flow flow() {
        return flow;
    }

    /** {@return the reusable transfer} */
    public Transfer transfer() {
        return transfer;
    }

    /** {@return the reusable disposition} */
    public Disposition disposition() {
        return disposition;
    }

    /** {@return the reusable detach} */
    public Detach detach() {
        return detach;
    }

    /** {@return the reusable end} */
    public End end() {
        return end;
    }

    /** {@return the reusable close} */
    public Close close() {
        return close;
    }
}
