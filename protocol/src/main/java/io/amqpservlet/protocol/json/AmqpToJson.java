package io.amqpservlet.protocol.json;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.DecodeLimitException;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.message.BodySections;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageView;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;

/**
 * Writes an encoded AMQP value as JSON text (RFC 8259, UTF-8 bytes), reading it with the {@link AmqpReader} cursor:
 * no object tree is built. The mapping is docs/mapping.md's "Typed bodies" table; {@link JsonForm} chooses between
 * plain JSON and the exact, tagged form. {@link JsonToAmqp} reads either back.
 *
 * <p>The reader's {@link io.amqpservlet.protocol.codec.DecoderLimits} bound the nesting and the elements; the
 * JSON text is bounded by {@code maxJsonBytes} (it can be several times longer than the encoding: a one-byte null
 * is four characters). A writer keeps its buffer for the next value; it is not thread-safe.
 *
 * <pre>{@code
 * AmqpToJson json = new AmqpToJson(JsonForm.PLAIN, 1 << 20);
 * reader.wrap(encoded, 0, encoded.length).next();
 * json.clear().value(reader);          // {"name":"q1","durable":true,"message_count":0}
 * byte[] utf8 = json.toByteArray();
 * }</pre>
 */
public final class AmqpToJson {
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** The form being written: the configured one, but tagged while a descriptor is written. */
    private JsonForm form;
    private final int maxJsonBytes;
    private byte[] buf = new byte[256];
    private int pos;
    /** Where the value being written starts in the AMQP input, for errors. */
    private int at;
    /** Looks ahead at a map's keys (one map at a time: the look-ahead is done before the map is written). */
    private AmqpReader keys;
    /** Where {@link #distinctNames} keeps the names of a small map while comparing them. */
    private final int[] nameOffsets = new int[PAIRWISE_NAMES];
    private final int[] nameLengths = new int[PAIRWISE_NAMES];
    /** Reads an array's element descriptor; used by the outermost described array only (its descriptor may nest one). */
    private AmqpReader descriptors;
    private boolean descriptorsInUse;

    /**
     * A writer of the given form.
     *
     * @param form plain JSON or the exact, tagged form
     * @param maxJsonBytes the most bytes of JSON text one call may produce
     */
    public AmqpToJson(JsonForm form, int maxJsonBytes) {
        if (maxJsonBytes < 16) {
            throw new IllegalArgumentException("maxJsonBytes must be at least 16: " + maxJsonBytes);
        }
        this.form = form;
        this.maxJsonBytes = maxJsonBytes;
    }

    /**
     * {@return the JSON text of the one AMQP value encoded in {@code amqp[offset, offset + length)}}
     *
     * @param amqp holds the encoded value
     * @param offset where it starts
     * @param length its length in bytes
     * @param form plain JSON or the exact, tagged form
     * @throws io.amqpservlet.protocol.codec.DecodeException when the bytes are not one well-formed value
     */
    public static String toJson(byte[] amqp, int offset, int length, JsonForm form) {
        AmqpReader reader = new AmqpReader().wrap(amqp, offset, length);
        reader.next();
        if (reader.hasNext()) {
            throw new IllegalArgumentException("more than one value in the input");
        }
        AmqpToJson json = new AmqpToJson(form, Integer.MAX_VALUE - 16);
        json.value(reader);
        return json.toString();
    }

    /**
     * Starts a new text, keeping the buffer.
     *
     * @return this, for chaining
     */
    public AmqpToJson clear() {
        pos = 0;
        return this;
    }

    /** {@return the buffer holding the text: {@code [0, length())}} */
    public byte[] array() {
        return buf;
    }

    /** {@return the length of the text in bytes} */
    public int length() {
        return pos;
    }

