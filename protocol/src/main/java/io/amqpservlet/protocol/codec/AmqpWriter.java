package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.Utf8String;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.UUID;

/**
 * An AMQP 1.0 encoder that writes straight into a byte array: its own growable one, or a caller's fixed one
 * ({@link #wrap(byte[], int, int)}). Scalars take the smallest legal encoding (smallint, uint0, str8, ...).
 * Lists, maps and arrays are written in one pass: {@code start} reserves the short (8-bit) size and count fields,
 * elements are counted as they are written, and {@code end} backfills the fields, widening to the 32-bit form
 * in place only when the content needs it. Sizes are never computed ahead.
 *
 * <p>Nothing is allocated in steady state: the nesting stack grows only the first time a deeper structure is
 * written, and the own buffer only the first time a larger value is.
 *
 * <pre>{@code
 * writer.startList();
 * for (int i = 0; i < 10; i++) {
 *     writer.writeInt(i * 1000);
 * }
 * writer.writeUuid(msb, lsb);
 * writer.endList();              // list8, size and count backfilled
 * }</pre>
 *
 * <p>Array elements take no constructor of their own: open an array with the element format code
 * ({@link #startArray(int)}) and write its elements with the ordinary methods; each must fit that code. A writer
 * is not thread-safe.
 */
public final class AmqpWriter extends BackfillingWriter {
    /** A writer with its own buffer of 256 bytes, grown as needed. */
    public AmqpWriter() {
        super(256);
    }

    /** A writer with its own buffer of {@code initialCapacity} bytes, grown as needed. */
    public AmqpWriter(int initialCapacity) {
        super(initialCapacity);
    }

    // Covariant returns, so that chained calls keep the typed writer.

    @Override
    public AmqpWriter clear() {
        super.clear();
        return this;
    }

    @Override
    public AmqpWriter wrap(byte[] target, int offset, int length) {
        super.wrap(target, offset, length);
        return this;
    }

    @Override
    public AmqpWriter wrap(java.nio.ByteBuffer target) {
        super.wrap(target);
        return this;
    }

    @Override
    public AmqpWriter unwrap() {
        super.unwrap();
        return this;
    }

    // ------------------------------------------------------------------------------------------ scalars

    /** Writes null. */
    public void writeNull() {
        int ec = element();
        if (ec != 0) {
            if (ec != FormatCode.NULL) {
                throw notElement("null", ec);
            }
            return;
        }
        ensure(1);
        buf[pos++] = (byte) FormatCode.NULL;
    }

    /** Writes a boolean as true/false (one byte); in an array of {@code boolean}, as a 0/1 byte. */
    public void writeBoolean(boolean value) {
        int ec = element();
        ensure(1);
        if (ec == 0) {
            buf[pos++] = (byte) (value ? FormatCode.BOOLEAN_TRUE : FormatCode.BOOLEAN_FALSE);
        } else if (ec == FormatCode.BOOLEAN) {
            buf[pos++] = (byte) (value ? 1 : 0);
        } else if (ec != (value ? FormatCode.BOOLEAN_TRUE : FormatCode.BOOLEAN_FALSE)) {
            throw notElement("boolean " + value, ec);
        }
    }

