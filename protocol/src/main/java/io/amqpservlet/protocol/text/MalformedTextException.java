package io.amqpservlet.protocol.text;

/**
 * Text that cannot be coded: an invalid or truncated UTF-8 sequence, or a lone UTF-16 surrogate, which has no
 * UTF-8 form. The message says what and where; {@link #offset()} is the index of the offending byte or character,
 * counted from the start of the input the coder was given.
 */
public final class MalformedTextException extends IllegalArgumentException {
    /** What is wrong, without the position. */
    private final String reason;
    /** Where the problem was found. */
    private final long offset;

    /**
     * An error described by {@code reason}, found at {@code offset}.
     *
     * @param reason what is wrong, without the position
     * @param offset where the problem was found
     */
    public MalformedTextException(String reason, long offset) {
        super(reason + " at offset " + offset);
        this.reason = reason;
        this.offset = offset;
    }

    /** {@return what is wrong, without the position} */
    public String reason() {
        return reason;
    }

    /** {@return where the problem was found} */
    public long offset() {
        return offset;
    }
}
