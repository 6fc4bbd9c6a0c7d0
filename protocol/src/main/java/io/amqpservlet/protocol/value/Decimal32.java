package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code decimal32} (AMQP 1.0 §1.6.13: IEEE 754-2008 decimal32) carried as its bits. The codec does not
 * convert IEEE decimals to {@code BigDecimal}: no client this project serves sends them, and a value that is only
 * passed on needs no arithmetic.
 *
 * @param bits the 32 bits of the IEEE 754 decimal32
 */
public record Decimal32(int bits) {
    @Override
    public String toString() {
        return String.format("decimal32:%08x", bits);
    }
}
