package io.amqpservlet.protocol.json;

import io.amqpservlet.protocol.codec.DecodeException;

/**
 * JSON text that {@link JsonToAmqp} cannot turn into an AMQP value: not JSON (RFC 8259), not UTF-8, or a tagged
 * object whose content does not fit its tag ({@code {"$uint": -1}}). The offset is into the JSON bytes.
 */
public final class MalformedJsonException extends DecodeException {
    /**
     * The JSON text is wrong.
     *
     * @param message what is wrong (the offset is appended)
     * @param offset where in the JSON bytes the problem was found
     */
    public MalformedJsonException(String message, int offset) {
        super(message, offset);
    }
}
