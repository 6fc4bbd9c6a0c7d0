package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code uint} (AMQP 1.0 §1.6.5) as a Java value: Java has no unsigned int, and an {@code Integer} would be
 * encoded as the signed {@code int}, a {@code Long} as {@code long}.
 *
 * @param value the number, 0 to 2<sup>32</sup>-1
 */
public record UnsignedInteger(long value) {
    /**
     * Checks the range.
     *
     * @param value the number, 0 to 2<sup>32</sup>-1
     * @throws IllegalArgumentException outside that range
     */
    public UnsignedInteger {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("uint out of range: " + value);
        }
    }

    /**
     * {@return the uint {@code value}}
     *
     * @param value the number, 0 to 2<sup>32</sup>-1
     * @throws IllegalArgumentException outside that range
     */
    public static UnsignedInteger of(long value) {
        return new UnsignedInteger(value);
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