    /** Writes a ubyte from the low 8 bits of {@code value}. */
    public void writeUByte(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(2);
            buf[pos] = (byte) FormatCode.UBYTE;
            buf[pos + 1] = (byte) value;
            pos += 2;
        } else if (ec == FormatCode.UBYTE) {
            ensure(1);
            buf[pos++] = (byte) value;
        } else {
            throw notElement("ubyte", ec);
        }
    }

    /** Writes a ushort from the low 16 bits of {@code value}. */
    public void writeUShort(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(3);
            buf[pos] = (byte) FormatCode.USHORT;
            SHORT.set(buf, pos + 1, (short) value);
            pos += 3;
        } else if (ec == FormatCode.USHORT) {
            ensure(2);
            SHORT.set(buf, pos, (short) value);
            pos += 2;
        } else {
            throw notElement("ushort", ec);
        }
    }

    /** Writes a uint from the 32 bits of {@code value} (read as unsigned): uint0, smalluint or uint. */
    public void writeUInt(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(5);
            if (value == 0) {
                buf[pos++] = (byte) FormatCode.UINT0;
            } else if ((value & 0xFFFFFF00) == 0) {
                buf[pos] = (byte) FormatCode.SMALLUINT;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.UINT;
                INT.set(buf, pos + 1, value);
                pos += 5;
            }
        } else {
            arrayUInt(ec, value);
        }
    }

    private void arrayUInt(int ec, int value) {
        switch (ec) {
            case FormatCode.UINT:
                ensure(4);
                INT.set(buf, pos, value);
                pos += 4;
                return;
            case FormatCode.SMALLUINT:
                if ((value & 0xFFFFFF00) != 0) {
                    throw notElement("uint " + Integer.toUnsignedString(value), ec);
                }
                ensure(1);
                buf[pos++] = (byte) value;
                return;
            case FormatCode.UINT0:
                if (value != 0) {
                    throw notElement("uint " + Integer.toUnsignedString(value), ec);
                }
                return;
            default:
                throw notElement("uint", ec);
        }
    }

    /** Writes a uint; {@code value} must be in [0, 2^32). */
    public void writeUInt(long value) {
        if ((value & 0xFFFFFFFF00000000L) != 0) {
            throw new IllegalArgumentException("uint out of range: " + value);
        }
        writeUInt((int) value);
    }

    /** Writes a ulong from the 64 bits of {@code value} (read as unsigned): ulong0, smallulong or ulong. */
    public void writeULong(long value) {
        int ec = element();
        if (ec == 0) {
            ensure(9);
            if (value == 0) {
                buf[pos++] = (byte) FormatCode.ULONG0;
            } else if ((value & 0xFFFFFFFFFFFFFF00L) == 0) {
                buf[pos] = (byte) FormatCode.SMALLULONG;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.ULONG;
                LONG.set(buf, pos + 1, value);
                pos += 9;
            }
            return;
        }
        switch (ec) {
            case FormatCode.ULONG:
                ensure(8);
                LONG.set(buf, pos, value);
                pos += 8;
                return;
            case FormatCode.SMALLULONG:
                if ((value & 0xFFFFFFFFFFFFFF00L) != 0) {
                    throw notElement("ulong " + Long.toUnsignedString(value), ec);
                }
                ensure(1);
                buf[pos++] = (byte) value;
                return;
            case FormatCode.ULONG0:
                if (value != 0) {
                    throw notElement("ulong " + Long.toUnsignedString(value), ec);
                }
                return;
            default:
                throw notElement("ulong", ec);
        }
    }

    /** Writes a byte. */
    public void writeByte(byte value) {
        int ec = element();
        if (ec == 0) {
            ensure(2);
            buf[pos] = (byte) FormatCode.BYTE;
            buf[pos + 1] = value;
            pos += 2;
        } else if (ec == FormatCode.BYTE) {
            ensure(1);
            buf[pos++] = value;
        } else {
            throw notElement("byte", ec);
        }
    }

    /** Writes a short. */
    public void writeShort(short value) {
        int ec = element();
        if (ec == 0) {
            ensure(3);
            buf[pos] = (byte) FormatCode.SHORT;
            SHORT.set(buf, pos + 1, value);
            pos += 3;
        } else if (ec == FormatCode.SHORT) {
            ensure(2);
            SHORT.set(buf, pos, value);
            pos += 2;
        } else {
            throw notElement("short", ec);
        }
    }

    /** Writes an int: smallint when it fits in a byte, else int. */
    public void writeInt(int value) {
        int ec = element();
        if (ec == 0) {
            ensure(5);
            if (value == (byte) value) {
                buf[pos] = (byte) FormatCode.SMALLINT;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.INT;
                INT.set(buf, pos + 1, value);
                pos += 5;
            }
        } else if (ec == FormatCode.INT) {
            ensure(4);
            INT.set(buf, pos, value);
            pos += 4;
        } else if (ec == FormatCode.SMALLINT && value == (byte) value) {
            ensure(1);
            buf[pos++] = (byte) value;
        } else {
            throw notElement("int " + value, ec);
        }
    }

    /** Writes a long: smalllong when it fits in a byte, else long. */
    public void writeLong(long value) {
        int ec = element();
        if (ec == 0) {
            ensure(9);
            if (value == (byte) value) {
                buf[pos] = (byte) FormatCode.SMALLLONG;
                buf[pos + 1] = (byte) value;
                pos += 2;
            } else {
                buf[pos] = (byte) FormatCode.LONG;
                LONG.set(buf, pos + 1, value);
                pos += 9;
            }
        } else if (ec == FormatCode.LONG) {
            ensure(8);
            LONG.set(buf, pos, value);
            pos += 8;
        } else if (ec == FormatCode.SMALLLONG && value == (byte) value) {
            ensure(1);
            buf[pos++] = (byte) value;
        } else {
            throw notElement("long " + value, ec);
        }
    }

    private void fixed32(int code, int bits, String what) {
        int ec = element();
        if (ec == 0) {
            ensure(5);
            buf[pos] = (byte) code;
            INT.set(buf, pos + 1, bits);
            pos += 5;
        } else if (ec == code) {
            ensure(4);
            INT.set(buf, pos, bits);
            pos += 4;
        } else {
            throw notElement(what, ec);
        }
    }

    private void fixed64(int code, long bits, String what) {
        int ec = element();
        if (ec == 0) {
            ensure(9);
            buf[pos] = (byte) code;
            LONG.set(buf, pos + 1, bits);
            pos += 9;
        } else if (ec == code) {
            ensure(8);
            LONG.set(buf, pos, bits);
            pos += 8;
        } else {
            throw notElement(what, ec);
        }
    }

    private void fixed128(int code, long high, long low, String what) {
        int ec = element();
        if (ec == 0) {
            ensure(17);
            buf[pos] = (byte) code;
            LONG.set(buf, pos + 1, high);
            LONG.set(buf, pos + 9, low);
            pos += 17;
        } else if (ec == code) {
            ensure(16);
            LONG.set(buf, pos, high);
            LONG.set(buf, pos + 8, low);
            pos += 16;
        } else {
            throw notElement(what, ec);
        }
    }

    /** Writes a float (IEEE 754 binary32). */
    public void writeFloat(float value) {
        fixed32(FormatCode.FLOAT, Float.floatToRawIntBits(value), "float");
    }

    /** Writes a double (IEEE 754 binary64). */
    public void writeDouble(double value) {
        fixed64(FormatCode.DOUBLE, Double.doubleToRawLongBits(value), "double");
    }

    /** Writes a decimal32 from its IEEE 754 bits. */
    public void writeDecimal32(int bits) {
        fixed32(FormatCode.DECIMAL32, bits, "decimal32");
    }

    /** Writes a decimal64 from its IEEE 754 bits. */
    public void writeDecimal64(long bits) {
        fixed64(FormatCode.DECIMAL64, bits, "decimal64");
    }

    /** Writes a decimal128 from its IEEE 754 bits. */
    public void writeDecimal128(long high, long low) {
        fixed128(FormatCode.DECIMAL128, high, low, "decimal128");
    }

    /** Writes a char (UTF-32) from a Unicode code point, which may be above U+FFFF. */
    public void writeChar(int codePoint) {
        if (!Character.isValidCodePoint(codePoint) || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
            throw new IllegalArgumentException("not a Unicode scalar value: 0x" + Integer.toHexString(codePoint));
        }
        fixed32(FormatCode.CHAR, codePoint, "char");
    }

    /** Writes a timestamp in milliseconds since the Unix epoch. */
    public void writeTimestamp(long epochMillis) {
        fixed64(FormatCode.TIMESTAMP, epochMillis, "timestamp");
    }

    /** Writes a uuid from its two halves. */
    public void writeUuid(long mostSignificantBits, long leastSignificantBits) {
        fixed128(FormatCode.UUID, mostSignificantBits, leastSignificantBits, "uuid");
    }

    /** Writes a uuid. */
    public void writeUuid(UUID value) {
        writeUuid(value.getMostSignificantBits(), value.getLeastSignificantBits());
    }

    // ------------------------------------------------------------------------------------------ variable width

    /** Writes the constructor and size of a variable-width value of {@code length} bytes; returns its content offset. */
    private int variableHeader(int code8, int code32, int length, String what) {
        int ec = element();
        if (ec == 0) {
            if (length <= 255) {
                ensure(2 + length);
                buf[pos] = (byte) code8;
                buf[pos + 1] = (byte) length;
                pos += 2;
            } else {
                ensure(5 + length);
                buf[pos] = (byte) code32;
                INT.set(buf, pos + 1, length);
                pos += 5;
            }
        } else if (ec == code8) {
            if (length > 255) {
                throw new IllegalArgumentException(what + " of " + length + " bytes does not fit an array of " + FormatCode.name(ec));
            }
            ensure(1 + length);
            buf[pos++] = (byte) length;
        } else if (ec == code32) {
            ensure(4 + length);
            INT.set(buf, pos, length);
            pos += 4;
        } else {
            throw notElement(what, ec);
        }
        return pos;
    }

    /** Writes a binary (vbin8 or vbin32) from {@code bytes[offset, offset + length)}. */
    public void writeBinary(byte[] bytes, int offset, int length) {
        int at = variableHeader(FormatCode.VBIN8, FormatCode.VBIN32, length, "binary");
        System.arraycopy(bytes, offset, buf, at, length);
        pos = at + length;
    }

    /** Writes a binary from the whole array. */
    public void writeBinary(byte[] bytes) {
        writeBinary(bytes, 0, bytes.length);
    }

    /** Writes a binary from the remaining bytes of {@code bytes}, without changing its position. */
    public void writeBinary(ByteBuffer bytes) {
        int n = bytes.remaining();
        int at = variableHeader(FormatCode.VBIN8, FormatCode.VBIN32, n, "binary");
        bytes.get(bytes.position(), buf, at, n);
        pos = at + n;
    }

    /**
     * Writes a string (str8 or str32) as UTF-8; {@code null} writes null. A {@link Utf8String} is copied from its
     * bytes, encoded once when it was made.
     */
    public void writeString(CharSequence text) {
        if (text == null) {
            writeNull();
            return;
        }
        if (text instanceof Utf8String) {
            byte[] b = ((Utf8String) text).bytes();
            writeStringUtf8(b, 0, b.length);
            return;
        }
        int chars = text.length();
        int ec = !(uncounted > 0 && depth == uncountedDepth) ? curElement : 0;
        if (ec == 0 && chars * 3 <= 255) {
            // Short enough that even all-3-byte UTF-8 fits str8: encode in one pass, backfill the length.
            element();
            ensure(2 + chars * 3);
            buf[pos] = (byte) FormatCode.STR8;
            int endAt = Utf8.encode(text, buf, pos + 2);
            buf[pos + 1] = (byte) (endAt - pos - 2);
            pos = endAt;
            return;
        }
        int length = Utf8.encodedLength(text);
        int at = variableHeader(FormatCode.STR8, FormatCode.STR32, length, "string");
        pos = Utf8.encode(text, buf, at);
    }

    /**
     * Writes a string from bytes that are already UTF-8 (not checked here; the reading side validates), for
     * copying a string from one encoding to another without a String in between.
     */
    public void writeStringUtf8(byte[] utf8, int offset, int length) {
        int at = variableHeader(FormatCode.STR8, FormatCode.STR32, length, "string");
        System.arraycopy(utf8, offset, buf, at, length);
        pos = at + length;
    }

    /** Writes a symbol (sym8 or sym32); {@code null} writes null. */
    public void writeSymbol(Symbol symbol) {
        if (symbol == null) {
            writeNull();
            return;
        }
        byte[] b = symbol.bytes();
        writeSymbolAscii(b, 0, b.length);
    }

    /**
     * Writes a symbol from ASCII text; {@code null} writes null.
     *
     * @throws IllegalArgumentException if the text is not ASCII
     */
    public void writeSymbol(CharSequence ascii) {
        if (ascii == null) {
            writeNull();
            return;
        }
        if (ascii instanceof Symbol) {
            writeSymbol((Symbol) ascii); // already encoded, already checked to be ASCII
            return;
        }
        int n = ascii.length();
        int at = variableHeader(FormatCode.SYM8, FormatCode.SYM32, n, "symbol");
        for (int i = 0; i < n; i++) {
            char c = ascii.charAt(i);
            if (c >= 0x80) {
                throw new IllegalArgumentException("symbol is not ASCII at index " + i);
            }
            buf[at + i] = (byte) c;
        }
        pos = at + n;
    }

    /** Writes a symbol from ASCII bytes (not checked). */
    public void writeSymbolAscii(byte[] ascii, int offset, int length) {
        int at = variableHeader(FormatCode.SYM8, FormatCode.SYM32, length, "symbol");
        System.arraycopy(ascii, offset, buf, at, length);
        pos = at + length;
    }

    /**
     * Appends a complete encoded value (for example one copied from a reader between
     * {@link AmqpReader#valueStart()} and {@link AmqpReader#valueEnd()}); it counts as one element. Not allowed
     * inside an array, whose elements have no constructor.
     */
    public void writeEncoded(byte[] encoded, int offset, int length) {
        int ec = element();
        if (ec != 0) {
            throw notElement("an encoded value", ec);
        }
        ensure(length);
        System.arraycopy(encoded, offset, buf, pos, length);
        pos += length;
    }

}
