package io.amqpservlet.protocol.codec;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Decimal128;
import org.apache.qpid.proton.amqp.Decimal32;
import org.apache.qpid.proton.amqp.Decimal64;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnknownDescribedType;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;

import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Converts {@link AmqpValue}s to and from the Java objects of Qpid proton-j 0.35.0, and encodes and decodes them
 * with its codec (AMQP-defined types registered, as in an engine), for differential tests.
 *
 * <p>proton-j quirks the tests account for (see {@link PeerDifferentialTest}): it holds a char in a Java
 * {@code char}; it decodes only ulong and symbol descriptors and no described value that is itself described; it
 * refuses arrays of zero-width elements (uint0, true, null...); it returns a described array as a Java array of
 * described objects.
 */
final class ProtonJValues {
    private ProtonJValues() {
    }

    static byte[] encode(Object value) {
        DecoderImpl decoder = new DecoderImpl();
        EncoderImpl encoder = new EncoderImpl(decoder);
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
        ByteBuffer buffer = ByteBuffer.allocate(1 << 22);
        encoder.setByteBuffer(buffer);
        encoder.writeObject(value);
        buffer.flip();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    static Object decode(byte[] bytes) {
        DecoderImpl decoder = new DecoderImpl();
        EncoderImpl encoder = new EncoderImpl(decoder);
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        decoder.setByteBuffer(buffer);
        Object value = decoder.readObject();
        if (buffer.hasRemaining()) {
            throw new AssertionError("proton-j left " + buffer.remaining() + " bytes unread");
        }
        return value;
    }

    static Object toPeer(AmqpValue v) {
        if (v instanceof AmqpValue.Null) {
            return null;
        } else if (v instanceof AmqpValue.Bool b) {
            return b.value();
        } else if (v instanceof AmqpValue.UByte u) {
            return UnsignedByte.valueOf((byte) u.value());
        } else if (v instanceof AmqpValue.UShort u) {
            return UnsignedShort.valueOf((short) u.value());
        } else if (v instanceof AmqpValue.UInt u) {
            return UnsignedInteger.valueOf((int) u.value());
        } else if (v instanceof AmqpValue.ULong u) {
            return UnsignedLong.valueOf(u.bits());
        } else if (v instanceof AmqpValue.I8 i) {
            return i.value();
        } else if (v instanceof AmqpValue.I16 i) {
            return i.value();
        } else if (v instanceof AmqpValue.I32 i) {
            return i.value();
        } else if (v instanceof AmqpValue.I64 i) {
            return i.value();
        } else if (v instanceof AmqpValue.F32 f) {
            return Float.intBitsToFloat(f.bits());
        } else if (v instanceof AmqpValue.F64 f) {
            return Double.longBitsToDouble(f.bits());
        } else if (v instanceof AmqpValue.Dec32 d) {
            return new Decimal32(d.bits());
        } else if (v instanceof AmqpValue.Dec64 d) {
            return new Decimal64(d.bits());
        } else if (v instanceof AmqpValue.Dec128 d) {
            return new Decimal128(d.high(), d.low());
        } else if (v instanceof AmqpValue.Char c) {
            return (char) c.codePoint();
        } else if (v instanceof AmqpValue.Timestamp t) {
            return new Date(t.epochMillis());
        } else if (v instanceof AmqpValue.Uuid u) {
            return new UUID(u.msb(), u.lsb());
        } else if (v instanceof AmqpValue.Bin b) {
            return new Binary(b.bytes());
        } else if (v instanceof AmqpValue.Str s) {
            return s.value();
        } else if (v instanceof AmqpValue.Sym s) {
            return Symbol.valueOf(s.value());
        } else if (v instanceof AmqpValue.ListV l) {
            List<Object> out = new ArrayList<>();
            for (AmqpValue e : l.elements()) {
                out.add(toPeer(e));
            }
            return out;
        } else if (v instanceof AmqpValue.MapV m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            List<AmqpValue> kv = m.keysAndValues();
            for (int i = 0; i < kv.size(); i += 2) {
                out.put(toPeer(kv.get(i)), toPeer(kv.get(i + 1)));
            }
            return out;
        } else if (v instanceof AmqpValue.ArrayV a) {
            return toPeerArray(a);
        } else if (v instanceof AmqpValue.Described d) {
            return new UnknownDescribedType(toPeer(d.descriptor()), toPeer(d.value()));
        }
        throw new AssertionError(v);
    }

    private static Object toPeerArray(AmqpValue.ArrayV a) {
        List<AmqpValue> es = a.elements();
        if (a.descriptor() != null) {
            Object descriptor = toPeer(a.descriptor());
            DescribedType[] out = new DescribedType[es.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = new UnknownDescribedType(descriptor, toPeer(es.get(i)));
            }
            return out;
        }
        Class<?> component = component(a);
        Object out = Array.newInstance(component, es.size());
        for (int i = 0; i < es.size(); i++) {
            Array.set(out, i, toPeer(es.get(i)));
        }
        return out;
    }

    private static Class<?> component(AmqpValue.ArrayV a) {
        switch (a.elementType()) {
            case BOOLEAN: return boolean.class;
            case BYTE: return byte.class;
            case SHORT: return short.class;
            case INT: return int.class;
            case LONG: return long.class;
            case FLOAT: return float.class;
            case DOUBLE: return double.class;
            case CHAR: return char.class;
            case UBYTE: return UnsignedByte.class;
            case USHORT: return UnsignedShort.class;
            case UINT: return UnsignedInteger.class;
            case ULONG: return UnsignedLong.class;
            case DECIMAL32: return Decimal32.class;
            case DECIMAL64: return Decimal64.class;
            case DECIMAL128: return Decimal128.class;
            case TIMESTAMP: return Date.class;
            case UUID: return UUID.class;
            case BINARY: return Binary.class;
            case STRING: return String.class;
            case SYMBOL: return Symbol.class;
            case LIST: return List.class;
            case MAP: return Map.class;
            case ARRAY:
                return a.elements().isEmpty() ? Object[].class : toPeer(a.elements().get(0)).getClass();
            default: return Object.class;
        }
    }

    static AmqpValue fromPeer(Object o) {
        if (o == null) {
            return AmqpValue.NULL;
        } else if (o instanceof Boolean b) {
            return new AmqpValue.Bool(b);
        } else if (o instanceof UnsignedByte u) {
            return new AmqpValue.UByte(u.intValue());
        } else if (o instanceof UnsignedShort u) {
            return new AmqpValue.UShort(u.intValue());
        } else if (o instanceof UnsignedInteger u) {
            return new AmqpValue.UInt(u.longValue());
        } else if (o instanceof UnsignedLong u) {
            return new AmqpValue.ULong(u.longValue());
        } else if (o instanceof Byte b) {
            return new AmqpValue.I8(b);
        } else if (o instanceof Short s) {
            return new AmqpValue.I16(s);
        } else if (o instanceof Integer i) {
            return new AmqpValue.I32(i);
        } else if (o instanceof Long l) {
            return new AmqpValue.I64(l);
        } else if (o instanceof Float f) {
            return new AmqpValue.F32(Float.floatToRawIntBits(f));
        } else if (o instanceof Double d) {
            return new AmqpValue.F64(Double.doubleToRawLongBits(d));
        } else if (o instanceof Decimal32 d) {
            return new AmqpValue.Dec32(d.getBits());
        } else if (o instanceof Decimal64 d) {
            return new AmqpValue.Dec64(d.getBits());
        } else if (o instanceof Decimal128 d) {
            return new AmqpValue.Dec128(d.getMostSignificantBits(), d.getLeastSignificantBits());
        } else if (o instanceof Character c) {
            return new AmqpValue.Char(c);
        } else if (o instanceof Date d) {
            return new AmqpValue.Timestamp(d.getTime());
        } else if (o instanceof UUID u) {
            return new AmqpValue.Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
        } else if (o instanceof Binary b) {
            return new AmqpValue.Bin(java.util.Arrays.copyOfRange(b.getArray(), b.getArrayOffset(), b.getArrayOffset() + b.getLength()));
        } else if (o instanceof String s) {
            return new AmqpValue.Str(s);
        } else if (o instanceof Symbol s) {
            return new AmqpValue.Sym(s.toString());
        } else if (o instanceof List<?> l) {
            List<AmqpValue> out = new ArrayList<>();
            for (Object e : l) {
                out.add(fromPeer(e));
            }
            return new AmqpValue.ListV(out);
        } else if (o instanceof Map<?, ?> m) {
            List<AmqpValue> out = new ArrayList<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.add(fromPeer(e.getKey()));
                out.add(fromPeer(e.getValue()));
            }
            return new AmqpValue.MapV(out);
        } else if (o instanceof DescribedType d) {
            return new AmqpValue.Described(fromPeer(d.getDescriptor()), fromPeer(d.getDescribed()));
        } else if (o.getClass().isArray()) {
            return fromPeerArray(o);
        }
        throw new AssertionError("unexpected proton-j value " + o.getClass() + ": " + o);
    }

