package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;

import java.util.Arrays;

/**
 * A reusable holder for a {@code multiple="true"} symbol field (AMQP 1.0 §1.3: a single value or an array), such
 * as offered-capabilities or sasl-server-mechanisms. Decoding accepts either form and copies the symbols' bytes
 * into one array that grows only when needed; {@link #contains(Symbol)} compares bytes without allocating.
 * Encoding writes null when empty, otherwise an array of sym8 (sym32 when a symbol is longer than 255 bytes).
 */
public final class SymbolArray {
    // Shared empty arrays until the first symbol: most fields of a connection's performatives stay null.
    private static final byte[] NO_BYTES = {};
    private static final int[] NO_ENDS = {};
    private byte[] bytes = NO_BYTES;
    private int[] ends = NO_ENDS;
    private int size;
    private boolean isNull = true;

    /** Creates an empty {@code SymbolArray}. */
    public SymbolArray() {
    }

    /** {@return whether the field is absent} An empty array that was sent on the wire is not null. */
    public boolean isNull() {
        return isNull;
    }

    /** {@return the number of symbols} */
    public int size() {
        return size;
    }

    /**
     * Makes the field null.
     *
     * @return this, for chaining
     */
    public SymbolArray clear() {
        size = 0;
        isNull = true;
        return this;
    }

    /**
     * Appends a symbol; the field is no longer null.
     *
     * @param symbol the symbol to add
     * @return this, for chaining
     */
    public SymbolArray add(Symbol symbol) {
        byte[] b = symbol.bytes();
        return add(b, 0, b.length);
    }

    private SymbolArray add(byte[] src, int offset, int length) {
        int start = size == 0 ? 0 : ends[size - 1];
        if (bytes.length < start + length) {
            bytes = Arrays.copyOf(bytes, Math.max(start + length, bytes.length * 2));
        }
        if (ends.length == size) {
            ends = Arrays.copyOf(ends, Math.max(4, size * 2));
        }
        System.arraycopy(src, offset, bytes, start, length);
        ends[size++] = start + length;
        isNull = false;
        return this;
    }

    /**
     * Replaces the content with {@code symbols} (none: an empty, non-null array).
     *
     * @param symbols the symbols to hold
     * @return this, for chaining
     */
    public SymbolArray set(Symbol... symbols) {
        clear();
        isNull = false;
        for (Symbol s : symbols) {
            add(s);
        }
        return this;
    }

    /**
     * Replaces the content with the other holder's.
     *
     * @param other the value to copy
     * @return this, for chaining
     */
    public SymbolArray set(SymbolArray other) {
        clear();
        if (!other.isNull) {
            isNull = false;
            for (int i = 0; i < other.size; i++) {
                int start = i == 0 ? 0 : other.ends[i - 1];
                add(other.bytes, start, other.ends[i] - start);
            }
        }
        return this;
    }

    /**
     * {@return whether {@code symbol} is one of the symbols}
     *
     * @param symbol the symbol to look for
     */
    public boolean contains(Symbol symbol) {
        int start = 0;
        for (int i = 0; i < size; i++) {
            int end = ends[i];
            if (symbol.matches(bytes, start, end - start)) {
                return true;
            }
            start = end;
        }
        return false;
    }

    /**
     * {@return symbol {@code index} as a String (allocates)}
     *
     * @param index which symbol, from 0
     */
    public String get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index + " of " + size);
        }
        int start = index == 0 ? 0 : ends[index - 1];
        return new String(bytes, start, ends[index] - start, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * Reads the reader's current value: null, one symbol, or an array of symbols. Each symbol is checked to be
     * ASCII.
     *
     * @param reader the reader to decode from
     * @return this, for chaining
     */
    public SymbolArray read(AmqpReader reader) {
        clear();
        int code = reader.formatCode();
        if (code == FormatCode.NULL) {
            return this;
        }
        isNull = false;
        if (code == FormatCode.SYM8 || code == FormatCode.SYM32) {
            reader.validateText();
            add(reader.buffer(), reader.valueOffset(), reader.valueLength());
            return this;
        }
        if (code != FormatCode.ARRAY8 && code != FormatCode.ARRAY32) {
            throw new UnexpectedTypeException("expected a symbol or an array of symbols but found "
                    + FormatCode.name(code), reader.valueStart());
        }
        int ec = reader.arrayElementCode();
        if (ec != FormatCode.SYM8 && ec != FormatCode.SYM32) {
            throw new UnexpectedTypeException("expected an array of symbols but found an array of "
                    + FormatCode.name(ec), reader.valueStart());
        }
        reader.enter();
        while (reader.hasNext()) {
            reader.next();
            reader.validateText();
            add(reader.buffer(), reader.valueOffset(), reader.valueLength());
        }
        reader.exit();
        return this;
    }

    /**
     * Writes null, or an array of symbols.
     *
     * @param writer the writer to encode into
     */
    public void write(AmqpWriter writer) {
        if (isNull) {
            writer.writeNull();
            return;
        }
        boolean wide = false;
        int start = 0;
        for (int i = 0; i < size; i++) {
            wide |= ends[i] - start > 255;
            start = ends[i];
        }
        writer.startArray(wide ? FormatCode.SYM32 : FormatCode.SYM8);
        start = 0;
        for (int i = 0; i < size; i++) {
            writer.writeSymbolAscii(bytes, start, ends[i] - start);
            start = ends[i];
        }
        writer.endArray();
    }

    @Override
    public String toString() {
        if (isNull) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(get(i));
        }
        return sb.append(']').toString();
    }
}
