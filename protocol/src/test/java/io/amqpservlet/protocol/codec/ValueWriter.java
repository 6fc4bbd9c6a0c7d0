package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.codec.AmqpValue.ArrayV;
import io.amqpservlet.protocol.codec.AmqpValue.Bin;
import io.amqpservlet.protocol.codec.AmqpValue.Bool;
import io.amqpservlet.protocol.codec.AmqpValue.Char;
import io.amqpservlet.protocol.codec.AmqpValue.Dec128;
import io.amqpservlet.protocol.codec.AmqpValue.Dec32;
import io.amqpservlet.protocol.codec.AmqpValue.Dec64;
import io.amqpservlet.protocol.codec.AmqpValue.Described;
import io.amqpservlet.protocol.codec.AmqpValue.F32;
import io.amqpservlet.protocol.codec.AmqpValue.F64;
import io.amqpservlet.protocol.codec.AmqpValue.I16;
import io.amqpservlet.protocol.codec.AmqpValue.I32;
import io.amqpservlet.protocol.codec.AmqpValue.I64;
import io.amqpservlet.protocol.codec.AmqpValue.I8;
import io.amqpservlet.protocol.codec.AmqpValue.ListV;
import io.amqpservlet.protocol.codec.AmqpValue.MapV;
import io.amqpservlet.protocol.codec.AmqpValue.Str;
import io.amqpservlet.protocol.codec.AmqpValue.Sym;
import io.amqpservlet.protocol.codec.AmqpValue.Timestamp;
import io.amqpservlet.protocol.codec.AmqpValue.UByte;
import io.amqpservlet.protocol.codec.AmqpValue.UInt;
import io.amqpservlet.protocol.codec.AmqpValue.ULong;
import io.amqpservlet.protocol.codec.AmqpValue.UShort;
import io.amqpservlet.protocol.codec.AmqpValue.Uuid;
import io.amqpservlet.protocol.types.Symbol;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Writes {@link AmqpValue}s with the {@link AmqpWriter} under test. The writer picks scalar widths itself; only an
 * array's element format code is the caller's choice, and this class picks it by {@link ArrayCodes}: always the
 * widest code, or at random (seeded) any code that holds every element, so that the compact array forms
 * (smallint, sym8, list8, ... and the zero-width ones) are exercised too.
 */
final class ValueWriter {
    /** Which array element codes may be chosen. */
    enum ArrayCodes {
        /** The canonical full-width code of the type: int, uint, str32, list32, ... */
        WIDE,
        /** Any code that holds every element, except zero-width ones (which proton-j cannot read in arrays). */
        COMPACT,
        /** Any code that holds every element, including uint0, ulong0, true, false and null elements. */
        ANY
    }

    private final AmqpWriter writer;
    private final Random random;
    private final ArrayCodes arrayCodes;

    ValueWriter(AmqpWriter writer, Random random, ArrayCodes arrayCodes) {
        this.writer = writer;
        this.random = random;
        this.arrayCodes = arrayCodes;
    }

    /** Encodes {@code value} alone into a new array. */
    static byte[] encode(AmqpValue value, Random random, ArrayCodes arrayCodes) {
        AmqpWriter w = new AmqpWriter();
        new ValueWriter(w, random, arrayCodes).write(value);
        return w.toByteArray();
    }

    void write(AmqpValue v) {
        AmqpWriter w = writer;
        if (v instanceof AmqpValue.Null) {
            w.writeNull();
        } else if (v instanceof Bool b) {
            w.writeBoolean(b.value());
        } else if (v instanceof UByte u) {
            w.writeUByte(u.value());
        } else if (v instanceof UShort u) {
            w.writeUShort(u.value());
        } else if (v instanceof UInt u) {
            w.writeUInt(u.value());
        } else if (v instanceof ULong u) {
            w.writeULong(u.bits());
        } else if (v instanceof I8 i) {
            w.writeByte(i.value());
        } else if (v instanceof I16 i) {
            w.writeShort(i.value());
        } else if (v instanceof I32 i) {
            w.writeInt(i.value());
        } else if (v instanceof I64 i) {
            w.writeLong(i.value());
        } else if (v instanceof F32 f) {
            w.writeFloat(Float.intBitsToFloat(f.bits()));
        } else if (v instanceof F64 f) {
            w.writeDouble(Double.longBitsToDouble(f.bits()));
        } else if (v instanceof Dec32 d) {
            w.writeDecimal32(d.bits());
        } else if (v instanceof Dec64 d) {
            w.writeDecimal64(d.bits());
        } else if (v instanceof Dec128 d) {
            w.writeDecimal128(d.high(), d.low());
        } else if (v instanceof Char c) {
            w.writeChar(c.codePoint());
        } else if (v instanceof Timestamp t) {
            w.writeTimestamp(t.epochMillis());
        } else if (v instanceof Uuid u) {
            w.writeUuid(u.msb(), u.lsb());
        } else if (v instanceof Bin b) {
            w.writeBinary(b.bytes());
        } else if (v instanceof Str s) {
            if (random.nextBoolean()) {
                w.writeString(s.value());
            } else {
                byte[] utf8 = s.value().getBytes(StandardCharsets.UTF_8);
                w.writeStringUtf8(utf8, 0, utf8.length);
            }
        } else if (v instanceof Sym s) {
            if (random.nextBoolean()) {
                w.writeSymbol(s.value());
            } else {
                w.writeSymbol(Symbol.of(s.value()));
            }
        } else if (v instanceof ListV l) {
            w.startList();
            writeAll(l.elements());
            w.endList();
        } else if (v instanceof MapV m) {
            w.startMap();
            writeAll(m.keysAndValues());
            w.endMap();
        } else if (v instanceof ArrayV a) {
            writeArray(a);
        } else if (v instanceof Described d) {
            writeDescriptorThen(d.descriptor());
            write(d.value());
        } else {
            throw new AssertionError(v);
        }
    }

