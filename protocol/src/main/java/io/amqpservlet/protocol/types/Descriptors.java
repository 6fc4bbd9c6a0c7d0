package io.amqpservlet.protocol.types;

/**
 * The numeric descriptor codes of the AMQP 1.0 composite types, domain 0x00000000 (AMQP 1.0 §1.5). Symbolic
 * descriptors ({@code amqp:open:list} ...) are also legal on the wire; decoders accept both (see
 * {@link #codeOf}), encoders always write the numeric code.
 */
public final class Descriptors {
    private Descriptors() {
    }

    // AMQP 1.0 §2.7: transport performatives.
    public static final long OPEN = 0x10;
    public static final long BEGIN = 0x11;
    public static final long ATTACH = 0x12;
    public static final long FLOW = 0x13;
    public static final long TRANSFER = 0x14;
    public static final long DISPOSITION = 0x15;
    public static final long DETACH = 0x16;
    public static final long END = 0x17;
    public static final long CLOSE = 0x18;
    // AMQP 1.0 §2.8.14
    public static final long ERROR = 0x1d;

    // AMQP 1.0 §3.4: delivery states.
    public static final long RECEIVED = 0x23;
    public static final long ACCEPTED = 0x24;
    public static final long REJECTED = 0x25;
    public static final long RELEASED = 0x26;
    public static final long MODIFIED = 0x27;
    // AMQP 1.0 §3.5: source and target.
    public static final long SOURCE = 0x28;
    public static final long TARGET = 0x29;
    // AMQP 1.0 §3.5.9-3.5.11: lifetime policies.
    public static final long DELETE_ON_CLOSE = 0x2b;
    public static final long DELETE_ON_NO_LINKS = 0x2c;
    public static final long DELETE_ON_NO_MESSAGES = 0x2d;
    public static final long DELETE_ON_NO_LINKS_OR_MESSAGES = 0x2e;

    // AMQP 1.0 §4.5: transactions (recognised, not implemented).
    public static final long COORDINATOR = 0x30;
    public static final long DECLARE = 0x31;
    public static final long DISCHARGE = 0x32;
    public static final long DECLARED = 0x33;
    public static final long TRANSACTIONAL_STATE = 0x34;

    // AMQP 1.0 §5.3: SASL frames.
    public static final long SASL_MECHANISMS = 0x40;
    public static final long SASL_INIT = 0x41;
    public static final long SASL_CHALLENGE = 0x42;
    public static final long SASL_RESPONSE = 0x43;
    public static final long SASL_OUTCOME = 0x44;

    // AMQP 1.0 §3.2: message sections.
    public static final long HEADER = 0x70;
    public static final long DELIVERY_ANNOTATIONS = 0x71;
    public static final long MESSAGE_ANNOTATIONS = 0x72;
    public static final long PROPERTIES = 0x73;
    public static final long APPLICATION_PROPERTIES = 0x74;
    public static final long DATA = 0x75;
    public static final long AMQP_SEQUENCE = 0x76;
    public static final long AMQP_VALUE = 0x77;
    public static final long FOOTER = 0x78;

    private static final Symbol[] SYMBOLIC = new Symbol[0x79];

    static {
        name(OPEN, "amqp:open:list");
        name(BEGIN, "amqp:begin:list");
        name(ATTACH, "amqp:attach:list");
        name(FLOW, "amqp:flow:list");
        name(TRANSFER, "amqp:transfer:list");
        name(DISPOSITION, "amqp:disposition:list");
        name(DETACH, "amqp:detach:list");
        name(END, "amqp:end:list");
        name(CLOSE, "amqp:close:list");
        name(ERROR, "amqp:error:list");
        name(RECEIVED, "amqp:received:list");
        name(ACCEPTED, "amqp:accepted:list");
        name(REJECTED, "amqp:rejected:list");
        name(RELEASED, "amqp:released:list");
        name(MODIFIED, "amqp:modified:list");
        name(SOURCE, "amqp:source:list");
        name(TARGET, "amqp:target:list");
        name(DELETE_ON_CLOSE, "amqp:delete-on-close:list");
        name(DELETE_ON_NO_LINKS, "amqp:delete-on-no-links:list");
        name(DELETE_ON_NO_MESSAGES, "amqp:delete-on-no-messages:list");
        name(DELETE_ON_NO_LINKS_OR_MESSAGES, "amqp:delete-on-no-links-or-messages:list");
        name(COORDINATOR, "amqp:coordinator:list");
        name(DECLARE, "amqp:declare:list");
        name(DISCHARGE, "amqp:discharge:list");
        name(DECLARED, "amqp:declared:list");
        name(TRANSACTIONAL_STATE, "amqp:transactional-state:list");
        name(SASL_MECHANISMS, "amqp:sasl-mechanisms:list");
        name(SASL_INIT, "amqp:sasl-init:list");
        name(SASL_CHALLENGE, "amqp:sasl-challenge:list");
        name(SASL_RESPONSE, "amqp:sasl-response:list");
        name(SASL_OUTCOME, "amqp:sasl-outcome:list");
        name(HEADER, "amqp:header:list");
        name(DELIVERY_ANNOTATIONS, "amqp:delivery-annotations:map");
        name(MESSAGE_ANNOTATIONS, "amqp:message-annotations:map");
        name(PROPERTIES, "amqp:properties:list");
        name(APPLICATION_PROPERTIES, "amqp:application-properties:map");
        name(DATA, "amqp:data:binary");
        name(AMQP_SEQUENCE, "amqp:amqp-sequence:list");
        name(AMQP_VALUE, "amqp:amqp-value:*");
        name(FOOTER, "amqp:footer:map");
    }

    private static void name(long code, String symbol) {
        SYMBOLIC[(int) code] = Symbol.of(symbol);
    }

    /** {@return the symbolic descriptor for a numeric code of this class, or null} */
    public static Symbol symbolOf(long code) {
        return code >= 0 && code < SYMBOLIC.length ? SYMBOLIC[(int) code] : null;
    }

    /**
     * {@return the numeric code of the described value under the reader's cursor, whether its descriptor is numeric or one
     * of the symbolic names above; -1 for any other descriptor} Allocates nothing.
     */
    public static long codeOf(io.amqpservlet.protocol.codec.AmqpReader reader) {
        long code = reader.descriptorCode();
        if (code >= 0) {
            return code;
        }
        for (int i = 0; i < SYMBOLIC.length; i++) {
            Symbol s = SYMBOLIC[i];
            if (s != null && reader.descriptorIs(s)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@return the numeric code of the descriptor the reader last stepped over ({@code nextDescribed()},
     * {@code unwrapDescribed()}, {@code enterDescribedList()}), found by matching its symbolic form against the names
     * above when it was not numeric; -1 for any other descriptor} Allocates nothing.
     *
     * @param numeric what the stepping call returned
     */
    public static long codeOfStepped(io.amqpservlet.protocol.codec.AmqpReader reader, long numeric) {
        if (numeric >= 0) {
            return numeric;
        }
        for (int i = 0; i < SYMBOLIC.length; i++) {
            Symbol s = SYMBOLIC[i];
            if (s != null && reader.describedBy(s)) {
                return i;
            }
        }
        return -1;
    }
}
