package io.amqpservlet.protocol.json;

import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeLimitException;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.text.HexDigits;
import io.amqpservlet.protocol.text.Utf8;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Reads JSON text (RFC 8259, UTF-8) and writes it as one AMQP value with an {@link AmqpWriter}, following
 * docs/mapping.md's "Typed bodies" table: objects become maps with string keys, arrays lists, strings strings,
 * {@code true}/{@code false} booleans, {@code null} null, a number without fraction or exponent a {@code long}
 * (a {@code ulong} above {@link Long#MAX_VALUE}, a {@code double} beyond 2<sup>64</sup>-1), any other number a
 * {@code double}; and an object of exactly one member named by a tag ({@code {"$uint": 5}},
 * {@code {"$uuid": "..."}}, ...) the value of that tag's type. Both {@link JsonForm}s read back this way.
 *
 * <p>Hand-written and scoped to this mapping, so that the codec keeps no dependencies. The bounds of
 * {@link DecoderLimits} apply as they do to the AMQP value made: nesting depth (every list, map, array and described
 * value counts, as {@link io.amqpservlet.protocol.codec.AmqpReader} counts them; a tag's own object and a
 * {@code $map} pair do not) and elements per list, map or array; the text's length is the caller's to bound. Duplicate names in an object are an error (AMQP 1.0
 * §1.6.23: a map's keys are distinct). Not thread-safe; one instance may be reused.
 *
 * <pre>{@code
 * new JsonToAmqp().write(json, 0, json.length, writer);   // writer.array() now holds the AMQP value
 * }</pre>
 */
public final class JsonToAmqp {
    private final DecoderLimits limits;
    private byte[] in;
    private int pos;
    private int end;
    private int depth;
    private AmqpWriter out;
    /** A JSON string's content, unescaped, as UTF-8. */
    private byte[] text = new byte[64];
    private int textLength;

    /** A reader with {@link DecoderLimits#DEFAULT}. */
    public JsonToAmqp() {
        this(DecoderLimits.DEFAULT);
    }

    /**
     * A reader that enforces {@code limits}.
     *
     * @param limits nesting depth and elements per compound
     */
    public JsonToAmqp(DecoderLimits limits) {
        this.limits = limits;
    }

    /**
     * {@return the AMQP encoding of the JSON text {@code json}}
     *
     * @param json JSON text
     * @throws MalformedJsonException when it is not JSON or a tag's content is wrong
     */
    public static byte[] toAmqp(String json) {
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        AmqpWriter writer = new AmqpWriter();
        new JsonToAmqp().write(utf8, 0, utf8.length, writer);
        return writer.toByteArray();
    }

    /**
     * Reads the JSON text in {@code json[offset, offset + length)} (one value, with optional white space around it)
     * and writes it to {@code writer} as one AMQP value. On an error, what was written of it is left in the writer:
     * truncate it back ({@link AmqpWriter#truncate(int)}) to drop it.
     *
     * @param json holds the JSON text, UTF-8
     * @param offset where it starts
     * @param length its length in bytes
     * @param writer where the AMQP value goes
     * @throws MalformedJsonException when the text is not JSON or not UTF-8, or a tag's content does not fit its
     *         type; offsets are into {@code json}
     * @throws DecodeLimitException when it nests deeper, or holds more elements in one compound, than the limits
     */
    public void write(byte[] json, int offset, int length, AmqpWriter writer) {
        if (offset < 0 || length < 0 || offset + length > json.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + length + " of " + json.length);
        }
        int bad = Utf8.firstInvalid(json, offset, length);
        if (bad >= 0) {
            throw new MalformedJsonException("JSON text is not UTF-8", bad);
        }
        in = json;
        pos = offset;
        end = offset + length;
        depth = 0;
        out = writer;
        try {
            skipSpace();
            value();
            skipSpace();
            if (pos < end) {
                throw malformed("text after the JSON value");
            }
        } catch (IllegalArgumentException e) {
            // A value the writer refused, such as an element that does not fit its array's type.
            throw new MalformedJsonException(e.getMessage(), pos);
        } finally {
            in = null;
            out = null;
        }
    }

    // ------------------------------------------------------------------------------------------ values

    private void value() {
        if (pos >= end) {
            throw malformed("the JSON text ends where a value should be");
        }
        switch (in[pos]) {
            case '{':
                object();
                return;
            case '[':
                list();
                return;
            case '"':
                string();
                out.writeStringUtf8(text, 0, textLength);
                return;
            case 't':
                literal("true");
                out.writeBoolean(true);
                return;
            case 'f':
                literal("false");
                out.writeBoolean(false);
                return;
            case 'n':
                literal("null");
                out.writeNull();
                return;
            default:
                number();
        }
    }

    private void number() {
        int start = pos;
        boolean integer = scanNumber();
        if (integer) {
            long v = parseLong(start, pos);
            if (v != Long.MIN_VALUE || isMinLong(start)) {
                out.writeLong(v);
                return;
            }
            if (in[start] != '-') {
                String digits = ascii(start, pos);
                try {
                    out.writeULong(Long.parseUnsignedLong(digits));
                    return;
                } catch (NumberFormatException beyondUlong) {
                    // beyond 2^64-1: a double, as JSON readers commonly do
                }
            }
        }
        out.writeDouble(Double.parseDouble(ascii(start, pos)));
    }

    private void list() {
        enter();
        pos++; // '['
        out.startList();
        int n = 0;
        if (!consume(']')) {
            do {
                skipSpace();
                count(++n);
                value();
                skipSpace();
            } while (consume(','));
            expect(']');
        }
        out.endList();
        depth--;
    }

    private void object() {
        pos++; // '{'
        int afterBrace = pos;
        skipSpace();
        if (pos < end && in[pos] == '"') {
            int keyAt = pos;
            string();
            JsonTag tag = JsonTag.of(text, 0, textLength);
            if (tag != null) {
                skipSpace();
                expect(':');
                skipSpace();
                int valueAt = pos;
                pos = skipValue(pos);
                skipSpace();
                if (pos < end && in[pos] == '}') {
                    // Exactly one member, named by a tag: the tagged value.
                    pos = valueAt;
                    tagged(tag);
                    skipSpace();
                    expect('}');
                    return;
                }
            }
            pos = keyAt;
        } else {
            pos = afterBrace;
        }
        enter();
        map();
        depth--;
    }

    /** A JSON object as a map with string keys; {@code pos} is after its '{'. */
    private void map() {
        out.startMap();
        skipSpace();
        if (!consume('}')) {
            Set<String> names = null;
            String first = null;
            int n = 0;
            do {
                skipSpace();
                count(n += 2);
                int at = pos;
                if (pos >= end || in[pos] != '"') {
                    throw malformed("an object member must start with its name in quotes");
                }
                string();
                String name = new String(text, 0, textLength, StandardCharsets.UTF_8);
                if (first == null) {
                    first = name;
                } else {
                    if (names == null) {
                        names = new HashSet<>();
                        names.add(first);
                    }
                    if (!names.add(name)) {
                        throw new MalformedJsonException("duplicate name \"" + name + "\" in an object", at);
                    }
                }
                out.writeStringUtf8(text, 0, textLength);
                skipSpace();
                expect(':');
                skipSpace();
                value();
                skipSpace();
            } while (consume(','));
            expect('}');
        }
        out.endMap();
    }

    // ------------------------------------------------------------------------------------------ tagged values

    /** The content of a tagged object: what follows {@code "$tag":}. */
    private void tagged(JsonTag tag) {
        switch (tag) {
            case MAP:
                pairs();
                return;
            case ARRAY:
                array();
                return;
            case DESCRIBED:
                described();
                return;
            default:
                bare(typeOf(tag));
        }
    }

    private static AmqpType typeOf(JsonTag tag) {
        return AmqpType.valueOf(tag.name());
    }

    /** {@code [[key, value], ...]}: a map whose keys may be any value. */
    private void pairs() {
        enter();
        expect('[');
        out.startMap();
        skipSpace();
        int n = 0;
        if (!consume(']')) {
            do {
                skipSpace();
                count(n += 2);
                expect('['); // a pair is not an AMQP compound: it does not count as nesting
                skipSpace();
                value();
                skipSpace();
                expect(',');
                skipSpace();
                value();
                skipSpace();
                expect(']');
                skipSpace();
            } while (consume(','));
            expect(']');
        }
        out.endMap();
        depth--;
    }

    /** {@code ["type", element, ...]}: an AMQP array, each element in its bare form. */
    private void array() {
        enter();
        expect('[');
        skipSpace();
        int at = pos;
        if (pos >= end || in[pos] != '"') {
            throw malformed("an array starts with its element type's name");
        }
        string();
        AmqpType type = elementType(new String(text, 0, textLength, StandardCharsets.US_ASCII), at);
        // The elements are not known ahead: the 32-bit form of a variable-width type always fits.
        out.startArray(type.arrayElementCode(false));
        skipSpace();
        int n = 0;
        while (consume(',')) {
            skipSpace();
            count(++n);
            bare(type);
            skipSpace();
        }
        expect(']');
        out.endArray();
        depth--;
    }

    private static AmqpType elementType(String name, int at) {
        if (name.equals(name.toLowerCase(Locale.ROOT))) {
            try {
                AmqpType t = AmqpType.valueOf(name.toUpperCase(Locale.ROOT));
                if (t != AmqpType.DESCRIBED) {
                    return t;
                }
            } catch (IllegalArgumentException unknown) {
                // reported below
            }
        }
        throw new MalformedJsonException("\"" + name + "\" is not an AMQP type an array may hold", at);
    }

    /**
     * {@code [descriptor, value]}. A plain integer from 0 to 2<sup>64</sup>-1 as descriptor is a ulong and a plain
     * string a symbol (AMQP 1.0 §1.5: the two kinds of descriptor; a string that is not ASCII stays a string); any
     * other JSON value is read as usual.
     */
    private void described() {
        enter();
        expect('[');
        skipSpace();
        if (pos < end && in[pos] == '"') {
            string();
            out.startDescribed();
            if (Utf8.isAscii(text, 0, textLength)) {
                out.writeSymbolAscii(text, 0, textLength);
            } else {
                out.writeStringUtf8(text, 0, textLength); // not a symbol: a (reserved) string descriptor
            }
        } else if (pos < end && in[pos] >= '0' && in[pos] <= '9' && isUnsigned64()) {
            int start = pos;
            scanNumber();
            out.writeDescriptor(unsigned64(start, pos));
        } else {
            out.startDescribed();
            value();
        }
        skipSpace();
        expect(',');
        skipSpace();
        value();
        skipSpace();
        expect(']');
        depth--;
    }

    /** One value of {@code type} in the form that follows its tag (or stands in an array of that type). */
    private void bare(AmqpType type) {
        int at = pos;
        switch (type) {
            case NULL:
                literal("null");
                out.writeNull();
                return;
            case BOOLEAN:
                if (pos < end && in[pos] == 't') {
                    literal("true");
                    out.writeBoolean(true);
                } else {
                    literal("false");
                    out.writeBoolean(false);
                }
                return;
            case UBYTE:
                out.writeUByte((int) integer(0, 0xFF, type));
                return;
            case USHORT:
                out.writeUShort((int) integer(0, 0xFFFF, type));
                return;
            case UINT:
                out.writeUInt((int) integer(0, 0xFFFF_FFFFL, type));
                return;
            case ULONG: {
                int start = pos;
                if (pos >= end || in[pos] < '0' || in[pos] > '9' || !scanNumber()) {
                    throw new MalformedJsonException("a ulong is an integer from 0 to 18446744073709551615", start);
                }
                out.writeULong(unsigned64(start, pos));
                return;
            }
            case BYTE:
                out.writeByte((byte) integer(Byte.MIN_VALUE, Byte.MAX_VALUE, type));
                return;
            case SHORT:
                out.writeShort((short) integer(Short.MIN_VALUE, Short.MAX_VALUE, type));
                return;
            case INT:
                out.writeInt((int) integer(Integer.MIN_VALUE, Integer.MAX_VALUE, type));
                return;
            case LONG:
            case TIMESTAMP: {
                long v = integer(Long.MIN_VALUE, Long.MAX_VALUE, type);
                if (type == AmqpType.LONG) {
                    out.writeLong(v);
                } else {
                    out.writeTimestamp(v);
                }
                return;
            }
            case FLOAT:
                out.writeFloat(Float.parseFloat(floating()));
                return;
            case DOUBLE:
                out.writeDouble(Double.parseDouble(floating()));
                return;
            case DECIMAL32:
                out.writeDecimal32((int) hexString(8, at)[0]);
                return;
            case DECIMAL64:
                out.writeDecimal64(hexString(16, at)[0]);
                return;
            case DECIMAL128: {
                long[] bits = hexString(32, at);
                out.writeDecimal128(bits[0], bits[1]);
                return;
            }
            case CHAR: {
                quoted(type);
                String s = new String(text, 0, textLength, StandardCharsets.UTF_8);
                if (s.isEmpty() || s.codePointCount(0, s.length()) != 1) {
                    throw new MalformedJsonException("a char is a string of one character", at);
                }
                out.writeChar(s.codePointAt(0));
                return;
            }
            case UUID:
                out.writeUuid(uuid(at));
                return;
            case BINARY: {
                quoted(type);
                byte[] bytes;
                try {
                    bytes = Base64.getDecoder().decode(Arrays.copyOf(text, textLength));
                } catch (IllegalArgumentException e) {
                    throw new MalformedJsonException("binary is not base64 (RFC 4648 §4): " + e.getMessage(), at);
                }
                out.writeBinary(bytes);
                return;
            }
            case STRING:
                quoted(type);
                out.writeStringUtf8(text, 0, textLength);
                return;
            case SYMBOL:
                quoted(type);
                if (!Utf8.isAscii(text, 0, textLength)) {
                    throw new MalformedJsonException("a symbol must be ASCII", at);
                }
                out.writeSymbolAscii(text, 0, textLength);
                return;
            case LIST:
            case MAP:
                value(); // the writer refuses anything but a list (map) as an element of a list (map) array
                return;
            case ARRAY:
                array();
                return;
            default:
                throw new MalformedJsonException("no bare form for " + type, at);
        }
    }

    private void quoted(AmqpType type) {
        if (pos >= end || in[pos] != '"') {
            throw malformed("a " + type.name().toLowerCase(Locale.ROOT) + " is written as a string");
        }
        string();
    }

    /** An integer literal in {@code [min, max]}. */
    private long integer(long min, long max, AmqpType type) {
        int start = pos;
        if (pos >= end || (in[pos] != '-' && (in[pos] < '0' || in[pos] > '9')) || !scanNumber()) {
            throw new MalformedJsonException("a " + type.name().toLowerCase(Locale.ROOT) + " is an integer", start);
        }
        long v = parseLong(start, pos);
        if ((v == Long.MIN_VALUE && !isMinLong(start)) || v < min || v > max) {
            throw new MalformedJsonException(ascii(start, pos) + " is out of range for a "
                    + type.name().toLowerCase(Locale.ROOT), start);
        }
        return v;
    }

    /** A float or double: a JSON number, or the string {@code "NaN"}, {@code "Infinity"} or {@code "-Infinity"}. */
    private String floating() {
        int start = pos;
        if (pos < end && in[pos] == '"') {
            string();
            String s = new String(text, 0, textLength, StandardCharsets.US_ASCII);
            if (s.equals("NaN") || s.equals("Infinity") || s.equals("-Infinity")) {
                return s;
            }
            throw new MalformedJsonException("a float or double is a number, \"NaN\", \"Infinity\" or \"-Infinity\"", start);
        }
        if (pos >= end || (in[pos] != '-' && (in[pos] < '0' || in[pos] > '9'))) {
            throw malformed("a float or double is a number");
        }
        scanNumber();
        return ascii(start, pos);
    }

    /** A string of exactly {@code digits} hex digits, as up to two longs (high, then low). */
    private long[] hexString(int digits, int at) {
        if (pos >= end || in[pos] != '"') {
            throw malformed("decimal bits are a string of hex digits");
        }
        string();
        if (textLength != digits) {
            throw new MalformedJsonException("expected " + digits + " hex digits", at);
        }
        long[] bits = new long[2];
        for (int i = 0; i < digits; i++) {
            byte b = text[i];
            if (!HexDigits.isHex(b)) {
                throw new MalformedJsonException("not a hex digit: " + (char) b, at);
            }
            bits[i / 16] = bits[i / 16] << 4 | Character.digit(b, 16);
        }
        return bits;
    }

    /** A UUID in its canonical 8-4-4-4-12 hex form (RFC 9562 §4). */
    private java.util.UUID uuid(int at) {
        if (pos >= end || in[pos] != '"') {
            throw malformed("a uuid is a string");
        }
        string();
        if (textLength != 36) {
            throw new MalformedJsonException("a uuid has 36 characters (8-4-4-4-12 hex digits)", at);
        }
        long msb = 0;
        long lsb = 0;
        for (int i = 0, d = 0; i < 36; i++) {
            byte b = text[i];
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (b != '-') {
                    throw new MalformedJsonException("a uuid has dashes after 8, 12, 16 and 20 hex digits", at);
                }
                continue;
            }
            if (!HexDigits.isHex(b)) {
                throw new MalformedJsonException("not a hex digit in a uuid: " + (char) b, at);
            }
            if (d++ < 16) {
                msb = msb << 4 | Character.digit(b, 16);
            } else {
                lsb = lsb << 4 | Character.digit(b, 16);
            }
        }
        return new java.util.UUID(msb, lsb);
    }

    // ------------------------------------------------------------------------------------------ tokens

    private void enter() {
        if (++depth > limits.maxDepth()) {
            throw new DecodeLimitException("JSON nested deeper than " + limits.maxDepth(), pos);
        }
    }

    private void count(int elements) {
        if (elements > limits.maxElements()) {
            throw new DecodeLimitException("more than " + limits.maxElements() + " elements in one compound", pos);
        }
    }

    /**
     * Moves past a number (RFC 8259 §6: {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}); returns
     * whether it is an integer (no fraction, no exponent).
     */
    private boolean scanNumber() {
        int start = pos;
        if (pos < end && in[pos] == '-') {
            pos++;
        }
        if (pos < end && in[pos] == '0') {
            pos++;
        } else if (!digits()) {
            throw new MalformedJsonException("not a JSON value", start);
        }
        boolean integer = true;
        if (pos < end && in[pos] == '.') {
            pos++;
            integer = false;
            if (!digits()) {
                throw new MalformedJsonException("a fraction needs digits", start);
            }
        }
        if (pos < end && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            integer = false;
            if (pos < end && (in[pos] == '+' || in[pos] == '-')) {
                pos++;
            }
            if (!digits()) {
                throw new MalformedJsonException("an exponent needs digits", start);
            }
        }
        return integer;
    }

    private boolean digits() {
        int start = pos;
        while (pos < end && in[pos] >= '0' && in[pos] <= '9') {
            pos++;
        }
        return pos > start;
    }

    /** The integer literal {@code in[start, stop)}; {@link Long#MIN_VALUE} also when it does not fit a long. */
    private long parseLong(int start, int stop) {
        boolean negative = in[start] == '-';
        int i = negative ? start + 1 : start;
        if (stop - i > 19) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < stop; i++) {
            int d = in[i] - '0';
            // Accumulate negatively: the negative range is one larger.
            if (v < (Long.MIN_VALUE + d) / 10) {
                return Long.MIN_VALUE;
            }
            v = v * 10 - d;
        }
        if (negative) {
            return v;
        }
        return v == Long.MIN_VALUE ? Long.MIN_VALUE : -v;
    }

    private boolean isMinLong(int start) {
        return ascii(start, pos).equals("-9223372036854775808");
    }

    /** Whether a non-negative integer literal up to 2<sup>64</sup>-1 starts at {@code pos} (which is left there). */
    private boolean isUnsigned64() {
        int start = pos;
        try {
            if (!scanNumber()) {
                return false;
            }
            Long.parseUnsignedLong(ascii(start, pos));
            return true;
        } catch (NumberFormatException | MalformedJsonException e) {
            return false;
        } finally {
            pos = start;
        }
    }

    /** A non-negative integer literal up to 2<sup>64</sup>-1, as its 64 bits. */
    private long unsigned64(int start, int stop) {
        try {
            return Long.parseUnsignedLong(ascii(start, stop));
        } catch (NumberFormatException e) {
            throw new MalformedJsonException(ascii(start, stop) + " is not a ulong (0 to 18446744073709551615)", start);
        }
    }

    /** Reads a JSON string at {@code pos} into {@link #text}, unescaped, as UTF-8. */
    private void string() {
        int start = pos;
        pos++; // the opening quote
        textLength = 0;
        while (true) {
            if (pos >= end) {
                throw new MalformedJsonException("a string is not closed", start);
            }
            byte b = in[pos];
            if (b == '"') {
                pos++;
                return;
            }
            if (b == '\\') {
                escape();
            } else if (b >= 0 && b < 0x20) {
                throw malformed("a control character must be escaped in a string (RFC 8259 §7)");
            } else {
                append(b); // the whole text was checked to be UTF-8 up front
                pos++;
            }
        }
    }

    private void escape() {
        int at = pos;
        if (pos + 1 >= end) {
            throw new MalformedJsonException("an escape is cut short", at);
        }
        byte e = in[pos + 1];
        pos += 2;
        switch (e) {
            case '"': append('"'); return;
            case '\\': append('\\'); return;
            case '/': append('/'); return;
            case 'b': append('\b'); return;
            case 'f': append('\f'); return;
            case 'n': append('\n'); return;
            case 'r': append('\r'); return;
            case 't': append('\t'); return;
            case 'u': {
                int cp = hex4(at);
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    // A high surrogate must be followed by an escaped low one: together one code point.
                    if (pos + 1 < end && in[pos] == '\\' && in[pos + 1] == 'u') {
                        pos += 2;
                        int low = hex4(at);
                        if (low >= 0xDC00 && low <= 0xDFFF) {
                            appendCodePoint(Character.toCodePoint((char) cp, (char) low));
                            return;
                        }
                    }
                    throw new MalformedJsonException("an unpaired surrogate is not text (AMQP strings are Unicode)", at);
                }
                if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    throw new MalformedJsonException("an unpaired surrogate is not text (AMQP strings are Unicode)", at);
                }
                appendCodePoint(cp);
                return;
            }
            default:
                throw new MalformedJsonException("unknown escape \\" + (char) e, at);
        }
    }

    private int hex4(int at) {
        if (pos + 4 > end) {
            throw new MalformedJsonException("\\u needs four hex digits", at);
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            byte b = in[pos++];
            if (!HexDigits.isHex(b)) {
                throw new MalformedJsonException("\\u needs four hex digits", at);
            }
            v = v << 4 | Character.digit(b, 16);
        }
        return v;
    }

    private void appendCodePoint(int cp) {
        if (cp < 0x80) {
            append(cp);
        } else if (cp < 0x800) {
            append(0xC0 | cp >> 6);
            append(0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            append(0xE0 | cp >> 12);
            append(0x80 | cp >> 6 & 0x3F);
            append(0x80 | cp & 0x3F);
        } else {
            append(0xF0 | cp >> 18);
            append(0x80 | cp >> 12 & 0x3F);
            append(0x80 | cp >> 6 & 0x3F);
            append(0x80 | cp & 0x3F);
        }
    }

    private void append(int b) {
        if (textLength == text.length) {
            text = Arrays.copyOf(text, textLength * 2);
        }
        text[textLength++] = (byte) b;
    }

    private void literal(String word) {
        int n = word.length();
        if (pos + n > end) {
            throw malformed("not a JSON value");
        }
        for (int i = 0; i < n; i++) {
            if (in[pos + i] != word.charAt(i)) {
                throw malformed("not a JSON value");
            }
        }
        pos += n;
    }

    /**
     * The end of the value at {@code p}, found by its brackets and quotes alone (not checked: the value is parsed
     * properly afterwards when it matters). Used to see whether a tag-named member is an object's only one.
     */
    private int skipValue(int p) {
        int nesting = 0;
        while (p < end) {
            byte b = in[p];
            if (b == '"') {
                p++;
                while (p < end && in[p] != '"') {
                    p += in[p] == '\\' ? 2 : 1;
                }
                p++;
                if (nesting == 0) {
                    return p;
                }
                continue;
            }
            if (b == '[' || b == '{') {
                nesting++;
            } else if (b == ']' || b == '}') {
                if (nesting == 0) {
                    return p; // the enclosing object's end: it ends a number or literal
                }
                if (--nesting == 0) {
                    return p + 1;
                }
            } else if (nesting == 0 && (b == ',' || b == ' ' || b == '\t' || b == '\n' || b == '\r')) {
                return p;
            }
            p++;
        }
        return Math.min(p, end);
    }

    private void skipSpace() {
        while (pos < end) {
            byte b = in[pos];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                return;
            }
            pos++;
        }
    }

    private boolean consume(char c) {
        if (pos < end && in[pos] == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!consume(c)) {
            throw malformed(pos < end ? "expected '" + c + "' but found '" + (char) in[pos] + "'"
                    : "expected '" + c + "' but the text ends");
        }
    }

    private String ascii(int start, int stop) {
        return new String(in, start, stop - start, StandardCharsets.ISO_8859_1);
    }

    private MalformedJsonException malformed(String what) {
        return new MalformedJsonException(what, pos);
    }
}
