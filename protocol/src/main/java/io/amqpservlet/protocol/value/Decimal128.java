package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code decimal128} (AMQP 1.0 §1.6.15: IEEE 754-2008 decimal128) carried as its bits, not converted (see
 * {@link Decimal32}).
 *
 * @param high the high 64 bits, encoded first
 * @param low the low 64 bits
 */
public record Decimal128(long high, long low) {
    @Override
    public String toString() {
        return String.format("decimal128:%016x%016x", high, low);
    }
}