    /** {@return a copy of the text's UTF-8 bytes} */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, pos);
    }

    /** {@return the text} */
    @Override
    public String toString() {
        return new String(buf, 0, pos, StandardCharsets.UTF_8);
    }

    /**
     * Appends the JSON text of the value {@code reader} is on (after {@link AmqpReader#next()}); the reader is left
     * after it.
     *
     * @param reader a reader positioned on a value
     * @return this, for chaining
     * @throws io.amqpservlet.protocol.codec.DecodeException when the bytes are malformed or exceed a limit, or
     *         the text would exceed {@code maxJsonBytes} ({@link DecodeLimitException})
     */
    public AmqpToJson value(AmqpReader reader) {
        write(reader, false);
        return this;
    }

    /**
     * Appends the JSON text of a message body that is an amqp-value (its value) or amqp-sequence sections (one
     * JSON array holding the elements of every section in order: AMQP 1.0 §3.2.7 gives the section boundaries no
     * meaning).
     *
     * @param message the message
     * @param reader a reader to read it with (repositioned)
     * @return this, for chaining
     * @throws IllegalArgumentException when the body is data sections or absent
     * @throws io.amqpservlet.protocol.codec.DecodeException when the bytes are malformed or exceed a limit
     */
    public AmqpToJson body(MessageView message, AmqpReader reader) {
        BodySections body = message.body();
        if (body.kind() == MessageSection.AMQP_VALUE) {
            message.positionOnAmqpValue(reader);
            return value(reader);
        }
        if (body.kind() != MessageSection.AMQP_SEQUENCE) {
            throw new IllegalArgumentException("the body is " + body.kind() + ", not an amqp-value or amqp-sequence");
        }
        put('[');
        boolean first = true;
        for (int i = 0; i < body.count(); i++) {
            message.positionOnBodySection(i, reader);
            if (reader.type() != AmqpType.LIST) {
                throw new UnexpectedTypeException("an amqp-sequence section holds a " + reader.type()
                        + ", not a list (AMQP 1.0 §3.2.7)", reader.valueStart());
            }
            reader.enter();
            while (reader.hasNext()) {
                reader.next();
                if (!first) {
                    put(',');
                }
                first = false;
                write(reader, false);
            }
            reader.exit();
        }
        put(']');
        return this;
    }

    // ------------------------------------------------------------------------------------------ values

    /**
     * The value under the reader. {@code bare}: an element of a tagged {@code $array}, written as what would follow
     * its tag ({@code 5}, not {@code {"$uint":5}}): the array names the type once.
     */
    private void write(AmqpReader r, boolean bare) {
        at = r.valueStart();
        boolean tagged = form == JsonForm.TAGGED && !bare;
        AmqpType type = r.type();
        switch (type) {
            case NULL:
                put(NULL);
                return;
            case BOOLEAN:
                put(r.getBoolean() ? TRUE : FALSE);
                return;
            case UBYTE:
            case USHORT:
            case UINT:
            case BYTE:
            case SHORT:
            case INT:
                open(tagged, type);
                putLong(r.getLong());
                close(tagged);
                return;
            case LONG:
                putLong(r.getLong());
                return;
            case ULONG: {
                long bits = r.getLong();
                open(tagged, type);
                if (bits >= 0) {
                    putLong(bits);
                } else {
                    putAscii(Long.toUnsignedString(bits));
                }
                close(tagged);
                return;
            }
            case FLOAT: {
                float f = r.getFloat();
                boolean finite = Float.isFinite(f);
                open(tagged || !finite && !bare, type);
                putFloating(finite ? Float.toString(f) : null, f);
                close(tagged || !finite && !bare);
                return;
            }
            case DOUBLE: {
                double d = r.getDouble();
                boolean finite = Double.isFinite(d);
                open(!finite && !bare, type);
                putFloating(finite ? Double.toString(d) : null, d);
                close(!finite && !bare);
                return;
            }
            case DECIMAL32:
                open(!bare, type);
                putHex(r.getDecimal32Bits() & 0xFFFFFFFFL, 8, 0, 0);
                close(!bare);
                return;
            case DECIMAL64:
                open(!bare, type);
                putHex(r.getDecimal64Bits(), 16, 0, 0);
                close(!bare);
                return;
            case DECIMAL128:
                open(!bare, type);
                putHex(r.getDecimal128High(), 16, r.getDecimal128Low(), 16);
                close(!bare);
                return;
            case CHAR:
                open(!bare, type);
                putCodePoint(r.getChar());
                close(!bare);
                return;
            case TIMESTAMP:
                open(!bare, type);
                putLong(r.getTimestamp());
                close(!bare);
                return;
            case UUID:
                open(!bare, type);
                putUuid(r.getUuidMostSignificantBits(), r.getUuidLeastSignificantBits());
                close(!bare);
                return;
            case BINARY: {
                open(!bare, type);
                ByteBuffer encoded = Base64.getEncoder().encode(ByteBuffer.wrap(r.buffer(), r.valueOffset(), r.valueLength()));
                put('"');
                ensure(encoded.remaining());
                encoded.get(buf, pos, encoded.remaining());
                pos += encoded.limit();
                put('"');
                close(!bare);
                return;
            }
            case STRING:
                r.validateText();
                putString(r.buffer(), r.valueOffset(), r.valueLength());
                return;
            case SYMBOL:
                r.validateText();
                open(tagged, type);
                putString(r.buffer(), r.valueOffset(), r.valueLength());
                close(tagged);
                return;
            case LIST:
                list(r);
                return;
            case MAP:
                map(r);
                return;
            case ARRAY:
                array(r, bare);
                return;
            case DESCRIBED:
                described(r);
                return;
            default:
                throw new IllegalStateException("no JSON form for " + type);
        }
    }

    private void list(AmqpReader r) {
        put('[');
        r.enter();
        boolean first = true;
        while (r.hasNext()) {
            r.next();
            if (!first) {
                put(',');
            }
            first = false;
            write(r, false);
        }
        r.exit();
        put(']');
    }

    private void map(AmqpReader r) {
        if (!objectKeys(r)) {
            // {"$map": [[key, value], ...]}: keys of any type, in order.
            open(true, AmqpType.MAP);
            put('[');
            r.enter();
            boolean first = true;
            while (r.hasNext()) {
                if (!first) {
                    put(',');
                }
                first = false;
                put('[');
                r.next();
                write(r, false);
                put(',');
                r.next();
                write(r, false);
                put(']');
            }
            r.exit();
            put(']');
            close(true);
            return;
        }
        put('{');
        r.enter();
        boolean first = true;
        while (r.hasNext()) {
            if (!first) {
                put(',');
            }
            first = false;
            r.next();
            putString(r.buffer(), r.valueOffset(), r.valueLength()); // a string or symbol, checked by objectKeys
            put(':');
            r.next();
            write(r, false);
        }
        r.exit();
        put('}');
    }

    /**
     * Whether the map under {@code r} can be a JSON object: every key a string (PLAIN: or a symbol), and not a
     * single key that is a tag name (that object would read back as the tagged value). Looks at the keys with a
     * reader of its own, leaving {@code r} where it is; checks the keys' text.
     */
    private boolean objectKeys(AmqpReader r) {
        if (keys == null) {
            keys = new AmqpReader(r.limits());
        }
        AmqpReader k = keys;
        // The entries, read at the top level of a reader of their own: the map may be an array element, which
        // has no constructor to start from.
        k.wrap(r.buffer(), r.valueOffset(), r.valueEnd() - r.valueOffset());
        int entries = r.count() / 2;
        boolean object = true;
        for (int i = 0; i < entries; i++) {
            entry(k, r);
            AmqpType t = k.type();
            if (t == AmqpType.STRING || t == AmqpType.SYMBOL && form == JsonForm.PLAIN) {
                k.validateText();
                if (entries == 1 && JsonTag.of(k.buffer(), k.valueOffset(), k.valueLength()) != null) {
                    object = false; // one entry whose key is a tag: that object would read back as the tag
                }
            } else {
                object = false;
            }
            entry(k, r);
        }
        // A JSON object has each name once (a name twice does not read back): the string "a" and the symbol "a" are
        // distinct AMQP keys but one name, and a map that holds a key twice (not a valid AMQP map, §1.6.23, but one
        // the reader takes) would repeat it.
        return object && (entries < 2 || distinctNames(r, entries));
    }

    /** The most keys compared pairwise, without allocating; more go through a set. */
    private static final int PAIRWISE_NAMES = 16;

    /**
     * Whether the keys (strings or symbols, checked by {@link #objectKeys}) of the map under {@code r} are distinct
     * names: compared as their bytes, which for valid UTF-8 (and a symbol's ASCII) are the text's one encoding.
     */
    private boolean distinctNames(AmqpReader r, int entries) {
        AmqpReader k = keys;
        k.wrap(r.buffer(), r.valueOffset(), r.valueEnd() - r.valueOffset());
        byte[] b = r.buffer();
        if (entries <= PAIRWISE_NAMES) {
            int[] offsets = nameOffsets;
            int[] lengths = nameLengths;
            for (int i = 0; i < entries; i++) {
                entry(k, r);
                int offset = k.valueOffset();
                int length = k.valueLength();
                for (int j = 0; j < i; j++) {
                    if (lengths[j] == length && java.util.Arrays.equals(b, offsets[j], offsets[j] + length,
                            b, offset, offset + length)) {
                        return false;
                    }
                }
                offsets[i] = offset;
                lengths[i] = length;
                entry(k, r);
            }
            return true;
        }
        java.util.Set<java.nio.ByteBuffer> names = new java.util.HashSet<>();
        for (int i = 0; i < entries; i++) {
            entry(k, r);
            if (!names.add(java.nio.ByteBuffer.wrap(b, k.valueOffset(), k.valueLength()))) {
                return false;
            }
            entry(k, r);
        }
        return true;
    }

    /** The next key or value of the map {@code r} is on, read by the look-ahead {@code k}. */
    private static void entry(AmqpReader k, AmqpReader r) {
        if (!k.hasNext()) {
            // The map's count promises more entries than its size holds: what the cursor would find reading them.
            throw new InvalidEncodingException(FormatCode.name(r.formatCode()) + " count " + r.count()
                    + " exceeds the elements its size holds", r.valueStart());
        }
        k.next();
    }

    private void array(AmqpReader r, boolean bare) {
        int elementCode = r.arrayElementCode();
        int descriptorAt = r.isDescribedArray() ? r.arrayDescriptorOffset() : -1;
        boolean tagged = form == JsonForm.TAGGED && descriptorAt < 0;
        AmqpType type = FormatCode.type(elementCode);
        if (tagged) {
            // {"$array": ["uint", 1, 2]}: the element type once, then each element as what would follow its tag.
            if (!bare) {
                open(true, AmqpType.ARRAY);
            }
            put('[');
            put('"');
            putAscii(type.name().toLowerCase(Locale.ROOT));
            put('"');
        } else {
            put('[');
        }
        r.enter();
        boolean first = !tagged;
        int descriptorFrom = -1;
        int descriptorTo = -1;
        while (r.hasNext()) {
            r.next();
            if (!first) {
                put(',');
            }
            first = false;
            if (descriptorAt >= 0) {
                // AMQP 1.0 §1.2: the array's one descriptor describes each element; written with each, its JSON
                // made once and copied after that (elements may have no bytes at all: an array of null).
                open(true, AmqpType.DESCRIBED);
                put('[');
                if (descriptorFrom < 0) {
                    descriptorFrom = pos;
                    arrayDescriptor(r, descriptorAt);
                    descriptorTo = pos;
                } else {
                    int n = descriptorTo - descriptorFrom;
                    ensure(n);
                    System.arraycopy(buf, descriptorFrom, buf, pos, n);
                    pos += n;
                }
                put(',');
                write(r, false);
                put(']');
                close(true);
            } else {
                write(r, tagged);
            }
        }
        r.exit();
        put(']');
        if (tagged && !bare) {
            close(true);
        }
    }

    /** The descriptor at {@code offset} of the array {@code r} is in. */
    private void arrayDescriptor(AmqpReader r, int offset) {
        AmqpReader d;
        boolean own = !descriptorsInUse;
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
            d.wrap(r.buffer(), offset, r.limit() - offset).next();
            descriptor(d);
        } finally {
            if (own) {
                descriptorsInUse = false;
            }
        }
    }

    private void described(AmqpReader r) {
        open(true, AmqpType.DESCRIBED);
        put('[');
        r.enter();
        r.next();
        descriptor(r);
        put(',');
        r.next();
        write(r, false);
        r.exit();
        put(']');
        close(true);
    }

    /**
     * A descriptor: a ulong as a plain number and a symbol as a plain string in either form (AMQP 1.0 §1.5: the two
     * kinds of descriptor; {@link JsonToAmqp} reads them back so), anything else in the tagged form.
     */
    private void descriptor(AmqpReader r) {
        AmqpType t = r.type();
        if (t == AmqpType.ULONG) {
            long bits = r.getLong();
            if (bits >= 0) {
                putLong(bits);
            } else {
                putAscii(Long.toUnsignedString(bits));
            }
        } else if (t == AmqpType.SYMBOL) {
            r.validateText();
            putString(r.buffer(), r.valueOffset(), r.valueLength());
        } else {
            JsonForm configured = form;
            form = JsonForm.TAGGED; // reserved descriptor types (AMQP 1.0 §1.5) are rare: keep them exact
            try {
                write(r, false);
            } finally {
                form = configured;
            }
        }
    }

    // ------------------------------------------------------------------------------------------ text

    /** {@code {"$tag":} when {@code tagged}. */
    private void open(boolean tagged, AmqpType type) {
        if (tagged) {
            put('{');
            put(JsonTag.valueOf(type.name()).quoted);
            put(':');
        }
    }

    private void close(boolean tagged) {
        if (tagged) {
            put('}');
        }
    }

    private void putFloating(String finite, double value) {
        if (finite != null) {
            putAscii(finite); // Float/Double.toString: always a '.' or an exponent, so it reads back as a double
        } else {
            put('"');
            putAscii(Double.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity");
            put('"');
        }
    }

    private void putHex(long high, int highDigits, long low, int lowDigits) {
        ensure(2 + highDigits + lowDigits);
        buf[pos++] = '"';
        for (int i = highDigits - 1; i >= 0; i--) {
            buf[pos++] = DIGITS[(int) (high >>> (4 * i)) & 0xF];
        }
        for (int i = lowDigits - 1; i >= 0; i--) {
            buf[pos++] = DIGITS[(int) (low >>> (4 * i)) & 0xF];
        }
        buf[pos++] = '"';
    }

    private void putUuid(long msb, long lsb) {
        ensure(38);
        buf[pos++] = '"';
        hex(msb >>> 32, 8);
        buf[pos++] = '-';
        hex(msb >>> 16, 4);
        buf[pos++] = '-';
        hex(msb, 4);
        buf[pos++] = '-';
        hex(lsb >>> 48, 4);
        buf[pos++] = '-';
        hex(lsb, 12);
        buf[pos++] = '"';
    }

    private void hex(long bits, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            buf[pos++] = DIGITS[(int) (bits >>> (4 * i)) & 0xF];
        }
    }

    private void putCodePoint(int cp) {
        byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
        putString(utf8, 0, utf8.length);
    }

    /** A JSON string from valid UTF-8: {@code "} and {@code \} escaped, and the controls RFC 8259 §7 requires. */
    private void putString(byte[] utf8, int offset, int length) {
        ensure(2 + length);
        buf[pos++] = '"';
        for (int i = offset, end = offset + length; i < end; i++) {
            byte b = utf8[i];
            if (b == '"' || b == '\\') {
                ensure(2 + end - i);
                buf[pos++] = '\\';
                buf[pos++] = b;
            } else if (b >= 0 && b < 0x20) {
                ensure(7 + end - i);
                buf[pos++] = '\\';
                switch (b) {
                    case '\n': buf[pos++] = 'n'; break;
                    case '\r': buf[pos++] = 'r'; break;
                    case '\t': buf[pos++] = 't'; break;
                    case '\b': buf[pos++] = 'b'; break;
                    case '\f': buf[pos++] = 'f'; break;
                    default:
                        buf[pos++] = 'u';
                        buf[pos++] = '0';
                        buf[pos++] = '0';
                        buf[pos++] = DIGITS[b >> 4];
                        buf[pos++] = DIGITS[b & 0xF];
                }
            } else {
                buf[pos++] = b;
            }
        }
        ensure(1);
        buf[pos++] = '"';
    }

    private void putLong(long v) {
        ensure(20);
        if (v == Long.MIN_VALUE) {
            putAscii("-9223372036854775808");
            return;
        }
        if (v < 0) {
            buf[pos++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = pos + digits - 1; i >= pos; i--) {
            buf[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        pos += digits;
    }

    private void putAscii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[pos++] = (byte) s.charAt(i);
        }
    }

    private void put(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
    }

    private void put(char c) {
        ensure(1);
        buf[pos++] = (byte) c;
    }

    private void ensure(int n) {
        long need = (long) pos + n;
        if (need <= buf.length) {
            return;
        }
        if (need > maxJsonBytes) {
            throw new DecodeLimitException("the JSON text would exceed " + maxJsonBytes + " bytes", at);
        }
        buf = Arrays.copyOf(buf, (int) Math.min(maxJsonBytes, Math.max(need, 2L * buf.length)));
    }
}
