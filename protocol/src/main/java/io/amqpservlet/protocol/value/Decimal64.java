package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code decimal64} (AMQP 1.0 §1.6.14: IEEE 754-2008 decimal64) carried as its bits, not converted (see
 * {@link Decimal32}).
 *
 * @param bits the 64 bits of the IEEE 754 decimal64
 */
public record Decimal64(long bits) {
    @Override
    public String toString() {
        return String.format("decimal64:%016x", bits);
    }
}
