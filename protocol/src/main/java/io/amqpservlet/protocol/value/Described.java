package io.amqpservlet.protocol.value;

/**
 * An AMQP described value (AMQP 1.0 §1.3, §1.5): a descriptor, usually an {@link UnsignedLong} or a
 * {@link io.amqpservlet.protocol.types.Symbol}, and the value it describes, both Java values as {@link ValueDecoder}
 * makes them.
 *
 * @param descriptor the descriptor
 * @param value the described value
 */
public record Described(Object descriptor, Object value) {
}
