package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.text.StringCache;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.Symbol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.UUID;

/**
 * The encoded value an {@link AmqpReader} is positioned on, and the coercing getters that pull it out of the
 * bytes: {@link #getLong()} accepts every integral encoding, {@link #getString()} decodes (strictly) only when
 * asked, {@link #valueOffset()} and {@link #valueLength()} expose the raw content. Getters are valid until the
 * reader moves ({@code next}, {@code enter}, {@code exit}). Nothing here allocates except the getters that return
 * new objects by nature ({@link #getString()}, {@link #getBytes()}, {@link #getUuid()}).
 *
 * <p>The reader's navigation lives in {@link AmqpReader}; this class holds what describes one value.
 */
public abstract class AmqpCursor {
    static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    byte[] buf;
    // The current value, set by the reader's next().
    int code = -1;
    int start;
    int valueOffset;
    int valueEnd;
    int count;
    int elementCode;
    int elementDescriptor = -1;

    AmqpCursor() {
    }

    /** The current value's format code (see {@link FormatCode}). */
    public int formatCode() {
        return code;
    }

    /** The current value's type, {@link AmqpType#DESCRIBED} for a described value. */
    public AmqpType type() {
        return code == FormatCode.DESCRIBED ? AmqpType.DESCRIBED : code < 0 ? null : FormatCode.type(code);
    }

    /** Whether the current value is null. */
    public boolean isNull() {
        return code == FormatCode.NULL;
    }

    /** Offset of the current value's first byte: its constructor (for an array element, its payload). */
    public int valueStart() {
        return start;
    }

    /** Offset just after the current value. */
    public int valueEnd() {
        return valueEnd;
    }

    /**
     * Offset of the current value's content: the bytes of a binary, string or symbol; the first element of a
     * list, map or array; the described value's constructor for a described value.
     */
    public int valueOffset() {
        return valueOffset;
    }

    /** Length of the current value's content (the bytes of a binary, string or symbol). */
    public int valueLength() {
        return valueEnd - valueOffset;
    }

    /** Element count of the current list, map (keys plus values) or array; 2 for a described value. */
    public int count() {
        return count;
    }

    /** The element format code of the current array. */
    public int arrayElementCode() {
        requireArray();
        return elementCode;
    }

    /** Whether the current array's elements are described (one descriptor for all of them). */
    public boolean isDescribedArray() {
        requireArray();
        return elementDescriptor >= 0;
    }

    /** Offset of the current array's element descriptor (a complete encoded value), or -1. */
    public int arrayDescriptorOffset() {
        requireArray();
        return elementDescriptor;
    }


    private void requireArray() {
        if (code != FormatCode.ARRAY8 && code != FormatCode.ARRAY32) {
            throw new IllegalStateException("current value is " + FormatCode.name(code) + ", not an array");
        }
    }

    /**
     * The descriptor of the current described value as a number (AMQP 1.0 §1.5 descriptor codes such as
     * 0x10 for open), or -1 when it is not described by an integral value.
     */
    public long descriptorCode() {
        if (code != FormatCode.DESCRIBED) {
            throw new IllegalStateException("current value is " + FormatCode.name(code) + ", not described");
        }
        return integralAt(start + 1);
    }

    /** Whether the current described value's descriptor is the symbol {@code name}. */
    public boolean descriptorIs(Symbol name) {
        if (code != FormatCode.DESCRIBED) {
            return false;
        }
        return symbolAt(start + 1, name);
    }

    /** Whether the value whose constructor is at {@code p} (already measured) is the symbol {@code name}. */
    final boolean symbolAt(int p, Symbol name) {
        int c = buf[p] & 0xFF;
        if (c == FormatCode.SYM8) {
            return name.matches(buf, p + 2, buf[p + 1] & 0xFF);
        }
        if (c == FormatCode.SYM32) {
            return name.matches(buf, p + 5, (int) INT.get(buf, p + 1));
        }
        return false;
    }

