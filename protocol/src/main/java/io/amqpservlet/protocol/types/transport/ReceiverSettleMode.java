package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;

/** When a receiver settles deliveries (AMQP 1.0 §2.8.3), encoded as a ubyte; the default is {@link #FIRST}. */
public enum ReceiverSettleMode {
    /** 0: the receiver settles spontaneously, without waiting for the sender. */
    FIRST,
    /** 1: the receiver settles only after the sender has settled. */
    SECOND;

    private static final ReceiverSettleMode[] BY_CODE = values();

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
    public static ReceiverSettleMode of(int code, int offset) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new InvalidEncodingException("receiver-settle-mode " + code + " is not 0 or 1", offset);
        }
        return BY_CODE[code];
    }
}
