package io.amqpservlet.protocol.codec;

/** A well-formed value whose type cannot be coerced to the one asked for (a string where an int belongs). */
public final class UnexpectedTypeException extends DecodeException {
    /**
     * A value of another type.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where in the decoded buffer the problem was found
     */
    public UnexpectedTypeException(String message, int offset) {
        super(message, offset);
    }
}
