package io.amqpservlet.protocol.codec;

/** A well-formed value whose type cannot be coerced to the one asked for (a string where an int belongs). */
public final class UnexpectedTypeException extends DecodeException {
    public UnexpectedTypeException(String message, int offset) {
        super(message, offset);
    }
}
