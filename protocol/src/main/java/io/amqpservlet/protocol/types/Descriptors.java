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
    /** The descriptor code of {@code open}. */
    public static final long OPEN = 0x10;
    /** The descriptor code of {@code begin}. */
    public static final long BEGIN = 0x11;
    /** The descriptor code of {@code attach}. */
    public static final long ATTACH = 0x12;
    /** The descriptor code of {@code flow}. */
    public static final long FLOW = 0x13;
    /** The descriptor code of {@code transfer}. */
    public static final long TRANSFER = 0x14;
    /** The descriptor code of {@code disposition}. */
    public static final long DISPOSITION = 0x15;
    /** The descriptor code of {@code detach}. */
    public static final long DETACH = 0x16;
    /** The descriptor code of {@code end}. */
    public static final long END = 0x17;
    /** The descriptor code of {@code close}. */
    public static final long CLOSE = 0x18;
    // AMQP 1.0 §2.8.14
    /** The descriptor code of {@code error}. */
    public static final long ERROR = 0x1d;

    // AMQP 1.0 §3.4: delivery states.
    /** The descriptor code of {@code received}. */
    public static final long RECEIVED = 0x23;
    /** The descriptor code of {@code accepted}. */
    public static final long ACCEPTED = 0x24;
    /** The descriptor code of {@code rejected}. */
    public static final long REJECTED = 0x25;
    /** The descriptor code of {@code released}. */
    public static final long RELEASED = 0x26;
    /** The descriptor code of {@code modified}. */
    public static final long MODIFIED = 0x27;
    // AMQP 1.0 §3.5: source and target.
    /** The descriptor code of {@code source}. */
    public static final long SOURCE = 0x28;
    /** The descriptor code of {@code target}. */
    public static final long TARGET = 0x29;
    // AMQP 1.0 §3.5.9-3.5.11: lifetime policies.
    /** The descriptor code of {@code delete-on-close}. */
    public static final long DELETE_ON_CLOSE = 0x2b;
    /** The descriptor code of {@code delete-on-no-links}. */
    public static final long DELETE_ON_NO_LINKS = 0x2c;
    /** The descriptor code of {@code delete-on-no-messages}. */
    public static final long DELETE_ON_NO_MESSAGES = 0x2d;
    /** The descriptor code of {@code delete-on-no-links-or-messages}. */
    public static final long DELETE_ON_NO_LINKS_OR_MESSAGES = 0x2e;

    // AMQP 1.0 §4.5: transactions (recognised, not implemented).
    /** The descriptor code of {@code coordinator}. */
    public static final long COORDINATOR = 0x30;
    /** The descriptor code of {@code declare}. */
    public static final long DECLARE = 0x31;
    /** The descriptor code of {@code discharge}. */
    public static final long DISCHARGE = 0x32;
    /** The descriptor code of {@code declared}. */
    public static final long DECLARED = 0x33;
    /** The descriptor code of {@code transactional-state}. */
    public static final long TRANSACTIONAL_STATE = 0x34;

    // AMQP 1.0 §5.3: SASL frames.
    /** The descriptor code of {@code sasl-mechanisms}. */
    public static final long SASL_MECHANISMS = 0x40;
    /** The descriptor code of {@code sasl-init}. */
    public static final long SASL_INIT = 0x41;
    /** The descriptor code of {@code sasl-challenge}. */
    public static final long SASL_CHALLENGE = 0x42;
    /** The descriptor code of {@code sasl-response}. */
    public static final long SASL_RESPONSE = 0x43;
    /** The descriptor code of {@code sasl-outcome}. */
    public static final long SASL_OUTCOME = 0x44;

    // AMQP 1.0 §3.2: message sections.
    /** The descriptor code of {@code header}. */
    public static final long HEADER = 0x70;
    /** The descriptor code of {@code delivery-annotations}. */
    public static final long DELIVERY_ANNOTATIONS = 0x71;
    /** The descriptor code of {@code message-annotations}. */
    public static final long MESSAGE_ANNOTATIONS = 0x72;
    /** The descriptor code of {@code properties}. */
    public static final long PROPERTIES = 0x73;
    /** The descriptor code of {@code application-properties}. */
    public static final long APPLICATION_PROPERTIES = 0x74;
    /** The descriptor code of {@code data}. */
    public static final long DATA = 0x75;
    /** The descriptor code of {@code amqp-sequence}. */
    public static final long AMQP_SEQUENCE = 0x76;
    /** The descriptor code of {@code amqp-value}. */
    public static final long AMQP_VALUE = 0x77;
    /** The descriptor code of {@code footer}. */
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

    /**
     * {@return the symbolic descriptor for a numeric code of this class, or null}
     *
     * @param code a descriptor code
     */
    public static Symbol symbolOf(long code) {
        return code >= 0 && code < SYMBOLIC.length ? SYMBOLIC[(int) code] : null;
    }

    /**
     * {@return the numeric code of the described value under the reader's cursor, whether its descriptor is numeric or one
     * of the symbolic names above; -1 for any other descriptor} Allocates nothing.
     *
     * @param reader the reader to decode from
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
     * @param reader the reader that stepped over the descriptor
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
