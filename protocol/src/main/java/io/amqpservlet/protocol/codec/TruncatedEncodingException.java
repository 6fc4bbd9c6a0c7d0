package io.amqpservlet.protocol.codec;

/** The input ends before the value does: more bytes are needed; the bytes seen so far are not wrong. */
public final class TruncatedEncodingException extends DecodeException {
    public TruncatedEncodingException(String message, int offset) {
        super(message, offset);
    }
}
