package io.amqpservlet.protocol.codec;

/** A legal encoding that exceeds a configured {@link DecoderLimits} bound (nesting depth, element count). */
public final class DecodeLimitException extends DecodeException {
    /**
     * A limit exceeded.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where in the decoded buffer the problem was found
     */
    public DecodeLimitException(String message, int offset) {
        super(message, offset);
    }
}
