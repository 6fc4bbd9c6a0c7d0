package io.amqpservlet.protocol.value;

/**
 * An AMQP {@code char} (AMQP 1.0 §1.6.16: a UTF-32BE code point) as a Java value. A Java {@code char} cannot hold
 * the code points above U+FFFF that AMQP allows; a {@code Character} is also accepted when encoding.
 *
 * @param codePoint a Unicode scalar value (not a surrogate)
 */
public record AmqpChar(int codePoint) {
    /**
     * Checks that the code point is a Unicode scalar value.
     *
     * @param codePoint a Unicode scalar value (not a surrogate)
     * @throws IllegalArgumentException for anything else
     */
    public AmqpChar {
        if (!Character.isValidCodePoint(codePoint) || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
            throw new IllegalArgumentException("not a Unicode scalar value: 0x" + Integer.toHexString(codePoint));
        }
    }

    @Override
    public String toString() {
        return new String(Character.toChars(codePoint));
    }
}
