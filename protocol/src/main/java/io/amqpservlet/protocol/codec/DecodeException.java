package io.amqpservlet.protocol.codec;

/**
 * Bytes that cannot be decoded. Each subclass names a distinct cause so that callers can react differently:
 * {@link TruncatedEncodingException} means more bytes are needed, {@link InvalidEncodingException} means the
 * bytes are wrong, {@link DecodeLimitException} means a configured limit was exceeded, and
 * {@link UnexpectedTypeException} means a well-formed value of another type stood where one was asked for.
 * An AMQP engine maps all of them to {@code amqp:decode-error}.
 *
 * <p>The message always says what and where, e.g. {@code "list32 count 1000000 exceeds 12 remaining bytes at
 * offset 84"}; {@link #offset()} is relative to the start of the buffer the reader was given.
 */
public abstract class DecodeException extends RuntimeException {
    /** Where in the decoded buffer the problem was found. */
    private final int offset;

    /**
     * For the subclasses, one per cause.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where in the decoded buffer the problem was found
     */
    protected DecodeException(String message, int offset) {
        super(message + " at offset " + offset);
        this.offset = offset;
    }

    /** {@return the offset in the decoded buffer where the problem was found} */
    public int offset() {
        return offset;
    }
}
