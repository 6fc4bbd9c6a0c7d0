package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;

/** How a sender settles deliveries (AMQP 1.0 §2.8.2), encoded as a ubyte; the default is {@link #MIXED}. */
public enum SenderSettleMode {
    /** 0: the sender sends every delivery unsettled. */
    UNSETTLED,
    /** 1: the sender sends every delivery settled. */
    SETTLED,
    /** 2: the sender may send deliveries settled or unsettled. */
    MIXED;

    private static final SenderSettleMode[] BY_CODE = values();

    /** {@return the ubyte this mode is encoded as} */
    public int code() {
        return ordinal();
    }

    /**
     * {@return the mode for a ubyte read at {@code offset}}
     *
     * @param code the mode as encoded
     * @param offset where it was read, for the error message
     * @throws InvalidEncodingException for a value the spec does not define
     */
    public static SenderSettleMode of(int code, int offset) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new InvalidEncodingException("sender-settle-mode " + code + " is not 0, 1 or 2", offset);
        }
        return BY_CODE[code];
    }
}
