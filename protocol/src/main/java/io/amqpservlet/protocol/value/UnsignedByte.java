package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code ubyte} (AMQP 1.0 §1.6.3) as a Java value: Java has no unsigned byte, and a {@code Byte} or an
 * {@code Integer} would be encoded as the signed {@code byte} or {@code int}.
 *
 * @param value the number, 0 to 255
 */
public record UnsignedByte(int value) {
    /**
     * Checks the range.
     *
     * @param value the number, 0 to 255
     * @throws IllegalArgumentException outside 0 to 255
     */
    public UnsignedByte {
        if (value < 0 || value > 0xFF) {
            throw new IllegalArgumentException("ubyte out of range: " + value);
        }
    }

    /**
     * {@return the ubyte {@code value}}
     *
     * @param value the number, 0 to 255
     * @throws IllegalArgumentException outside 0 to 255
     */
    public static UnsignedByte of(int value) {
        return new UnsignedByte(value);
    }

    @Override
    public String toString() {
        return Integer.toString(value);
    }
}
