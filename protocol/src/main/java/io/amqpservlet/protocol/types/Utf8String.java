package io.amqpservlet.protocol.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable string that carries its UTF-8 encoding, computed once: {@code AmqpWriter.writeString} (and so
 * every {@code MessageWriter} call that takes a {@link CharSequence}) copies these bytes instead of encoding the
 * characters again. Meant for constants written on every message, such as application-property keys that are
 * HTTP header names. Create them once; never per message.
 */
public final class Utf8String implements CharSequence {
    private final String text;
    private final byte[] utf8;

    private Utf8String(String text) {
        this.text = text;
        // Unpaired surrogates become '?', as AmqpWriter.writeString encodes them.
        this.utf8 = text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@return the pre-encoded form of {@code text}}
     *
     * @param text the text
     */
    public static Utf8String of(String text) {
        if (text == null) {
            throw new NullPointerException("text");
        }
        return new Utf8String(text);
    }

    /** {@return the UTF-8 bytes; do not modify} */
    public byte[] bytes() {
        return utf8;
    }

    /**
     * Whether {@code buf[offset, offset + length)} holds exactly this string's UTF-8 bytes.
     *
     * @param buf holds the bytes to compare
     * @param offset where they start in {@code buf}
     * @param length their length in bytes
     * @return whether the bytes match
     */
    public boolean matches(byte[] buf, int offset, int length) {
        return length == utf8.length && Arrays.equals(utf8, 0, length, buf, offset, offset + length);
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
        return o instanceof Utf8String && ((Utf8String) o).text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
