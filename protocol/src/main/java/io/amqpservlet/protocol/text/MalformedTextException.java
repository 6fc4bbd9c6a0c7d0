package io.amqpservlet.protocol.text;

/**
 * Text that cannot be decoded: an invalid or truncated UTF-8 sequence, or a percent escape that is not
 * {@code %} followed by two hex digits. The message says what and where; {@link #offset()} is the index of the
 * offending byte or character, counted from the start of the input the decoder was given.
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
