package io.amqpservlet.protocol.codec;

/**
 * The bytes are not a legal AMQP encoding: an unknown format code, a size or count that contradicts the bytes
 * around it, invalid UTF-8 in a string or a non-ASCII byte in a symbol.
 */
public final class InvalidEncodingException extends DecodeException {
    /**
     * Bytes that are not a legal encoding.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where in the decoded buffer the problem was found
     */
    public InvalidEncodingException(String message, int offset) {
        super(message, offset);
    }
}
