package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.text.Utf8;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable holder for the bytes of a string, symbol or binary field of a decoded performative or section
 * (container-id, link name, address, delivery-tag). Decoding copies bytes into the holder's own array, which
 * grows only when a longer value arrives, so steady-state decoding allocates nothing; a String is made only when
 * {@link #toString()} is first called after a change, and then kept until the next change.
 *
 * <p>A holder is either null ({@link #isNull()}) or holds bytes, possibly zero of them. What kind of value it
 * came from is not kept: the field's type in the spec says how to write it back ({@link #writeString},
 * {@link #writeSymbol}, {@link #writeBinary}).
 */
public final class MutableBytes {
    private static final byte[] NONE = new byte[0];

    private byte[] bytes = NONE;
    private int length;
    private boolean isNull = true;
    private String text;

    /** Creates an empty {@code MutableBytes}. */
    public MutableBytes() {
    }

    /** {@return whether the field is absent (null)} */
    public boolean isNull() {
        return isNull;
    }

    /** {@return the number of bytes held (0 when null)} */
    public int length() {
        return length;
    }

    /**
     * The holder's array; bytes {@code [0, length())} are the value. Do not keep it across changes.
     *
     * @return the array holding the value
     */
    public byte[] array() {
        return bytes;
    }

    /**
     * Makes the field null.
     *
     * @return this, for chaining
     */
    public MutableBytes clear() {
        isNull = true;
        length = 0;
        if (text != null) {
            text = null; // cleared once per frame or message: no reference store (GC barrier) when already null
        }
        return this;
    }

    /**
     * Sets the value to a copy of {@code src[offset, offset + length)}.
     *
     * @param src holds the bytes to copy
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @return this, for chaining
     */
    public MutableBytes set(byte[] src, int offset, int length) {
        if (bytes.length < length) {
            bytes = new byte[Math.max(length, Math.min(Integer.MAX_VALUE - 16, bytes.length * 2))];
        }
        System.arraycopy(src, offset, bytes, 0, length);
        this.length = length;
        this.isNull = false;
        this.text = null;
        return this;
    }

    /**
     * Sets the value to the UTF-8 bytes of {@code value} (or null); the String is kept for {@link #toString()}.
     *
     * @param value the text to copy
     * @return this, for chaining
     */
    public MutableBytes set(String value) {
        if (value == null) {
            return clear();
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        set(utf8, 0, utf8.length);
        text = value;
        return this;
    }

    /**
     * Sets the value to a symbol's bytes.
     *
     * @param value the text to copy
     * @return this, for chaining
     */
    public MutableBytes set(Symbol value) {
        if (value == null) {
            return clear();
        }
        set(value.bytes(), 0, value.bytes().length);
        text = value.toString();
        return this;
    }

    /**
     * Sets the value from another holder.
     *
     * @param other the value to copy
     * @return this, for chaining
     */
    public MutableBytes set(MutableBytes other) {
        if (other.isNull) {
            return clear();
        }
        set(other.bytes, 0, other.length);
        text = other.text;
        return this;
    }

    /**
     * Sets the value from the reader's current value: null, or the content of a binary, string or symbol.
     * Strings are checked to be UTF-8 and symbols ASCII, so that a decoded holder is always valid text when it
     * came from text.
     *
     * @param reader the reader to decode from
     * @return this, for chaining
     */
    public MutableBytes read(AmqpReader reader) {
        if (reader.isNull()) {
            return clear();
        }
        int code = reader.formatCode();
        if (code == FormatCode.STR8 || code == FormatCode.STR32 || code == FormatCode.SYM8 || code == FormatCode.SYM32) {
            reader.validateText();
        } else if (code != FormatCode.VBIN8 && code != FormatCode.VBIN32) {
            reader.getBytes(); // throws the reader's UnexpectedTypeException, naming the type and offset
        }
        return set(reader.buffer(), reader.valueOffset(), reader.valueLength());
    }

    /**
     * Writes the value as a string, or null.
     *
     * @param writer the writer to encode into
     */
    public void writeString(AmqpWriter writer) {
        if (isNull) {
            writer.writeNull();
        } else {
            writer.writeStringUtf8(bytes, 0, length);
        }
    }

    /**
     * Writes the value as a symbol, or null.
     *
     * @param writer the writer to encode into
     */
    public void writeSymbol(AmqpWriter writer) {
        if (isNull) {
            writer.writeNull();
        } else {
            writer.writeSymbolAscii(bytes, 0, length);
        }
    }

    /**
     * Writes the value as a binary, or null.
     *
     * @param writer the writer to encode into
     */
    public void writeBinary(AmqpWriter writer) {
        if (isNull) {
            writer.writeNull();
        } else {
            writer.writeBinary(bytes, 0, length);
        }
    }

    /**
     * {@return whether the value is exactly the bytes of {@code symbol}}
     *
     * @param symbol the symbol to compare with
     */
    public boolean contentEquals(Symbol symbol) {
        return !isNull && symbol.matches(bytes, 0, length);
    }

    /**
     * {@return whether the value is exactly the UTF-8 bytes of {@code value} (null matches a null field); allocates nothing for ASCII}
     *
     * @param value the text to compare with
     */
    public boolean contentEquals(String value) {
        if (value == null || isNull) {
            return value == null && isNull;
        }
        if (text != null) {
            return text.equals(value);
        }
        int n = value.length();
        int i = 0;
        while (i < n && i < length) {
            char c = value.charAt(i);
            if (c >= 0x80) {
                // Non-ASCII (rare): only bytes of the right UTF-8 length can match; then compare decoded.
                return Utf8.encodedLength(value) == length && toString().equals(value);
            }
            if (bytes[i] != (byte) c) {
                return false;
            }
            i++;
        }
        if (i == n) {
            return n == length; // all ASCII: a match only if no bytes are left over
        }
        // The bytes ended first: only more bytes per char (non-ASCII in the rest of value) could match, never does.
        return false;
    }

    /**
     * {@return whether two holders hold the same bytes (both null counts as equal)}
     *
     * @param other the value to compare with
     */
    public boolean contentEquals(MutableBytes other) {
        return isNull == other.isNull && Arrays.equals(bytes, 0, length, other.bytes, 0, other.length);
    }

    /** {@return a copy of the bytes, or null (allocates)} */
    public byte[] toByteArray() {
        return isNull ? null : Arrays.copyOf(bytes, length);
    }

    /**
     * The value decoded as UTF-8 (symbols are ASCII, a subset), or {@code null} for a null field. Made once per
     * change of value. Binary content that is not UTF-8 is shown with replacement characters.
     */
    @Override
    public String toString() {
        if (isNull) {
            return null;
        }
        String t = text;
        if (t == null) {
            t = Utf8.firstInvalid(bytes, 0, length) < 0
                    ? Utf8.decode(bytes, 0, length)
                    : new String(bytes, 0, length, StandardCharsets.UTF_8);
            text = t;
        }
        return t;
    }
}
