package io.amqpservlet.protocol.value;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.DecodeLimitException;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.message.BodySections;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.Symbol;

import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Decodes an encoded AMQP value into Java objects, for code that wants a value whole rather than through the
 * {@link AmqpReader} cursor (a servlet reading a typed request body). Unlike the cursor this allocates: one object
 * per value, so the number of values one call may make is bounded ({@code maxValues}) on top of the reader's
 * {@link io.amqpservlet.protocol.codec.DecoderLimits} (a 16 MiB message of empty lists would otherwise become
 * sixteen million {@code ArrayList}s).
 *
 * <table>
 * <caption>AMQP type → Java type</caption>
 * <tr><th>AMQP</th><th>Java</th></tr>
 * <tr><td>null</td><td>{@code null}</td></tr>
 * <tr><td>boolean</td><td>{@code Boolean}</td></tr>
 * <tr><td>ubyte, ushort, uint, ulong</td><td>{@link UnsignedByte}, {@link UnsignedShort}, {@link UnsignedInteger},
 *     {@link UnsignedLong}</td></tr>
 * <tr><td>byte, short, int, long</td><td>{@code Byte}, {@code Short}, {@code Integer}, {@code Long}</td></tr>
 * <tr><td>float, double</td><td>{@code Float}, {@code Double}</td></tr>
 * <tr><td>decimal32, decimal64, decimal128</td><td>{@link Decimal32}, {@link Decimal64}, {@link Decimal128}</td></tr>
 * <tr><td>char</td><td>{@link AmqpChar}</td></tr>
 * <tr><td>timestamp</td><td>{@code java.util.Date}</td></tr>
 * <tr><td>uuid</td><td>{@code java.util.UUID}</td></tr>
 * <tr><td>binary</td><td>{@code byte[]}</td></tr>
 * <tr><td>string</td><td>{@code String}</td></tr>
 * <tr><td>symbol</td><td>{@link Symbol}</td></tr>
 * <tr><td>list</td><td>{@code java.util.List} (an {@code ArrayList})</td></tr>
 * <tr><td>map</td><td>{@code java.util.Map} (a {@code LinkedHashMap}, in encoding order; a repeated key keeps its
 *     last value)</td></tr>
 * <tr><td>array</td><td>{@link AmqpArray}</td></tr>
 * <tr><td>described</td><td>{@link Described}</td></tr>
 * </table>
 */
public final class ValueDecoder {
    private int budget;
    /** Reads array descriptors; used by the outermost described array only (its descriptor may nest one). */
    private AmqpReader descriptors;
    private boolean descriptorsInUse;

    private ValueDecoder(int maxValues) {
        this.budget = maxValues;
    }

    /**
     * Decodes the value the reader is on (after {@link AmqpReader#next()}), leaving the reader after it.
     *
     * @param reader a reader positioned on a value
     * @param maxValues the most values (scalars, compounds and their elements, descriptors) to decode
     * @return the value as Java objects (see the table above)
     * @throws io.amqpservlet.protocol.codec.DecodeException when the bytes are malformed, or
     *         {@link DecodeLimitException} when they hold more than {@code maxValues} values
     */
    public static Object decode(AmqpReader reader, int maxValues) {
        return new ValueDecoder(maxValues).value(reader);
    }

    /**
     * Decodes the body of a message that is an amqp-value (its value) or amqp-sequence sections (one {@code List}
     * holding the elements of every section in order: AMQP 1.0 §3.2.7 gives the section boundaries no meaning).
     *
     * @param message a message view
     * @param reader a reader to decode with (repositioned)
     * @param maxValues the most values to decode
     * @return the body's value; {@code null} for an amqp-value null
     * @throws IllegalArgumentException when the body is data sections or absent
     * @throws io.amqpservlet.protocol.codec.DecodeException when the bytes are malformed or exceed a limit
     */
    public static Object decodeBody(MessageView message, AmqpReader reader, int maxValues) {
        BodySections body = message.body();
        ValueDecoder decoder = new ValueDecoder(maxValues);
        if (body.kind() == MessageSection.AMQP_VALUE) {
            message.positionOnAmqpValue(reader);
            return decoder.value(reader);
        }
        if (body.kind() != MessageSection.AMQP_SEQUENCE) {
            throw new IllegalArgumentException("the body is " + body.kind() + ", not an amqp-value or amqp-sequence");
        }
        List<Object> all = new ArrayList<>();
        for (int i = 0; i < body.count(); i++) {
            message.positionOnBodySection(i, reader);
            if (reader.type() != AmqpType.LIST) {
                throw new UnexpectedTypeException("an amqp-sequence section holds a " + reader.type()
                        + ", not a list (AMQP 1.0 §3.2.7)", reader.valueStart());
            }
            reader.enter();
            while (reader.hasNext()) {
                reader.next();
                all.add(decoder.value(reader));
            }
            reader.exit();
        }
        return all;
    }

