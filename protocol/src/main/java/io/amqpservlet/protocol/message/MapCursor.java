package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;

import java.util.Arrays;

/**
 * A reusable cursor over the entries of one encoded map section (application-properties, annotations, footer),
 * opened by {@link MessageView}: {@link #next()} moves to the next entry and leaves {@link #value()} positioned
 * on its value, while the key stays available as bytes. Nothing is decoded that the caller does not ask for and
 * nothing is allocated, so mapping application-properties to HTTP headers costs one pass over the bytes.
 *
 * <pre>{@code
 * if (view.openApplicationProperties(cursor)) {
 *     while (cursor.next()) {
 *         if (cursor.isStringKey() && cursor.value().isVariable()) {
 *             headers.add(cursor.keyBytes(), cursor.keyOffset(), cursor.keyLength(), cursor.value());
 *         }
 *     }
 * }
 * }</pre>
 */
public final class MapCursor {
    private final AmqpReader reader;
    private boolean open;
    private int keyCode = -1;
    private int keyStart;
    private int keyOffset;
    private int keyEnd;

    /** A cursor with its own reader and {@link DecoderLimits#DEFAULT}. */
    public MapCursor() {
        this(new AmqpReader());
    }

    /**
     * A cursor that reads with {@code reader} (which it then owns).
     *
     * @param reader the reader this cursor moves over the map
     */
    public MapCursor(AmqpReader reader) {
        this.reader = reader;
    }

    /**
     * Opens the map section at {@code buf[start, end)} (a described value whose value is a map or null).
     * Returns whether it has entries to iterate.
     */
    boolean open(byte[] buf, int start, int end) {
        reader.wrap(buf, start, end - start);
        reader.next();
        reader.enter();
        reader.next(); // descriptor
        reader.next(); // the map, or null (checked when the message was indexed)
        keyCode = -1;
        if (reader.isNull()) {
            open = false;
            return false;
        }
        reader.enter();
        open = true;
        return reader.hasNext();
    }

    /** Makes the cursor empty, as for an absent section. */
    void close() {
        open = false;
        keyCode = -1;
    }

    /**
     * Moves to the next entry; false when there is none (the value reader is then no longer meaningful).
     *
     * @return whether the cursor is on an entry
     */
    public boolean next() {
        if (!open || !reader.hasNext()) {
            open = false;
            keyCode = -1;
            return false;
        }
        keyCode = reader.next();
        keyStart = reader.valueStart();
        keyOffset = reader.isVariable() ? reader.valueOffset() : keyStart;
        keyEnd = reader.valueEnd();
        reader.next();
        return true;
    }

    /** {@return the current key's format code (see {@link FormatCode})} */
    public int keyFormatCode() {
        return keyCode;
    }

    /** {@return whether the current key is a string (application-properties keys, AMQP 1.0 §3.2.5)} */
    public boolean isStringKey() {
        return keyCode == FormatCode.STR8 || keyCode == FormatCode.STR32;
    }

    /** {@return whether the current key is a symbol (annotation and footer keys, AMQP 1.0 §3.2.10)} */
    public boolean isSymbolKey() {
        return keyCode == FormatCode.SYM8 || keyCode == FormatCode.SYM32;
    }

    /**
     * The buffer holding the key; the content is {@code [keyOffset(), keyOffset() + keyLength())}.
     *
     * @return the buffer holding the key
     */
    public byte[] keyBytes() {
        return reader.buffer();
    }

    /** {@return offset of the current key's content (for a string or symbol, its bytes; else its constructor)} */
    public int keyOffset() {
        return keyOffset;
    }

    /** {@return length of the current key's content} */
    public int keyLength() {
        return keyEnd - keyOffset;
    }

    /** {@return offset of the current key's encoding (its constructor), for copying it raw} */
    public int keyEncodedStart() {
        return keyStart;
    }

    /**
     * {@return whether the current key is a string or symbol whose bytes are the UTF-8 encoding of {@code name}}
     *
     * @param name the key to compare with
     */
    public boolean keyEquals(CharSequence name) {
        return (isStringKey() || isSymbolKey())
                && Utf8Comparison.equals(reader.buffer(), keyOffset, keyEnd - keyOffset, name);
    }

    /**
     * {@return whether the current key is a string or symbol with exactly {@code symbol}'s bytes}
     *
     * @param symbol the key to compare with
     */
    public boolean keyEquals(Symbol symbol) {
        return (isStringKey() || isSymbolKey()) && symbol.matches(reader.buffer(), keyOffset, keyEnd - keyOffset);
    }

    /**
     * Whether the current key is a string or symbol holding exactly {@code name[offset, offset + length)}.
     *
     * @param name holds the key's bytes to compare with
     * @param offset where they start in {@code name}
     * @param length their length in bytes
     * @return whether the key matches
     */
    public boolean keyEquals(byte[] name, int offset, int length) {
        return (isStringKey() || isSymbolKey())
                && Arrays.equals(reader.buffer(), keyOffset, keyEnd, name, offset, offset + length);
    }

    /**
     * Copies the current string or symbol key into {@code dst} (validating its text).
     *
     * @param dst where to copy the key
     * @return {@code dst}, holding the key
     */
    public MutableBytes keyInto(MutableBytes dst) {
        if (!isStringKey() && !isSymbolKey()) {
            throw new IllegalStateException("the key is a " + FormatCode.name(keyCode) + ", not text");
        }
        validateKeyText();
        dst.set(reader.buffer(), keyOffset, keyEnd - keyOffset);
        return dst;
    }

    private void validateKeyText() {
        byte[] b = reader.buffer();
        int n = keyEnd - keyOffset;
        if (isStringKey()) {
            int bad = Utf8.firstInvalid(b, keyOffset, n);
            if (bad >= 0) {
                throw new InvalidEncodingException("map key is not valid UTF-8", bad);
            }
        } else if (!Utf8.isAscii(b, keyOffset, n)) {
            throw new InvalidEncodingException("symbol map key is not ASCII", keyOffset);
        }
    }

    /** {@return the current key as a String (allocates)} */
    public String keyString() {
        if (!isStringKey() && !isSymbolKey()) {
            throw new IllegalStateException("the key is a " + FormatCode.name(keyCode) + ", not text");
        }
        validateKeyText();
        return Utf8.decode(reader.buffer(), keyOffset, keyEnd - keyOffset);
    }

    /**
     * {@return the reader positioned on the current entry's value: use its getters, or {@code enter()} a compound value
     * (and {@code exit()} it before the next call to {@link #next()})}
     */
    public AmqpReader value() {
        return reader;
    }
}