    /** The value of the integral encoding whose constructor is at {@code p}, or -1 for any other type. */
    final long integralAt(int p) {
        int c = buf[p] & 0xFF;
        int v = p + 1;
        switch (c) {
            case FormatCode.SMALLULONG:
            case FormatCode.SMALLUINT:
            case FormatCode.UBYTE:
                return buf[v] & 0xFF;
            case FormatCode.ULONG:
            case FormatCode.LONG:
                return (long) LONG.get(buf, v);
            case FormatCode.ULONG0:
            case FormatCode.UINT0:
                return 0;
            case FormatCode.UINT:
                return (int) INT.get(buf, v) & 0xFFFFFFFFL;
            case FormatCode.USHORT:
                return (short) SHORT.get(buf, v) & 0xFFFF;
            case FormatCode.SMALLINT:
            case FormatCode.SMALLLONG:
            case FormatCode.BYTE:
                return buf[v];
            case FormatCode.INT:
                return (int) INT.get(buf, v);
            case FormatCode.SHORT:
                return (short) SHORT.get(buf, v);
            default:
                return -1;
        }
    }

    /** The current boolean. */
    public boolean getBoolean() {
        switch (code) {
            case FormatCode.BOOLEAN_TRUE:
                return true;
            case FormatCode.BOOLEAN_FALSE:
                return false;
            case FormatCode.BOOLEAN: {
                byte b = buf[valueOffset];
                if (b == 0) {
                    return false;
                }
                if (b == 1) {
                    return true;
                }
                throw new InvalidEncodingException("boolean byte 0x" + Integer.toHexString(b & 0xFF) + " is neither 0 nor 1", valueOffset);
            }
            default:
                throw unexpected("boolean");
        }
    }

    /** The current boolean, or {@code dflt} if the value is null. */
    public boolean getBoolean(boolean dflt) {
        return code == FormatCode.NULL ? dflt : getBoolean();
    }

    /**
     * The current integral value of any AMQP integer type and width, widened to long. A ulong above
     * {@link Long#MAX_VALUE} comes back as its 64 bits (negative): treat it as unsigned.
     */
    public long getLong() {
        int v = valueOffset;
        switch (code) {
            case FormatCode.SMALLUINT:
            case FormatCode.SMALLULONG:
            case FormatCode.UBYTE:
                return buf[v] & 0xFF;
            case FormatCode.UINT0:
            case FormatCode.ULONG0:
                return 0;
            case FormatCode.UINT:
                return (int) INT.get(buf, v) & 0xFFFFFFFFL;
            case FormatCode.ULONG:
            case FormatCode.LONG:
                return (long) LONG.get(buf, v);
            case FormatCode.USHORT:
                return (short) SHORT.get(buf, v) & 0xFFFF;
            case FormatCode.SMALLINT:
            case FormatCode.SMALLLONG:
            case FormatCode.BYTE:
                return buf[v];
            case FormatCode.SHORT:
                return (short) SHORT.get(buf, v);
            case FormatCode.INT:
                return (int) INT.get(buf, v);
            default:
                throw unexpected("an integer");
        }
    }

    /** The current integral value, or {@code dflt} if the value is null. */
    public long getLong(long dflt) {
        return code == FormatCode.NULL ? dflt : getLong();
    }

    /**
     * The current integral value as an int. Accepts every integer type; a uint comes back as its 32 bits (an
     * unsigned value in an int, as AMQP's sequence numbers and handles are used). Values outside both the int and
     * uint ranges are an {@link UnexpectedTypeException}.
     */
    public int getInt() {
        int v = valueOffset;
        switch (code) {
            case FormatCode.SMALLUINT:
            case FormatCode.SMALLULONG:
            case FormatCode.UBYTE:
                return buf[v] & 0xFF;
            case FormatCode.UINT0:
            case FormatCode.ULONG0:
                return 0;
            case FormatCode.UINT:
            case FormatCode.INT:
                return (int) INT.get(buf, v);
            case FormatCode.SMALLINT:
            case FormatCode.SMALLLONG:
            case FormatCode.BYTE:
                return buf[v];
            case FormatCode.USHORT:
                return (short) SHORT.get(buf, v) & 0xFFFF;
            case FormatCode.SHORT:
                return (short) SHORT.get(buf, v);
            case FormatCode.ULONG:
            case FormatCode.LONG: {
                long l = (long) LONG.get(buf, v);
                boolean fits = code == FormatCode.ULONG
                        ? l >= 0 && l <= 0xFFFFFFFFL
                        : l >= Integer.MIN_VALUE && l <= 0xFFFFFFFFL;
                if (!fits) {
                    throw new UnexpectedTypeException(FormatCode.name(code) + " " + (code == FormatCode.ULONG
                            ? Long.toUnsignedString(l) : Long.toString(l)) + " does not fit in 32 bits", start);
                }
                return (int) l;
            }
            default:
                throw unexpected("an integer");
        }
    }

