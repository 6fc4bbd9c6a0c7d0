package io.amqpservlet.protocol.codec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Generates random {@link AmqpValue}s from a seed, biased towards the values where encodings change width
 * (0, 255, 256, min and max of every integer width, the str8/str32 boundary, NaN payloads, ...). A
 * {@link Profile} leaves out what a peer implementation cannot represent, so that the same generator feeds the
 * differential tests against each peer.
 */
final class RandomValues {
    /**
     * What to generate.
     *
     * @param supplementaryChars chars above U+FFFF (both peers hold a char in a Java {@code char})
     * @param anyDescriptor described values whose descriptor is not a ulong or symbol, and whose value is itself
     *                      described (proton-j rejects both)
     * @param arraysOfNull arrays whose elements are null (zero-width elements that peers refuse)
     * @param emptyDescribedArrays described arrays with no elements (a peer that returns Java arrays of
     *                             described objects cannot say what the element type was)
     * @param arraysOfCompounds arrays of lists, maps and arrays
     * @param describedArrays arrays with a described element constructor
     * @param emptyArraysOfCompounds empty arrays of lists, maps or arrays (a peer's empty Java array of them may
     *                               have no element type)
     * @param maxDepth most compounds nested in one value
     */
    record Profile(boolean supplementaryChars, boolean anyDescriptor, boolean arraysOfNull,
                   boolean emptyDescribedArrays, boolean arraysOfCompounds, boolean describedArrays,
                   boolean emptyArraysOfCompounds, int maxDepth) {
        static final Profile EVERYTHING = new Profile(true, true, true, true, true, true, true, 4);
    }

    private static final AmqpType[] SCALARS = {
        AmqpType.NULL, AmqpType.BOOLEAN, AmqpType.UBYTE, AmqpType.USHORT, AmqpType.UINT, AmqpType.ULONG,
        AmqpType.BYTE, AmqpType.SHORT, AmqpType.INT, AmqpType.LONG, AmqpType.FLOAT, AmqpType.DOUBLE,
        AmqpType.DECIMAL32, AmqpType.DECIMAL64, AmqpType.DECIMAL128, AmqpType.CHAR, AmqpType.TIMESTAMP,
        AmqpType.UUID, AmqpType.BINARY, AmqpType.STRING, AmqpType.SYMBOL,
    };

    private final Random random;
    private final Profile profile;

    RandomValues(long seed, Profile profile) {
        this.random = new Random(seed);
        this.profile = profile;
    }

    Random random() {
        return random;
    }

    /** Any value: a scalar, or a compound nested up to the profile's depth. */
    AmqpValue value() {
        return value(0);
    }

    private AmqpValue value(int depth) {
        if (depth >= profile.maxDepth() || random.nextInt(10) < 5) {
            return scalar(SCALARS[random.nextInt(SCALARS.length)]);
        }
        switch (random.nextInt(4)) {
            case 0:
                return list(depth);
            case 1:
                return map(depth);
            case 2:
                return array(depth);
            default:
                return described(depth);
        }
    }

    private int count(int depth) {
        // Mostly small; sometimes, near the top so that values stay small, across the 255-element boundary of
        // the 8-bit count fields.
        switch (random.nextInt(10)) {
            case 0:
                return depth <= 1 ? 250 + random.nextInt(12) : random.nextInt(3);
            case 1:
                return 0;
            default:
                return random.nextInt(8);
        }
    }

