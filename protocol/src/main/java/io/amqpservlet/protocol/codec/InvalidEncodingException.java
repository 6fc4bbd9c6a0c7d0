package io.amqpservlet.protocol.codec;

/**
 * The bytes are not a legal AMQP encoding: an unknown format code, a size or count that contradicts the bytes
 * around it, invalid UTF-8 in a string or a non-ASCII byte in a symbol.
 */
public final class InvalidEncodingException extends DecodeException {
    public InvalidEncodingException(String message, int offset) {
        super(message, offset);
    }
}
