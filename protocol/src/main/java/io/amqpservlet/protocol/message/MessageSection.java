package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.types.Descriptors;

/**
 * The sections of an AMQP 1.0 message (AMQP 1.0 §3.2), in the order they must appear. The three body kinds
 * share one position: a body is one or more data sections, one or more amqp-sequence sections, or a single
 * amqp-value section.
 */
public enum MessageSection {
    /** §3.2.1 header: a list. */
    HEADER(Descriptors.HEADER, 0, "header"),
    /** §3.2.2 delivery-annotations: a symbol-keyed map for the next hop only. */
    DELIVERY_ANNOTATIONS(Descriptors.DELIVERY_ANNOTATIONS, 1, "delivery-annotations"),
    /** §3.2.3 message-annotations: a symbol-keyed map for intermediaries. */
    MESSAGE_ANNOTATIONS(Descriptors.MESSAGE_ANNOTATIONS, 2, "message-annotations"),
    /** §3.2.4 properties: a list. */
    PROPERTIES(Descriptors.PROPERTIES, 3, "properties"),
    /** §3.2.5 application-properties: a string-keyed map of simple values. */
    APPLICATION_PROPERTIES(Descriptors.APPLICATION_PROPERTIES, 4, "application-properties"),
    /** §3.2.6 data: a binary body section. */
    DATA(Descriptors.DATA, 5, "data"),
    /** §3.2.7 amqp-sequence: a list body section. */
    AMQP_SEQUENCE(Descriptors.AMQP_SEQUENCE, 5, "amqp-sequence"),
    /** §3.2.8 amqp-value: a single body value of any type. */
    AMQP_VALUE(Descriptors.AMQP_VALUE, 5, "amqp-value"),
    /** §3.2.9 footer: a symbol-keyed map, e.g. hashes and signatures of the bare message. */
    FOOTER(Descriptors.FOOTER, 6, "footer");

    // values() clones its array on every call; keep one for lookups on the hot path.
    private static final MessageSection[] BY_CODE_OFFSET = values();
    static final int COUNT = BY_CODE_OFFSET.length;

    private final long descriptor;
    private final int rank;
    private final String specName;

    MessageSection(long descriptor, int rank, String specName) {
        this.descriptor = descriptor;
        this.rank = rank;
        this.specName = specName;
    }

    /** {@return the numeric descriptor code, 0x70 to 0x78} */
    public long descriptor() {
        return descriptor;
    }

    /** {@return the section's position in a message; the three body kinds share position 5} */
    public int rank() {
        return rank;
    }

    /** {@return whether this is one of the body kinds} */
    public boolean isBody() {
        return rank == 5;
    }

    /** {@return the name the spec uses, e.g. {@code "message-annotations"}} */
    public String specName() {
        return specName;
    }

    /**
     * {@return the section with this descriptor code, or null when the code is not a message section's}
     *
     * @param code a descriptor code
     */
    public static MessageSection ofDescriptor(long code) {
        long i = code - Descriptors.HEADER;
        return i >= 0 && i < BY_CODE_OFFSET.length ? BY_CODE_OFFSET[(int) i] : null;
    }
}