    private void spend(AmqpReader reader) {
        if (--budget < 0) {
            throw new DecodeLimitException("more values than the decoder may make", reader.valueStart());
        }
    }

    private Object value(AmqpReader r) {
        spend(r);
        AmqpType type = r.type();
        switch (type) {
            case NULL:
                return null;
            case BOOLEAN:
                return r.getBoolean();
            case UBYTE:
                return new UnsignedByte((int) r.getLong());
            case USHORT:
                return new UnsignedShort((int) r.getLong());
            case UINT:
                return new UnsignedInteger(r.getLong());
            case ULONG:
                return new UnsignedLong(r.getLong());
            case BYTE:
                return (byte) r.getLong();
            case SHORT:
                return (short) r.getLong();
            case INT:
                return r.getInt();
            case LONG:
                return r.getLong();
            case FLOAT:
                return r.getFloat();
            case DOUBLE:
                return r.getDouble();
            case DECIMAL32:
                return new Decimal32(r.getDecimal32Bits());
            case DECIMAL64:
                return new Decimal64(r.getDecimal64Bits());
            case DECIMAL128:
                return new Decimal128(r.getDecimal128High(), r.getDecimal128Low());
            case CHAR:
                return new AmqpChar(r.getChar());
            case TIMESTAMP:
                return new Date(r.getTimestamp());
            case UUID:
                return new UUID(r.getUuidMostSignificantBits(), r.getUuidLeastSignificantBits());
            case BINARY:
                return r.getBytes();
            case STRING:
                return r.getString();
            case SYMBOL:
                return Symbol.of(r.getString());
            case LIST:
                return list(r);
            case MAP:
                return map(r);
            case ARRAY:
                return array(r);
            case DESCRIBED:
                return described(r);
            default:
                throw new IllegalStateException("no Java form for " + type);
        }
    }

    private List<Object> list(AmqpReader r) {
        List<Object> out = new ArrayList<>(Math.min(r.count(), 64));
        r.enter();
        while (r.hasNext()) {
            r.next();
            out.add(value(r));
        }
        r.exit();
        return out;
    }

    private Map<Object, Object> map(AmqpReader r) {
        Map<Object, Object> out = new LinkedHashMap<>();
        r.enter();
        while (r.hasNext()) {
            r.next();
            Object key = value(r);
            r.next();
            out.put(key, value(r));
        }
        r.exit();
        return out;
    }

    private Described described(AmqpReader r) {
        r.enter();
        r.next();
        Object descriptor = value(r);
        r.next();
        Object value = value(r);
        r.exit();
        return new Described(descriptor, value);
    }

    private AmqpArray array(AmqpReader r) {
        int elementCode = r.arrayElementCode();
        Object descriptor = null;
        boolean described = r.isDescribedArray();
        if (described) {
            // AMQP 1.0 §1.2: one descriptor in the array's constructor describes every element.
            boolean own = !descriptorsInUse;
            AmqpReader d;
            if (own) {
                if (descriptors == null) {
                    descriptors = new AmqpReader(r.limits());
                }
                d = descriptors;
                descriptorsInUse = true;
            } else {
                d = new AmqpReader(r.limits()); // a described array inside a descriptor: rare
            }
            try {
                int at = r.arrayDescriptorOffset();
                d.wrap(r.buffer(), at, r.valueEnd() - at).next();
                descriptor = value(d);
            } finally {
                if (own) {
                    descriptorsInUse = false;
                }
            }
        }
        List<Object> elements = new ArrayList<>(Math.min(r.count(), 64));
        r.enter();
        while (r.hasNext()) {
            r.next();
            Object element = value(r);
            elements.add(described ? new Described(descriptor, element) : element);
        }
        r.exit();
        return new AmqpArray(described ? AmqpType.DESCRIBED : FormatCode.type(elementCode), elements);
    }
}
