package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code ushort} (AMQP 1.0 §1.6.4) as a Java value: Java has no unsigned short, and a {@code Short} or an
 * {@code Integer} would be encoded as the signed {@code short} or {@code int}.
 *
 * @param value the number, 0 to 65535
 */
public record UnsignedShort(int value) {
    /**
     * Checks the range.
     *
     * @param value the number, 0 to 65535
     * @throws IllegalArgumentException outside 0 to 65535
     */
    public UnsignedShort {
        if (value < 0 || value > 0xFFFF) {
            throw new IllegalArgumentException("ushort out of range: " + value);
        }
    }

    /**
     * {@return the ushort {@code value}}
     *
     * @param value the number, 0 to 65535
     * @throws IllegalArgumentException outside 0 to 65535
     */
    public static UnsignedShort of(int value) {
        return new UnsignedShort(value);
    }

    @Override
    public String toString() {
        return Integer.toString(value);
    }
}
