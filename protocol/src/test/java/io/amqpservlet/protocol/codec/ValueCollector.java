package io.amqpservlet.protocol.codec;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An {@link AmqpHandler} that turns what an {@link AmqpScanner} walks into {@link AmqpValue}s, so that the
 * reader under test can be compared with the model. Every scalar is read with the getter its type calls for, and
 * strings and symbols are validated by decoding them.
 */
final class ValueCollector implements AmqpHandler {
    private static final class Open {
        final AmqpType type;
        final AmqpType elementType;
        final AmqpValue arrayDescriptor;
        final List<AmqpValue> items = new ArrayList<>();

        Open(AmqpType type, AmqpType elementType, AmqpValue arrayDescriptor) {
            this.type = type;
            this.elementType = elementType;
            this.arrayDescriptor = arrayDescriptor;
        }
    }

    private final List<AmqpValue> values = new ArrayList<>();
    private final Deque<Open> open = new ArrayDeque<>();

    /** Every value in {@code bytes}, decoded with a reader of the default limits. */
    static List<AmqpValue> decodeAll(byte[] bytes) {
        return decodeAll(bytes, 0, bytes.length);
    }

    static List<AmqpValue> decodeAll(byte[] bytes, int offset, int length) {
        ValueCollector c = new ValueCollector();
        new AmqpScanner().scan(bytes, offset, length, c);
        if (!c.open.isEmpty()) {
            throw new AssertionError("the scan ended with compounds open");
        }
        return c.values;
    }

    /** The one value in {@code bytes}. */
    static AmqpValue decodeOne(byte[] bytes) {
        List<AmqpValue> all = decodeAll(bytes);
        if (all.size() != 1) {
            throw new AssertionError("expected one value, decoded " + all);
        }
        return all.get(0);
    }

    private void add(AmqpValue v) {
        if (open.isEmpty()) {
            values.add(v);
        } else {
            open.peek().items.add(v);
        }
    }

    @Override
    public void onScalar(AmqpReader r) {
        add(scalar(r));
    }

    static AmqpValue scalar(AmqpReader r) {
        switch (r.type()) {
            case NULL:
                return AmqpValue.NULL;
            case BOOLEAN:
                return new AmqpValue.Bool(r.getBoolean());
            case UBYTE:
                return new AmqpValue.UByte((int) r.getLong());
            case USHORT:
                return new AmqpValue.UShort((int) r.getLong());
            case UINT:
                return new AmqpValue.UInt(r.getUnsignedInt());
            case ULONG:
                return new AmqpValue.ULong(r.getLong());
            case BYTE:
                return new AmqpValue.I8((byte) r.getInt());
            case SHORT:
                return new AmqpValue.I16((short) r.getInt());
            case INT:
                return new AmqpValue.I32(r.getInt());
            case LONG:
                return new AmqpValue.I64(r.getLong());
            case FLOAT:
                return new AmqpValue.F32(Float.floatToRawIntBits(r.getFloat()));
            case DOUBLE:
                return new AmqpValue.F64(Double.doubleToRawLongBits(r.getDouble()));
            case DECIMAL32:
                return new AmqpValue.Dec32(r.getDecimal32Bits());
            case DECIMAL64:
                return new AmqpValue.Dec64(r.getDecimal64Bits());
            case DECIMAL128:
                return new AmqpValue.Dec128(r.getDecimal128High(), r.getDecimal128Low());
            case CHAR:
                return new AmqpValue.Char(r.getChar());
            case TIMESTAMP:
                return new AmqpValue.Timestamp(r.getTimestamp());
            case UUID:
                return new AmqpValue.Uuid(r.getUuidMostSignificantBits(), r.getUuidLeastSignificantBits());
            case BINARY:
                return new AmqpValue.Bin(r.getBytes());
            case STRING:
                return new AmqpValue.Str(r.getString());
            case SYMBOL:
                return new AmqpValue.Sym(r.getString());
            default:
                throw new AssertionError("not a scalar: " + r);
        }
    }

    @Override
    public boolean onListStart(AmqpReader r) {
        open.push(new Open(AmqpType.LIST, null, null));
        return true;
    }

    @Override
    public void onListEnd(AmqpReader r) {
        add(new AmqpValue.ListV(open.pop().items));
    }

    @Override
    public boolean onMapStart(AmqpReader r) {
        open.push(new Open(AmqpType.MAP, null, null));
        return true;
    }

    @Override
    public void onMapEnd(AmqpReader r) {
        add(new AmqpValue.MapV(open.pop().items));
    }

    @Override
    public boolean onArrayStart(AmqpReader r) {
        AmqpValue descriptor = null;
        if (r.isDescribedArray()) {
            // The descriptor is a complete encoded value inside the array's constructor: read it on its own.
            int at = r.arrayDescriptorOffset();
            AmqpReader d = new AmqpReader().wrap(r.buffer(), at, r.valueOffset() - at);
            ValueCollector c = new ValueCollector();
            new AmqpScanner(d).scanNext(c);
            descriptor = c.values.get(0);
        }
        open.push(new Open(AmqpType.ARRAY, FormatCode.type(r.arrayElementCode()), descriptor));
        return true;
    }

    @Override
    public void onArrayEnd(AmqpReader r) {
        Open a = open.pop();
        add(new AmqpValue.ArrayV(a.elementType, a.arrayDescriptor, a.items));
    }

    @Override
    public boolean onDescribedStart(AmqpReader r) {
        open.push(new Open(AmqpType.DESCRIBED, null, null));
        return true;
    }

    @Override
    public void onDescribedEnd(AmqpReader r) {
        List<AmqpValue> dv = open.pop().items;
        add(new AmqpValue.Described(dv.get(0), dv.get(1)));
    }
}