    /** The current integral value as an int, or {@code dflt} if the value is null. */
    public int getInt(int dflt) {
        return code == FormatCode.NULL ? dflt : getInt();
    }

    /** The current value as an unsigned 32-bit number in a long (uint fields such as handle, delivery-id). */
    public long getUnsignedInt() {
        return getInt() & 0xFFFFFFFFL;
    }

    /** The current float or double (a double is narrowed); integers are converted. */
    public float getFloat() {
        if (code == FormatCode.FLOAT) {
            return Float.intBitsToFloat((int) INT.get(buf, valueOffset));
        }
        return (float) getDouble();
    }

    /** The current double or float; integers are converted. */
    public double getDouble() {
        switch (code) {
            case FormatCode.DOUBLE:
                return Double.longBitsToDouble((long) LONG.get(buf, valueOffset));
            case FormatCode.FLOAT:
                return Float.intBitsToFloat((int) INT.get(buf, valueOffset));
            default:
                if (type() != null && type().isIntegral()) {
                    return getLong();
                }
                throw unexpected("a float or double");
        }
    }

    /** The current char as a Unicode code point (AMQP chars are UTF-32, so they reach beyond U+FFFF). */
    public int getChar() {
        if (code != FormatCode.CHAR) {
            throw unexpected("a char");
        }
        int cp = (int) INT.get(buf, valueOffset);
        if (!Character.isValidCodePoint(cp) || (cp >= 0xD800 && cp <= 0xDFFF)) {
            throw new InvalidEncodingException("char 0x" + Integer.toHexString(cp) + " is not a Unicode scalar value", valueOffset);
        }
        return cp;
    }

