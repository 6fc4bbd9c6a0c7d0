package io.amqpservlet.protocol.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable AMQP symbol (AMQP 1.0 §1.6.21: ASCII text used as a name), holding both its String and its
 * encoded bytes so that comparing it with bytes on the wire allocates nothing. Create symbols once, as
 * constants; never per message.
 */
public final class Symbol implements CharSequence, Comparable<Symbol> {
    private final String text;
    private final byte[] ascii;
    private final int hash;

    private Symbol(String text) {
        this.text = text;
        this.ascii = text.getBytes(StandardCharsets.US_ASCII);
        this.hash = text.hashCode();
    }

    /**
     * {@return the symbol for {@code text}}
     *
     * @param text the text
     * @throws IllegalArgumentException if {@code text} is not ASCII
     */
    public static Symbol of(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                throw new IllegalArgumentException("symbol is not ASCII at index " + i + ": " + text);
            }
        }
        return new Symbol(text);
    }

    /** {@return the encoded bytes; do not modify} */
    public byte[] bytes() {
        return ascii;
    }

    /**
     * Whether {@code buf[offset, offset + length)} holds exactly this symbol's bytes.
     *
     * @param buf holds the bytes to compare
     * @param offset where they start in {@code buf}
     * @param length their length in bytes
     * @return whether the bytes match
     */
    public boolean matches(byte[] buf, int offset, int length) {
        return length == ascii.length && Arrays.equals(ascii, 0, length, buf, offset, offset + length);
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public char charAt(int index) {
        return text.charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return text.subSequence(start, end);
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Symbol && ((Symbol) o).text.equals(text);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(Symbol o) {
        return text.compareTo(o.text);
    }
}