    private void writeAll(List<AmqpValue> values) {
        for (AmqpValue e : values) {
            write(e);
        }
    }

    private void writeDescriptorThen(AmqpValue descriptor) {
        if (descriptor instanceof ULong u && random.nextBoolean()) {
            writer.writeDescriptor(u.bits());
        } else if (descriptor instanceof Sym s && random.nextBoolean()) {
            writer.writeDescriptor(Symbol.of(s.value()));
        } else {
            writer.startDescribed();
            write(descriptor);
        }
    }

    private void writeArray(ArrayV a) {
        int code = elementCode(a);
        if (a.descriptor() == null) {
            writer.startArray(code);
        } else if (a.descriptor() instanceof ULong u) {
            writer.startDescribedArray(u.bits(), code);
        } else if (a.descriptor() instanceof Sym s) {
            writer.startDescribedArray(Symbol.of(s.value()), code);
        } else {
            throw new IllegalArgumentException("the writer describes arrays by ulong or symbol only: " + a);
        }
        writeAll(a.elements());
        writer.endArray();
    }

    /** The element format code for {@code a} under this writer's {@link ArrayCodes} policy. */
    int elementCode(ArrayV a) {
        List<AmqpValue> es = a.elements();
        boolean compact = arrayCodes != ArrayCodes.WIDE && random.nextBoolean();
        boolean zero = arrayCodes == ArrayCodes.ANY && random.nextBoolean();
        switch (a.elementType()) {
            case NULL:
                return FormatCode.NULL;
            case BOOLEAN:
                if (zero && !es.isEmpty() && all(es, e -> ((Bool) e).value())) {
                    return FormatCode.BOOLEAN_TRUE;
                }
                if (zero && !es.isEmpty() && all(es, e -> !((Bool) e).value())) {
                    return FormatCode.BOOLEAN_FALSE;
                }
                return FormatCode.BOOLEAN;
            case UBYTE:
                return FormatCode.UBYTE;
            case USHORT:
                return FormatCode.USHORT;
            case UINT:
                if (zero && all(es, e -> ((UInt) e).value() == 0)) {
                    return FormatCode.UINT0;
                }
                return compact && all(es, e -> ((UInt) e).value() <= 255) ? FormatCode.SMALLUINT : FormatCode.UINT;
            case ULONG:
                if (zero && all(es, e -> ((ULong) e).bits() == 0)) {
                    return FormatCode.ULONG0;
                }
                return compact && all(es, e -> (((ULong) e).bits() & ~0xFFL) == 0) ? FormatCode.SMALLULONG : FormatCode.ULONG;
            case BYTE:
                return FormatCode.BYTE;
            case SHORT:
                return FormatCode.SHORT;
            case INT:
                return compact && all(es, e -> ((I32) e).value() == (byte) ((I32) e).value()) ? FormatCode.SMALLINT : FormatCode.INT;
            case LONG:
                return compact && all(es, e -> ((I64) e).value() == (byte) ((I64) e).value()) ? FormatCode.SMALLLONG : FormatCode.LONG;
            case FLOAT:
                return FormatCode.FLOAT;
            case DOUBLE:
                return FormatCode.DOUBLE;
            case DECIMAL32:
                return FormatCode.DECIMAL32;
            case DECIMAL64:
                return FormatCode.DECIMAL64;
            case DECIMAL128:
                return FormatCode.DECIMAL128;
            case CHAR:
                return FormatCode.CHAR;
            case TIMESTAMP:
                return FormatCode.TIMESTAMP;
            case UUID:
                return FormatCode.UUID;
            case BINARY:
                return compact && all(es, e -> ((Bin) e).bytes().length <= 255) ? FormatCode.VBIN8 : FormatCode.VBIN32;
            case STRING:
                return compact && all(es, e -> ((Str) e).value().getBytes(StandardCharsets.UTF_8).length <= 255)
                        ? FormatCode.STR8 : FormatCode.STR32;
            case SYMBOL:
                return compact && all(es, e -> ((Sym) e).value().length() <= 255) ? FormatCode.SYM8 : FormatCode.SYM32;
            case LIST:
                return compact && all(es, e -> fitsShortForm(e, FormatCode.LIST8)) ? FormatCode.LIST8 : FormatCode.LIST32;
            case MAP:
                return compact && all(es, e -> fitsShortForm(e, FormatCode.MAP8)) ? FormatCode.MAP8 : FormatCode.MAP32;
            case ARRAY:
                return compact && all(es, e -> fitsShortForm(e, FormatCode.ARRAY8)) ? FormatCode.ARRAY8 : FormatCode.ARRAY32;
            default:
                throw new IllegalArgumentException("no array of " + a.elementType());
        }
    }

    /** Whether a compound element fits the 8-bit size and count of {@code code8}, measured by encoding it alone. */
    private boolean fitsShortForm(AmqpValue element, int code8) {
        // A compound alone takes its short form exactly when it fits one; list0 means empty, which list8 holds.
        // Nested arrays alone always get the widest element codes, which bounds the size they take inside.
        byte[] alone = encode(element, new Random(0), ArrayCodes.WIDE);
        int c = alone[0] & 0xFF;
        return c == code8 || c == FormatCode.LIST0;
    }

    private interface Test {
        boolean holds(AmqpValue v);
    }

    private static boolean all(List<AmqpValue> values, Test test) {
        for (AmqpValue v : values) {
            if (!test.holds(v)) {
                return false;
            }
        }
        return true;
    }
}
