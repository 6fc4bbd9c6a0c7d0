package io.amqpservlet.protocol.value;

import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.Symbol;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Encodes Java objects as an AMQP value with {@link AmqpWriter}: the inverse of {@link ValueDecoder}, whose table
 * it reads back exactly. It also takes what a caller is likely to hold: any {@code CharSequence} (a string; a
 * {@link Symbol} stays a symbol), {@code Character} (a char), {@code java.time.Instant} (a timestamp, in
 * milliseconds), {@code ByteBuffer} (binary, its remaining bytes), any {@code java.util.List} and
 * {@code java.util.Map} (in iteration order). Java values have no unsigned or array form of their own: use
 * {@link UnsignedInteger}, {@link UnsignedLong}, ..., and {@link AmqpArray} to get those AMQP types.
 */
public final class ValueEncoder {
    private ValueEncoder() {
    }

    /**
     * Writes {@code value} as one AMQP value.
     *
     * @param value a Java value of a type in the table
     * @param out where to write it
     * @throws IllegalArgumentException for a Java type the table does not name (the message says which), or an
     *         array element that does not fit its array's element type
     */
    public static void encode(Object value, AmqpWriter out) {
        if (value == null) {
            out.writeNull();
        } else if (value instanceof String) {
            out.writeString((String) value);
        } else if (value instanceof Map) {
            out.startMap();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                encode(e.getKey(), out);
                encode(e.getValue(), out);
            }
            out.endMap();
        } else if (value instanceof List) {
            out.startList();
            for (Object element : (List<?>) value) {
                encode(element, out);
            }
            out.endList();
        } else if (value instanceof Boolean) {
            out.writeBoolean((Boolean) value);
        } else if (value instanceof Long) {
            out.writeLong((Long) value);
        } else if (value instanceof Integer) {
            out.writeInt((Integer) value);
        } else if (value instanceof Symbol) {
            out.writeSymbol((Symbol) value);
        } else if (value instanceof UnsignedLong) {
            out.writeULong(((UnsignedLong) value).bits());
        } else if (value instanceof UnsignedInteger) {
            out.writeUInt(((UnsignedInteger) value).value());
        } else if (value instanceof UnsignedShort) {
            out.writeUShort(((UnsignedShort) value).value());
        } else if (value instanceof UnsignedByte) {
            out.writeUByte(((UnsignedByte) value).value());
        } else if (value instanceof Short) {
            out.writeShort((Short) value);
        } else if (value instanceof Byte) {
            out.writeByte((Byte) value);
        } else if (value instanceof Double) {
            out.writeDouble((Double) value);
        } else if (value instanceof Float) {
            out.writeFloat((Float) value);
        } else if (value instanceof UUID) {
            out.writeUuid((UUID) value);
        } else if (value instanceof Date) {
            out.writeTimestamp(((Date) value).getTime());
        } else if (value instanceof Instant) {
            out.writeTimestamp(((Instant) value).toEpochMilli());
        } else if (value instanceof byte[]) {
            out.writeBinary((byte[]) value);
        } else if (value instanceof ByteBuffer) {
            out.writeBinary((ByteBuffer) value);
        } else if (value instanceof AmqpArray) {
            array((AmqpArray) value, out);
        } else if (value instanceof Described) {
            described((Described) value, out);
        } else if (value instanceof AmqpChar) {
            out.writeChar(((AmqpChar) value).codePoint());
        } else if (value instanceof Character) {
            out.writeChar((Character) value);
        } else if (value instanceof Decimal32) {
            out.writeDecimal32(((Decimal32) value).bits());
        } else if (value instanceof Decimal64) {
            out.writeDecimal64(((Decimal64) value).bits());
        } else if (value instanceof Decimal128) {
            out.writeDecimal128(((Decimal128) value).high(), ((Decimal128) value).low());
        } else if (value instanceof CharSequence) {
            out.writeString((CharSequence) value);
        } else {
            throw new IllegalArgumentException("no AMQP type for a " + value.getClass().getName());
        }
    }

    private static void described(Described d, AmqpWriter out) {
        Object descriptor = d.descriptor();
        if (descriptor instanceof UnsignedLong) {
            out.writeDescriptor(((UnsignedLong) descriptor).bits());
        } else if (descriptor instanceof Symbol) {
            out.writeDescriptor((Symbol) descriptor);
        } else {
            out.startDescribed(); // AMQP 1.0 §1.2: any value may be a descriptor
            encode(descriptor, out);
        }
        encode(d.value(), out);
    }

    private static void array(AmqpArray array, AmqpWriter out) {
        AmqpType type = array.elementType();
        if (type == AmqpType.DESCRIBED) {
            throw new IllegalArgumentException("an array of described values cannot be written from Java values");
        }
        List<?> elements = array.elements();
        out.startArray(elementCode(type, elements));
        for (Object element : elements) {
            element(type, element, out);
        }
        out.endArray();
    }

    /**
     * The one constructor every element shares: the full-width code of fixed-width types (every element must fit
     * it), and for variable-width ones the 8-bit code when every element fits it, else the 32-bit one.
     */
    private static int elementCode(AmqpType type, List<?> elements) {
        boolean variable = type == AmqpType.BINARY || type == AmqpType.STRING || type == AmqpType.SYMBOL;
        return type.arrayElementCode(variable && maxLength(type, elements) <= 255);
    }

    private static long maxLength(AmqpType type, List<?> elements) {
        long max = 0;
        for (Object e : elements) {
            long n;
            if (e instanceof byte[]) {
                n = ((byte[]) e).length;
            } else if (e instanceof ByteBuffer) {
                n = ((ByteBuffer) e).remaining();
            } else if (e instanceof CharSequence) {
                n = type == AmqpType.STRING ? Utf8.encodedLength((CharSequence) e) : ((CharSequence) e).length();
            } else {
                throw notElement(type, e);
            }
            max = Math.max(max, n);
        }
        return max;
    }

    private static IllegalArgumentException notElement(AmqpType type, Object element) {
        return new IllegalArgumentException("a " + (element == null ? "null" : element.getClass().getName())
                + " cannot be an element of an array of " + type.name().toLowerCase(java.util.Locale.ROOT));
    }

    /** One element: the Java value converted to the array's type where that is lossless. */
    private static void element(AmqpType type, Object e, AmqpWriter out) {
        switch (type) {
            case NULL:
                if (e != null) {
                    throw notElement(type, e);
                }
                out.writeNull();
                return;
            case BOOLEAN:
                if (!(e instanceof Boolean)) {
                    throw notElement(type, e);
                }
                out.writeBoolean((Boolean) e);
                return;
            case UBYTE:
                out.writeUByte(e instanceof UnsignedByte ? ((UnsignedByte) e).value() : new UnsignedByte(intIn(type, e)).value());
                return;
            case USHORT:
                out.writeUShort(e instanceof UnsignedShort ? ((UnsignedShort) e).value() : new UnsignedShort(intIn(type, e)).value());
                return;
            case UINT:
                out.writeUInt(e instanceof UnsignedInteger ? ((UnsignedInteger) e).value() : new UnsignedInteger(longIn(type, e)).value());
                return;
            case ULONG:
                if (e instanceof UnsignedLong) {
                    out.writeULong(((UnsignedLong) e).bits());
                    return;
                }
                long u = longIn(type, e);
                if (u < 0) {
                    throw new IllegalArgumentException("ulong out of range: " + u);
                }
                out.writeULong(u);
                return;
            case BYTE:
                out.writeByte((byte) checked(type, longIn(type, e), Byte.MIN_VALUE, Byte.MAX_VALUE));
                return;
            case SHORT:
                out.writeShort((short) checked(type, longIn(type, e), Short.MIN_VALUE, Short.MAX_VALUE));
                return;
            case INT:
                out.writeInt((int) checked(type, longIn(type, e), Integer.MIN_VALUE, Integer.MAX_VALUE));
                return;
            case LONG:
                out.writeLong(longIn(type, e));
                return;
            case FLOAT:
                if (!(e instanceof Float)) {
                    throw notElement(type, e);
                }
                out.writeFloat((Float) e);
                return;
            case DOUBLE:
                if (!(e instanceof Double) && !(e instanceof Float)) {
                    throw notElement(type, e);
                }
                out.writeDouble(((Number) e).doubleValue());
                return;
            case CHAR:
                if (e instanceof AmqpChar) {
                    out.writeChar(((AmqpChar) e).codePoint());
                } else if (e instanceof Character) {
                    out.writeChar((Character) e);
                } else {
                    throw notElement(type, e);
                }
                return;
            case STRING:
                if (!(e instanceof CharSequence) || e instanceof Symbol) {
                    throw notElement(type, e);
                }
                out.writeString((CharSequence) e);
                return;
            case SYMBOL:
                if (!(e instanceof CharSequence)) {
                    throw notElement(type, e);
                }
                out.writeSymbol((CharSequence) e);
                return;
            case LIST:
                if (!(e instanceof List)) {
                    throw notElement(type, e);
                }
                encode(e, out);
                return;
            case MAP:
                if (!(e instanceof Map)) {
                    throw notElement(type, e);
                }
                encode(e, out);
                return;
            case ARRAY:
                if (!(e instanceof AmqpArray)) {
                    throw notElement(type, e);
                }
                encode(e, out);
                return;
            default:
                // decimal32/64/128, timestamp, uuid, binary: only their own Java types fit, as encode writes them.
                if (!fits(type, e)) {
                    throw notElement(type, e);
                }
                encode(e, out);
        }
    }

    private static boolean fits(AmqpType type, Object e) {
        switch (type) {
            case DECIMAL32: return e instanceof Decimal32;
            case DECIMAL64: return e instanceof Decimal64;
            case DECIMAL128: return e instanceof Decimal128;
            case TIMESTAMP: return e instanceof Date || e instanceof Instant;
            case UUID: return e instanceof UUID;
            case BINARY: return e instanceof byte[] || e instanceof ByteBuffer;
            default: return false;
        }
    }

    private static long longIn(AmqpType type, Object e) {
        if (e instanceof Long || e instanceof Integer || e instanceof Short || e instanceof Byte) {
            return ((Number) e).longValue();
        }
        throw notElement(type, e);
    }

    private static int intIn(AmqpType type, Object e) {
        return (int) checked(type, longIn(type, e), Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    private static long checked(AmqpType type, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(v + " is out of range for an element of an array of "
                    + type.name().toLowerCase(java.util.Locale.ROOT));
        }
        return v;
    }
}