    /** The current timestamp in milliseconds since the Unix epoch. */
    public long getTimestamp() {
        if (code != FormatCode.TIMESTAMP) {
            throw unexpected("a timestamp");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** The most significant 64 bits of the current uuid. */
    public long getUuidMostSignificantBits() {
        if (code != FormatCode.UUID) {
            throw unexpected("a uuid");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** The least significant 64 bits of the current uuid. */
    public long getUuidLeastSignificantBits() {
        if (code != FormatCode.UUID) {
            throw unexpected("a uuid");
        }
        return (long) LONG.get(buf, valueOffset + 8);
    }

    /** The current uuid as a {@link UUID} (allocates; prefer the two bit getters on hot paths). */
    public UUID getUuid() {
        return new UUID(getUuidMostSignificantBits(), getUuidLeastSignificantBits());
    }

    /** The IEEE 754 decimal32 bits of the current value. */
    public int getDecimal32Bits() {
        if (code != FormatCode.DECIMAL32) {
            throw unexpected("a decimal32");
        }
        return (int) INT.get(buf, valueOffset);
    }

    /** The IEEE 754 decimal64 bits of the current value. */
    public long getDecimal64Bits() {
        if (code != FormatCode.DECIMAL64) {
            throw unexpected("a decimal64");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** The high 64 bits of the current decimal128. */
    public long getDecimal128High() {
        if (code != FormatCode.DECIMAL128) {
            throw unexpected("a decimal128");
        }
        return (long) LONG.get(buf, valueOffset);
    }

    /** The low 64 bits of the current decimal128. */
    public long getDecimal128Low() {
        if (code != FormatCode.DECIMAL128) {
            throw unexpected("a decimal128");
        }
        return (long) LONG.get(buf, valueOffset + 8);
    }

    /** Whether the current value is a string, symbol or binary (its bytes are at {@link #valueOffset()}). */
    public boolean isVariable() {
        byte l = FormatCode.layout(code);
        return l == FormatCode.LAYOUT_VARIABLE8 || l == FormatCode.LAYOUT_VARIABLE32;
    }

    /**
     * The current string or symbol as a String, decoded now (allocates). Strings are checked to be valid UTF-8
     * and symbols to be ASCII.
     */
    public String getString() {
        switch (code) {
            case FormatCode.STR8:
            case FormatCode.STR32:
                try {
                    return Utf8.decode(buf, valueOffset, valueEnd - valueOffset);
                } catch (IllegalArgumentException e) {
                    throw new InvalidEncodingException(FormatCode.name(code) + " is not valid UTF-8: " + e.getMessage(), valueOffset);
                }
            case FormatCode.SYM8:
            case FormatCode.SYM32:
                checkAscii();
                return new String(buf, valueOffset, valueEnd - valueOffset, java.nio.charset.StandardCharsets.ISO_8859_1);
            default:
                throw unexpected("a string or symbol");
        }
    }

    /** The current string or symbol, or {@code null} if the value is null. */
    public String getStringOrNull() {
        return code == FormatCode.NULL ? null : getString();
    }

    /**
     * The current string or symbol as the shared instance from {@code cache} when its bytes are cached (no
     * allocation), else decoded as {@link #getString()} does. A hit needs no UTF-8 check: the cached key is the
     * valid encoding of that String. Symbols are still checked to be ASCII.
     */
    public String getString(StringCache cache) {
        int length = valueEnd - valueOffset;
        switch (code) {
            case FormatCode.STR8:
            case FormatCode.STR32: {
                String cached = cache.lookup(buf, valueOffset, length);
                return cached != null ? cached : getString();
            }
            case FormatCode.SYM8:
            case FormatCode.SYM32: {
                checkAscii();
                String cached = cache.lookup(buf, valueOffset, length);
                return cached != null ? cached
                        : new String(buf, valueOffset, length, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
            default:
                throw unexpected("a string or symbol");
        }
    }

    /** {@link #getString(StringCache)}, or {@code null} if the value is null. */
    public String getStringOrNull(StringCache cache) {
        return code == FormatCode.NULL ? null : getString(cache);
    }

    /** Checks that the current string is valid UTF-8 or the current symbol ASCII, without decoding it. */
    public void validateText() {
        switch (code) {
            case FormatCode.STR8:
            case FormatCode.STR32: {
                int bad = Utf8.firstInvalid(buf, valueOffset, valueEnd - valueOffset);
                if (bad >= 0) {
                    throw new InvalidEncodingException(FormatCode.name(code) + " is not valid UTF-8", bad);
                }
                return;
            }
            case FormatCode.SYM8:
            case FormatCode.SYM32:
                checkAscii();
                return;
            default:
                throw unexpected("a string or symbol");
        }
    }

    private void checkAscii() {
        int bad = Utf8.skipAscii(buf, valueOffset, valueEnd);
        if (bad < valueEnd) {
            throw new InvalidEncodingException("symbol byte 0x" + Integer.toHexString(buf[bad] & 0xFF) + " is not ASCII", bad);
        }
    }

    /** Whether the current symbol, string or binary holds exactly {@code symbol}'s bytes. */
    public boolean contentEquals(Symbol symbol) {
        return isVariable() && symbol.matches(buf, valueOffset, valueEnd - valueOffset);
    }

    /** Whether the current symbol, string or binary holds exactly {@code bytes}. */
    public boolean contentEquals(byte[] bytes) {
        return isVariable() && java.util.Arrays.equals(bytes, 0, bytes.length, buf, valueOffset, valueEnd);
    }

    /** Copies the content bytes of the current binary, string or symbol into {@code dst}; returns their count. */
    public int copyBytes(byte[] dst, int dstOffset) {
        if (!isVariable()) {
            throw unexpected("a binary, string or symbol");
        }
        int n = valueEnd - valueOffset;
        System.arraycopy(buf, valueOffset, dst, dstOffset, n);
        return n;
    }

    /** The content bytes of the current binary, string or symbol as a new array (allocates). */
    public byte[] getBytes() {
        if (!isVariable()) {
            throw unexpected("a binary, string or symbol");
        }
        return java.util.Arrays.copyOfRange(buf, valueOffset, valueEnd);
    }

    private UnexpectedTypeException unexpected(String wanted) {
        return new UnexpectedTypeException("expected " + wanted + " but found " + FormatCode.name(code), start);
    }
}
