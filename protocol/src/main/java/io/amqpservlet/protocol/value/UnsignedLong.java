package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code ulong} (AMQP 1.0 §1.6.6) as a Java value: Java has no unsigned long, and a {@code Long} would be
 * encoded as the signed {@code long}. The 64 bits are held in a {@code long}: values above {@link Long#MAX_VALUE}
 * are negative there; {@link #toString()} and {@link #of(String)} use the unsigned decimal form.
 *
 * @param bits the number's 64 bits, read as unsigned
 */
public record UnsignedLong(long bits) {
    /**
     * {@return the ulong whose 64 bits are {@code bits} (read as unsigned)}
     *
     * @param bits the number's 64 bits
     */
    public static UnsignedLong of(long bits) {
        return new UnsignedLong(bits);
    }

    /**
     * {@return the ulong written in decimal}
     *
     * @param decimal 0 to 18446744073709551615, in decimal digits
     * @throws NumberFormatException when it is not such a number
     */
    public static UnsignedLong of(String decimal) {
        return new UnsignedLong(Long.parseUnsignedLong(decimal));
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(bits);
    }
}
