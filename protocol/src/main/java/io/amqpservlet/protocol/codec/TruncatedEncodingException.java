package io.amqpservlet.protocol.codec;

/** The input ends before the value does: more bytes are needed; the bytes seen so far are not wrong. */
public final class TruncatedEncodingException extends DecodeException {
    /**
     * Input that ends too early.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where in the decoded buffer the problem was found
     */
    public TruncatedEncodingException(String message, int offset) {
        super(message, offset);
    }
}
