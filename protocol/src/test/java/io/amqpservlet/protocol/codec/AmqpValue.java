package io.amqpservlet.protocol.codec;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A test-only model of AMQP 1.0 values (AMQP 1.0 §1.6), independent of every codec under test, so that each
 * codec's output can be compared with the same expected values. Floating-point values are held as their bits so
 * that NaN payloads and -0.0 compare exactly; unsigned values as their bits in a wider or equal Java type.
 * Maps keep their entries in encoding order as a flat key, value, key, value list.
 */
sealed interface AmqpValue {
    Null NULL = new Null();

    record Null() implements AmqpValue { }

    record Bool(boolean value) implements AmqpValue { }

    record UByte(int value) implements AmqpValue { }

    record UShort(int value) implements AmqpValue { }

    record UInt(long value) implements AmqpValue { }

    /** The 64 bits of a ulong; negative above Long.MAX_VALUE. */
    record ULong(long bits) implements AmqpValue { }

    record I8(byte value) implements AmqpValue { }

    record I16(short value) implements AmqpValue { }

    record I32(int value) implements AmqpValue { }

    record I64(long value) implements AmqpValue { }

    record F32(int bits) implements AmqpValue {
        @Override
        public String toString() {
            return "F32[" + Float.intBitsToFloat(bits) + " 0x" + Integer.toHexString(bits) + "]";
        }
    }

    record F64(long bits) implements AmqpValue {
        @Override
        public String toString() {
            return "F64[" + Double.longBitsToDouble(bits) + " 0x" + Long.toHexString(bits) + "]";
        }
    }

    record Dec32(int bits) implements AmqpValue { }

    record Dec64(long bits) implements AmqpValue { }

    record Dec128(long high, long low) implements AmqpValue { }

    record Char(int codePoint) implements AmqpValue { }

    record Timestamp(long epochMillis) implements AmqpValue { }

    record Uuid(long msb, long lsb) implements AmqpValue { }

    record Bin(byte[] bytes) implements AmqpValue {
        @Override
        public boolean equals(Object o) {
            return o instanceof Bin && Arrays.equals(bytes, ((Bin) o).bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "Bin[" + HexFormat.of().formatHex(bytes) + "]";
        }
    }

    record Str(String value) implements AmqpValue { }

    record Sym(String value) implements AmqpValue { }

    record ListV(List<AmqpValue> elements) implements AmqpValue { }

    /** Keys and values alternately, in encoding order. */
    record MapV(List<AmqpValue> keysAndValues) implements AmqpValue { }

    /**
     * An array of {@code elementType} (never DESCRIBED); when {@code descriptor} is not null every element is
     * described by it (AMQP 1.0 §1.2: one constructor, described, for all elements) and {@code elements} holds
     * the values it describes.
     */
    record ArrayV(AmqpType elementType, AmqpValue descriptor, List<AmqpValue> elements) implements AmqpValue { }

    record Described(AmqpValue descriptor, AmqpValue value) implements AmqpValue { }

    /** The AMQP type of a value (DESCRIBED for a described one). */
    static AmqpType typeOf(AmqpValue v) {
        if (v instanceof Null) {
            return AmqpType.NULL;
        } else if (v instanceof Bool) {
            return AmqpType.BOOLEAN;
        } else if (v instanceof UByte) {
            return AmqpType.UBYTE;
        } else if (v instanceof UShort) {
            return AmqpType.USHORT;
        } else if (v instanceof UInt) {
            return AmqpType.UINT;
        } else if (v instanceof ULong) {
            return AmqpType.ULONG;
        } else if (v instanceof I8) {
            return AmqpType.BYTE;
        } else if (v instanceof I16) {
            return AmqpType.SHORT;
        } else if (v instanceof I32) {
            return AmqpType.INT;
        } else if (v instanceof I64) {
            return AmqpType.LONG;
        } else if (v instanceof F32) {
            return AmqpType.FLOAT;
        } else if (v instanceof F64) {
            return AmqpType.DOUBLE;
        } else if (v instanceof Dec32) {
            return AmqpType.DECIMAL32;
        } else if (v instanceof Dec64) {
            return AmqpType.DECIMAL64;
        } else if (v instanceof Dec128) {
            return AmqpType.DECIMAL128;
        } else if (v instanceof Char) {
            return AmqpType.CHAR;
        } else if (v instanceof Timestamp) {
            return AmqpType.TIMESTAMP;
        } else if (v instanceof Uuid) {
            return AmqpType.UUID;
        } else if (v instanceof Bin) {
            return AmqpType.BINARY;
        } else if (v instanceof Str) {
            return AmqpType.STRING;
        } else if (v instanceof Sym) {
            return AmqpType.SYMBOL;
        } else if (v instanceof ListV) {
            return AmqpType.LIST;
        } else if (v instanceof MapV) {
            return AmqpType.MAP;
        } else if (v instanceof ArrayV) {
            return AmqpType.ARRAY;
        }
        return AmqpType.DESCRIBED;
    }
}
