package io.amqpservlet.protocol.types;

import java.util.Arrays;

/**
 * Text that holds its encoded bytes beside its String, both made once, so that writing it copies the bytes and
 * comparing it with bytes on the wire allocates nothing. The one implementation behind {@link Symbol} (ASCII) and
 * {@link Utf8String} (UTF-8), which choose the encoding and what text they accept; a value equals only another of
 * its own kind. Public because its subclasses are (the exported API names only types an application can use,
 * docs/design.md §8); sealed, and made only by those two.
 */
public abstract sealed class EncodedText implements CharSequence permits Symbol, Utf8String {
    private final String text;
    private final byte[] encoded;

    /** For the two subclasses: {@code encoded} is {@code text} in their encoding. */
    EncodedText(String text, byte[] encoded) {
        this.text = text;
        this.encoded = encoded;
    }

    /** {@return the encoded bytes (ASCII for a symbol, UTF-8 for a string); do not modify} */
    public final byte[] bytes() {
        return encoded;
    }

    /**
     * Whether {@code buf[offset, offset + length)} holds exactly these encoded bytes.
     *
     * @param buf holds the bytes to compare
     * @param offset where they start in {@code buf}
     * @param length their length in bytes
     * @return whether the bytes match
     */
    public final boolean matches(byte[] buf, int offset, int length) {
        return length == encoded.length && Arrays.equals(encoded, 0, length, buf, offset, offset + length);
    }

    @Override
    public final int length() {
        return text.length();
    }

    @Override
    public final char charAt(int index) {
        return text.charAt(index);
    }

    @Override
    public final CharSequence subSequence(int start, int end) {
        return text.subSequence(start, end);
    }

    @Override
    public final String toString() {
        return text;
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((EncodedText) o).text.equals(text);
    }

    @Override
    public final int hashCode() {
        return text.hashCode(); // String keeps its hash once computed
    }
}
