package io.amqpservlet.protocol.frame;

/**
 * The byte stream breaks the AMQP 1.0 framing rules (§2.3): a frame size below 8 or above the negotiated
 * maximum, a data offset below 2 or beyond the frame, an unknown frame type, or a protocol header that is not
 * AMQP at all. An engine answers with {@code amqp:connection:framing-error} and closes the connection, since the
 * stream can no longer be split into frames.
 */
public final class FramingException extends RuntimeException {
    /** Where the bad field starts, as an offset in the array the reader was given. */
    private final long offset;

    /**
     * A framing error described by {@code message}, found at {@code offset} in the buffer being read.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where the problem was found
     */
    public FramingException(String message, long offset) {
        super(message + " at offset " + offset);
        this.offset = offset;
    }

    /** {@return where the bad field starts, as an offset in the array the reader was given} */
    public long offset() {
        return offset;
    }
}