    private static AmqpValue fromPeerArray(Object array) {
        int n = Array.getLength(array);
        List<AmqpValue> es = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            es.add(fromPeer(Array.get(array, i)));
        }
        Class<?> c = array.getClass().getComponentType();
        if (c == Object.class && n > 0) {
            // Arrays of described values and of compounds may come back as Object[]: their first element says.
            c = Array.get(array, 0).getClass();
        }
        if (DescribedType.class.isAssignableFrom(c)) {
            if (n == 0) {
                throw new AssertionError("an empty described array has no element type");
            }
            AmqpValue descriptor = ((AmqpValue.Described) es.get(0)).descriptor();
            List<AmqpValue> undescribed = new ArrayList<>(n);
            for (AmqpValue e : es) {
                AmqpValue.Described d = (AmqpValue.Described) e;
                if (!d.descriptor().equals(descriptor)) {
                    throw new AssertionError("described array elements with different descriptors: " + es);
                }
                undescribed.add(d.value());
            }
            return new AmqpValue.ArrayV(AmqpValue.typeOf(undescribed.get(0)), descriptor, undescribed);
        }
        if (n == 0 && c == Object.class) {
            throw new AssertionError("an empty Object[] has no element type: " + java.util.Arrays.deepToString((Object[]) array));
        }
        return new AmqpValue.ArrayV(elementType(c), null, es);
    }

    private static AmqpType elementType(Class<?> c) {
        if (c == boolean.class || c == Boolean.class) return AmqpType.BOOLEAN;
        if (c == byte.class || c == Byte.class) return AmqpType.BYTE;
        if (c == short.class || c == Short.class) return AmqpType.SHORT;
        if (c == int.class || c == Integer.class) return AmqpType.INT;
        if (c == long.class || c == Long.class) return AmqpType.LONG;
        if (c == float.class || c == Float.class) return AmqpType.FLOAT;
        if (c == double.class || c == Double.class) return AmqpType.DOUBLE;
        if (c == char.class || c == Character.class) return AmqpType.CHAR;
        if (c == UnsignedByte.class) return AmqpType.UBYTE;
        if (c == UnsignedShort.class) return AmqpType.USHORT;
        if (c == UnsignedInteger.class) return AmqpType.UINT;
        if (c == UnsignedLong.class) return AmqpType.ULONG;
        if (c == Decimal32.class) return AmqpType.DECIMAL32;
        if (c == Decimal64.class) return AmqpType.DECIMAL64;
        if (c == Decimal128.class) return AmqpType.DECIMAL128;
        if (c == Date.class) return AmqpType.TIMESTAMP;
        if (c == UUID.class) return AmqpType.UUID;
        if (c == Binary.class) return AmqpType.BINARY;
        if (c == String.class) return AmqpType.STRING;
        if (c == Symbol.class) return AmqpType.SYMBOL;
        if (List.class.isAssignableFrom(c)) return AmqpType.LIST;
        if (Map.class.isAssignableFrom(c)) return AmqpType.MAP;
        if (c.isArray()) return AmqpType.ARRAY;
        throw new AssertionError("unexpected proton-j array of " + c);
    }
}