    AmqpValue list(int depth) {
        int n = count(depth);
        List<AmqpValue> es = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            es.add(value(depth + 1));
        }
        return new AmqpValue.ListV(es);
    }

    AmqpValue map(int depth) {
        int n = count(depth);
        // Keys are distinct scalars: peers hold maps as Java maps, which keep one entry per key.
        Set<AmqpValue> keys = new HashSet<>();
        List<AmqpValue> kv = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            AmqpValue k = scalar(random.nextBoolean() ? AmqpType.SYMBOL : SCALARS[1 + random.nextInt(SCALARS.length - 1)]);
            // No float keys (NaN) and no timestamp keys (protonj2 reads a timestamp as the same Long as a long).
            if (!(k instanceof AmqpValue.F32) && !(k instanceof AmqpValue.F64) && !(k instanceof AmqpValue.Timestamp)
                    && keys.add(k)) {
                kv.add(k);
                kv.add(value(depth + 1));
            }
        }
        return new AmqpValue.MapV(kv);
    }

    AmqpValue described(int depth) {
        return new AmqpValue.Described(descriptor(), profile.anyDescriptor() ? value(depth + 1) : undescribed(depth + 1));
    }

    private AmqpValue undescribed(int depth) {
        AmqpValue v;
        do {
            v = value(depth);
        } while (v instanceof AmqpValue.Described);
        return v;
    }

    /**
     * A ulong or symbol descriptor (or, when the profile allows, any value) that no AMQP-defined type uses, so that
     * peers with registered types for performatives and sections return their generic described type.
     */
    AmqpValue descriptor() {
        switch (random.nextInt(profile.anyDescriptor() ? 5 : 4)) {
            case 0:
                return new AmqpValue.ULong(0x80 + random.nextInt(0x80)); // smallulong
            case 1:
                return new AmqpValue.ULong(random.nextLong() | 0x1_0000_0000L); // beyond the 32-bit domain/id codes
            case 2:
                return new AmqpValue.Sym("test:" + ascii(random.nextInt(20)));
            case 3:
                return new AmqpValue.Sym("test:" + ascii(250 + random.nextInt(10))); // sym8 and sym32
            default:
                return scalar(AmqpType.INT);
        }
    }

    AmqpValue array(int depth) {
        AmqpType t;
        do {
            t = random.nextInt(5) == 0 && profile.arraysOfCompounds() && depth + 1 < profile.maxDepth()
                    ? new AmqpType[] {AmqpType.LIST, AmqpType.MAP, AmqpType.ARRAY}[random.nextInt(3)]
                    : SCALARS[random.nextInt(SCALARS.length)];
        } while (t == AmqpType.NULL && !profile.arraysOfNull());
        return array(t, depth);
    }

    AmqpValue array(AmqpType elementType, int depth) {
        AmqpValue descriptor = profile.describedArrays() && random.nextInt(4) == 0 ? arrayDescriptor() : null;
        int n = count(depth);
        if (n == 0 && ((descriptor != null && !profile.emptyDescribedArrays())
                || (!profile.emptyArraysOfCompounds()
                        && (elementType == AmqpType.LIST || elementType == AmqpType.MAP || elementType == AmqpType.ARRAY)))) {
            n = 1;
        }
        List<AmqpValue> es = new ArrayList<>(n);
        // The elements of an array of arrays all share one inner element type, as a peer's Java array would.
        AmqpType inner = null;
        for (int i = 0; i < n; i++) {
            switch (elementType) {
                case LIST:
                    es.add(list(depth + 1));
                    break;
                case MAP:
                    es.add(map(depth + 1));
                    break;
                case ARRAY:
                    if (inner == null) {
                        do {
                            inner = SCALARS[random.nextInt(SCALARS.length)];
                        } while (inner == AmqpType.NULL && !profile.arraysOfNull());
                    }
                    AmqpValue a = array(inner, depth + 1);
                    // Inner arrays are not described here: a described array element would need its own
                    // descriptor, which a peer's nested Java arrays cannot carry.
                    es.add(new AmqpValue.ArrayV(inner, null, ((AmqpValue.ArrayV) a).elements()));
                    break;
                default:
                    es.add(scalar(elementType));
            }
        }
        return new AmqpValue.ArrayV(elementType, descriptor, es);
    }

    private AmqpValue arrayDescriptor() {
        return random.nextBoolean() ? new AmqpValue.ULong(0x80 + random.nextInt(0x80))
                : new AmqpValue.Sym("test:" + ascii(random.nextInt(12)));
    }

    AmqpValue scalar(AmqpType t) {
        Random r = random;
        switch (t) {
            case NULL:
                return AmqpValue.NULL;
            case BOOLEAN:
                return new AmqpValue.Bool(r.nextBoolean());
            case UBYTE:
                return new AmqpValue.UByte((int) integral(8) & 0xFF);
            case USHORT:
                return new AmqpValue.UShort((int) integral(16) & 0xFFFF);
            case UINT:
                return new AmqpValue.UInt(integral(32) & 0xFFFFFFFFL);
            case ULONG:
                return new AmqpValue.ULong(integral(64));
            case BYTE:
                return new AmqpValue.I8((byte) integral(8));
            case SHORT:
                return new AmqpValue.I16((short) integral(16));
            case INT:
                return new AmqpValue.I32((int) integral(32));
            case LONG:
                return new AmqpValue.I64(integral(64));
            case FLOAT:
                return new AmqpValue.F32(r.nextInt(4) == 0 ? Float.floatToRawIntBits(SPECIAL_FLOATS[r.nextInt(SPECIAL_FLOATS.length)]) : r.nextInt());
            case DOUBLE:
                return new AmqpValue.F64(r.nextInt(4) == 0 ? Double.doubleToRawLongBits(SPECIAL_DOUBLES[r.nextInt(SPECIAL_DOUBLES.length)]) : r.nextLong());
            case DECIMAL32:
                return new AmqpValue.Dec32(r.nextInt());
            case DECIMAL64:
                return new AmqpValue.Dec64(r.nextLong());
            case DECIMAL128:
                return new AmqpValue.Dec128(r.nextLong(), r.nextLong());
            case CHAR:
                return new AmqpValue.Char(codePoint(profile.supplementaryChars()));
            case TIMESTAMP:
                return new AmqpValue.Timestamp(integral(64));
            case UUID:
                return new AmqpValue.Uuid(r.nextLong(), r.nextLong());
            case BINARY: {
                byte[] b = new byte[length()];
                r.nextBytes(b);
                return new AmqpValue.Bin(b);
            }
            case STRING:
                return new AmqpValue.Str(text(length()));
            case SYMBOL:
                return new AmqpValue.Sym(ascii(length()));
            default:
                throw new IllegalArgumentException(t.toString());
        }
    }

    private static final float[] SPECIAL_FLOATS = {
        0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7FC00001), Float.intBitsToFloat(0xFFC12345),
        Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE,
    };
    private static final double[] SPECIAL_DOUBLES = {
        0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7FF8000000000001L), Double.longBitsToDouble(0xFFF8123456789ABCL),
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE,
    };

    /** A value of {@code bits} width, often one at an encoding boundary. */
    private long integral(int bits) {
        long v;
        switch (random.nextInt(8)) {
            case 0:
                v = new long[] {0, 1, -1, 127, 128, -128, -129, 255, 256}[random.nextInt(9)];
                break;
            case 1:
                v = random.nextBoolean() ? -1L << (bits - 1) : ~(-1L << (bits - 1)); // min and max
                break;
            case 2:
                v = random.nextInt(256) - 128;
                break;
            default:
                v = random.nextLong();
        }
        return bits == 64 ? v : (v << (64 - bits)) >> (64 - bits);
    }

    private int length() {
        switch (random.nextInt(10)) {
            case 0:
                return 250 + random.nextInt(12); // around the 8-bit size boundary
            case 1:
                return 0;
            default:
                return random.nextInt(12);
        }
    }

    String ascii(int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) (0x20 + random.nextInt(0x5F));
        }
        return new String(c);
    }

    /** Text of about {@code n} code points mixing 1-, 2-, 3- and 4-byte UTF-8. */
    String text(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.appendCodePoint(codePoint(true));
        }
        return sb.toString();
    }

    private int codePoint(boolean supplementary) {
        int cp;
        switch (random.nextInt(supplementary ? 5 : 4)) {
            case 0:
            case 1:
                return random.nextInt(0x80);
            case 2:
                return 0x80 + random.nextInt(0x800 - 0x80);
            case 3:
                do {
                    cp = 0x800 + random.nextInt(0x10000 - 0x800);
                } while (cp >= 0xD800 && cp <= 0xDFFF);
                return cp;
            default:
                return 0x10000 + random.nextInt(0x110000 - 0x10000);
        }
    }
}
