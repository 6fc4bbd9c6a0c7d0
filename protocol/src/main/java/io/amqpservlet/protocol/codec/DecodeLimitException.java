package io.amqpservlet.protocol.codec;

/** A legal encoding that exceeds a configured {@link DecoderLimits} bound (nesting depth, element count). */
public final class DecodeLimitException extends DecodeException {
    public DecodeLimitException(String message, int offset) {
        super(message, offset);
    }
}
