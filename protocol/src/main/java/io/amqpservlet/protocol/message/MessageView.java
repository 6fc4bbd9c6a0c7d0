package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A zero-copy view of one encoded AMQP 1.0 message (AMQP 1.0 §3.2). {@link #wrap} indexes the sections in one
 * pass over the top level, checking their order, without decoding what is inside them; the accessors then read
 * only what they are asked for, straight from the wrapped bytes: one properties field, one application property
 * by name, the offset and length of each data section.
 *
 * <p>A view is reused for every message a link receives: once constructed it allocates nothing, except that
 * {@link BodySections}' offset arrays grow (and then stay grown) the first time a message has more body sections
 * than any before. Methods taking an {@link AmqpReader} leave that reader positioned on the value asked for; the
 * convenience methods that fill a {@link MutableBytes} or {@link MessageId} use a reader of the view's own.
 * The wrapped bytes must not change while the view is in use. A view is not thread-safe.
 *
 * <pre>{@code
 * view.wrap(payload, 0, payloadLength);
 * view.subject(method);                           // MutableBytes, no String
 * view.applicationProperty("accept", accept);     // looked up by name, others not decoded
 * for (int i = 0; i < view.body().dataSectionCount(); i++) {
 *     out.write(payload, view.body().dataOffset(i), view.body().dataLength(i));
 * }
 * }</pre>
 */
public final class MessageView {
    private static final byte[] EMPTY = new byte[0];
    private static final int BODY = MessageSection.DATA.ordinal();

    private final AmqpReader scan;
    private final AmqpReader own;

    private byte[] buf = EMPTY;
    private int offset;
    private int length;

    // Each section's described value [start, end), by MessageSection ordinal, valid only where the section's bit
    // is set in present: wrapping clears one int rather than refilling the arrays. The body kinds' entries span
    // from the first body section to the end of the last.
    private int present;
    private final int[] start = new int[MessageSection.COUNT];
    private final int[] end = new int[MessageSection.COUNT];

    private final BodySections body = new BodySections();

    // Properties fields, indexed on first use: each field's encoded value [start, end).
    private boolean propertiesIndexed;
    private int propertiesFieldCount;
    private final int[] propertiesFieldStart = new int[Properties.FIELD_COUNT];
    private final int[] propertiesFieldEnd = new int[Properties.FIELD_COUNT];

    /** A view whose readers enforce {@link DecoderLimits#DEFAULT}. */
    public MessageView() {
        this(DecoderLimits.DEFAULT);
    }

    /**
     * A view whose readers enforce {@code limits}.
     *
     * @param limits the bounds to enforce when indexing and reading sections
     */
    public MessageView(DecoderLimits limits) {
        this.scan = new AmqpReader(limits);
        this.own = new AmqpReader(limits);
    }

    // ------------------------------------------------------------------------------------------ indexing

    /**
     * Indexes the message in {@code bytes[offset, offset + length)}.
     *
     * @param bytes holds the encoded message
     * @param offset where it starts in {@code bytes}
     * @param length its length in bytes
     * @throws InvalidEncodingException when a top-level value is not a message section or sections are out of
     *         order (AMQP 1.0 §3.2), naming the section and its offset
     * @throws io.amqpservlet.protocol.codec.UnexpectedTypeException when a section holds the wrong type
     * @throws io.amqpservlet.protocol.codec.TruncatedEncodingException when the last section is incomplete
     * @return this, for chaining
     */
    public MessageView wrap(byte[] bytes, int offset, int length) {
        scan.wrap(bytes, offset, length);
        if (this.buf != bytes) {
            this.buf = bytes; // as in AmqpReader.wrap: no reference store (and its GC barrier) when unchanged
        }
        this.offset = offset;
        this.length = length;
        present = 0;
        body.reset(bytes);
        propertiesIndexed = false;
        try {
            index();
        } catch (RuntimeException e) {
            // Leave an empty view rather than a half-indexed one.
            present = 0;
            body.reset(bytes);
            throw e;
        }
        return this;
    }

    /**
     * Indexes the remaining bytes of a heap buffer without copying; the buffer's position is not changed.
     *
     * @param message a heap buffer whose remaining bytes are the encoded message
     * @return this, for chaining
     */
    public MessageView wrap(ByteBuffer message) {
        if (!message.hasArray()) {
            throw new IllegalArgumentException("the view reads heap buffers; copy a direct buffer first");
        }
        return wrap(message.array(), message.arrayOffset() + message.position(), message.remaining());
    }

    private void index() {
        MessageSection last = null;
        byte[] b = buf;
        while (scan.hasNext()) {
            int at = scan.position();
            if (b[at] != (byte) FormatCode.DESCRIBED) {
                throw new InvalidEncodingException("a message holds only described sections but found "
                        + FormatCode.name(scan.next()), at);
            }
            checkDescriptorType(b, at);
            // One step over the section's descriptor onto its value, which stays at the top level.
            long descriptor = Descriptors.codeOfStepped(scan, scan.nextDescribed());
            MessageSection s = MessageSection.ofDescriptor(descriptor);
            if (s == null) {
                throw new InvalidEncodingException("unknown message section descriptor "
                        + (descriptor < 0 ? "(not an AMQP section code)" : "0x" + Long.toHexString(descriptor)), at);
            }
            if (at == offset && s == MessageSection.AMQP_VALUE && scan.formatCode() == FormatCode.NULL
                    && scan.valueEnd() < offset + length) {
                // RabbitMQ's Python AMQP 1.0 client (rabbitmq-amqp-python-client 1.0) sends a management request
                // without a body by overwriting the first four bytes of its encoding, an empty header section
                // (00 53 70 45), with an amqp-value null (00 53 77 40): a body before the properties, against
                // §3.2's order. Read as the empty header it replaced: the message has no body, as the client meant.
                // Only the message's first four bytes: a second amqp-value after it is one too many.
                continue;
            }
            checkOrder(last, s, at);
            int sectionEnd = scan.valueEnd();
            int valueCode = scan.formatCode();
            checkValue(s, valueCode);
            if (s.isBody()) {
                addBody(s, at, sectionEnd, valueCode);
            } else {
                start[s.ordinal()] = at;
                end[s.ordinal()] = sectionEnd;
                present |= 1 << s.ordinal();
            }
            last = s;
        }
    }

    /**
     * AMQP 1.0 §1.5: a descriptor is a ulong or a symbol. The reader takes any integral descriptor, but a section
     * with another one (a uint, say) would be read here and refused by {@link SectionScanner} when the same message
     * is streamed; both refuse it.
     */
    private void checkDescriptorType(byte[] b, int at) {
        int c = at + 1 < offset + length ? b[at + 1] & 0xFF : -1;
        if (c != FormatCode.SMALLULONG && c != FormatCode.ULONG && c != FormatCode.ULONG0 && c != FormatCode.SYM8
                && c != FormatCode.SYM32 && c != -1) {
            throw new InvalidEncodingException("a section descriptor must be a ulong or a symbol but found "
                    + FormatCode.name(c), at + 1);
        }
    }

    private static void checkOrder(MessageSection last, MessageSection s, int at) {
        if (last == null) {
            return;
        }
        // AMQP 1.0 §3.2: header, delivery-annotations, message-annotations, properties, application-properties,
        // body, footer; each at most once, and a body of one kind only.
        if (s.rank() < last.rank()) {
            throw new InvalidEncodingException(s.specName() + " section out of order after the "
                    + last.specName() + " section", at);
        }
        if (s.rank() == last.rank()) {
            if (!s.isBody()) {
                throw new InvalidEncodingException("second " + s.specName() + " section", at);
            }
            if (s != last) {
                throw new InvalidEncodingException(s.specName() + " section in a body of " + last.specName()
                        + " sections: a body has one kind", at);
            }
            if (s == MessageSection.AMQP_VALUE) {
                throw new InvalidEncodingException("second amqp-value section: a body holds exactly one", at);
            }
        }
    }

    private void checkValue(MessageSection s, int code) {
        boolean ok;
        switch (s) {
            case HEADER:
            case PROPERTIES:
            case AMQP_SEQUENCE:
                ok = code == FormatCode.LIST0 || code == FormatCode.LIST8 || code == FormatCode.LIST32;
                break;
            case DATA:
                ok = code == FormatCode.VBIN8 || code == FormatCode.VBIN32;
                break;
            case AMQP_VALUE:
                ok = true;
                break;
            default:
                // The annotation maps and application-properties; a null is read as an empty map.
                ok = code == FormatCode.MAP8 || code == FormatCode.MAP32 || code == FormatCode.NULL;
                break;
        }
        if (!ok) {
            throw new UnexpectedTypeException("the " + s.specName() + " section holds " + FormatCode.name(code),
                    scan.valueStart());
        }
    }

    private void addBody(MessageSection s, int at, int sectionEnd, int valueCode) {
        if (valueCode == FormatCode.VBIN8 || valueCode == FormatCode.VBIN32) {
            body.add(s, at, sectionEnd, scan.valueOffset(), scan.valueLength());
        } else {
            body.add(s, at, sectionEnd, scan.valueStart(), scan.valueEnd() - scan.valueStart());
        }
        if (body.count() == 1) {
            start[s.ordinal()] = at;
            present |= 1 << s.ordinal();
        }
        end[s.ordinal()] = sectionEnd;
    }

    // ------------------------------------------------------------------------------------------ layout

    /** {@return the wrapped array} */
    public byte[] buffer() {
        return buf;
    }

    /** {@return offset of the message in {@link #buffer()}} */
    public int offset() {
        return offset;
    }

    /** {@return length of the message in bytes} */
    public int length() {
        return length;
    }

    /**
     * {@return whether the message has the section (for a body kind: whether the body is of that kind)}
     *
     * @param section the kind of section
     */
    public boolean hasSection(MessageSection section) {
        return (present & (1 << section.ordinal())) != 0;
    }

    /**
     * {@return offset of the section's first byte (its 0x00 described-value constructor), or -1 when absent} For a body
     * kind, the first body section.
     *
     * @param section the kind of section
     */
    public int sectionStart(MessageSection section) {
        return hasSection(section) ? start[section.ordinal()] : -1;
    }

    /**
     * {@return offset just after the section, or -1 when absent} For a body kind, after the last body section.
     *
     * @param section the kind of section
     */
    public int sectionEnd(MessageSection section) {
        return hasSection(section) ? end[section.ordinal()] : -1;
    }

    /** {@return where the body sections are: their kind, count, and each data section's offset and length} */
    public BodySections body() {
        return body;
    }

    // ------------------------------------------------------------------------------------------ positioning

    /**
     * Positions {@code reader} on the section's described value (for a body kind, the first); false when absent.
     *
     * @param section the kind of section
     * @param reader the reader to position
     * @return whether the section is there
     */
    public boolean positionOnSection(MessageSection section, AmqpReader reader) {
        int s = sectionStart(section);
        if (s < 0) {
            return false;
        }
        int e = section.isBody() ? body.sectionEnd(0) : end[section.ordinal()];
        reader.wrap(buf, s, e - s);
        reader.next();
        return true;
    }

    /**
     * Positions {@code reader} on the value inside body section {@code index}: the binary of a data section,
     * the list of an amqp-sequence, the value of an amqp-value.
     *
     * @param index which body section, from 0
     * @param reader the reader to position
     * @return {@code reader}, on the value
     */
    public AmqpReader positionOnBodySection(int index, AmqpReader reader) {
        int s = body.sectionStart(index);
        reader.wrap(buf, s, body.sectionEnd(index) - s);
        reader.next();
        reader.enter();
        reader.next();
        reader.next();
        return reader;
    }

    /**
     * Positions {@code reader} on the amqp-value body's value; false when the body is not an amqp-value.
     *
     * @param reader the reader to position
     * @return whether the body is an amqp-value
     */
    public boolean positionOnAmqpValue(AmqpReader reader) {
        if (body.kind() != MessageSection.AMQP_VALUE) {
            return false;
        }
        positionOnBodySection(0, reader);
        return true;
    }

    /**
     * Positions {@code reader} on header field {@code field} (see the {@link Header} field constants); false
     * when there is no header or the field is absent or null.
     *
     * @param field the field's index in the header list
     * @param reader the reader to position
     * @return whether the field is there and not null
     */
    public boolean positionOnHeaderField(int field, AmqpReader reader) {
        if (field < 0) {
            throw new IndexOutOfBoundsException("header field " + field);
        }
        if (!enterListSection(MessageSection.HEADER, reader)) {
            return false;
        }
        for (int i = 0; i < field; i++) {
            if (!reader.hasNext()) {
                return false;
            }
            reader.next();
        }
        if (!reader.hasNext()) {
            return false;
        }
        reader.next();
        return !reader.isNull();
    }

    private boolean enterListSection(MessageSection section, AmqpReader reader) {
        if (!positionOnSection(section, reader)) {
            return false;
        }
        reader.enter();
        reader.next();
        reader.next();
        reader.enter();
        return true;
    }

    /**
     * Positions {@code reader} on properties field {@code field} (see the {@link Properties} field constants),
     * ready for its getters; false when there is no properties section or the field is absent or null. The
     * fields are indexed on the first call, so each later call is a jump.
     *
     * @param field the field's index in the properties list
     * @param reader the reader to position
     * @return whether the field is there and not null
     */
    public boolean positionOnPropertiesField(int field, AmqpReader reader) {
        if (field < 0) {
            throw new IndexOutOfBoundsException("properties field " + field);
        }
        if (!propertiesIndexed) {
            indexProperties();
        }
        if (field >= propertiesFieldCount) {
            return false;
        }
        int s = propertiesFieldStart[field];
        reader.wrap(buf, s, propertiesFieldEnd[field] - s);
        reader.next();
        return !reader.isNull();
    }

    private void indexProperties() {
        int n = 0;
        if (positionOnSection(MessageSection.PROPERTIES, own)) {
            own.unwrapDescribed();
            own.enter();
            while (n < Properties.FIELD_COUNT && own.hasNext()) {
                own.next();
                propertiesFieldStart[n] = own.valueStart();
                propertiesFieldEnd[n] = own.valueEnd();
                n++;
            }
        }
        propertiesFieldCount = n;
        propertiesIndexed = true;
    }

    // ------------------------------------------------------------------------------------------ sections decoded

    /**
     * Decodes the header into {@code header}; without a header section, clears it to the defaults. Returns whether present.
     *
     * @param header the holder to decode into
     * @return whether the message has a header section
     */
    public boolean readHeader(Header header) {
        if (!positionOnSection(MessageSection.HEADER, own)) {
            header.clear();
            return false;
        }
        header.decode(own);
        return true;
    }

    /**
     * Decodes the properties into {@code properties}; without a properties section, clears it. Returns whether present.
     *
     * @param properties the holder to decode into
     * @return whether the message has a properties section
     */
    public boolean readProperties(Properties properties) {
        if (!positionOnSection(MessageSection.PROPERTIES, own)) {
            properties.clear();
            return false;
        }
        properties.decode(own);
        return true;
    }

    // ------------------------------------------------------------------------------------------ properties fields

    /**
     * Copies a string, symbol or binary properties field into {@code dst} (validating text); returns false and
     * clears {@code dst} when the field is absent or null.
     *
     * @param field the field's index in the properties list
     * @param dst where to copy the value
     * @return whether a value was copied
     */
    public boolean propertiesField(int field, MutableBytes dst) {
        if (!positionOnPropertiesField(field, own)) {
            dst.clear();
            return false;
        }
        dst.read(own);
        return true;
    }

    /**
     * {@return a string or symbol properties field as a String (allocates), or null}
     *
     * @param field the field's index in the properties list
     */
    public String propertiesFieldAsString(int field) {
        return positionOnPropertiesField(field, own) ? own.getString() : null;
    }

    /**
     * Reads message-id into {@code dst}, keeping its type; false (and {@code dst} cleared) when absent.
     *
     * @param dst the holder to read into
     * @return whether the message has a message-id
     */
    public boolean messageId(MessageId dst) {
        return readId(Properties.MESSAGE_ID, dst);
    }

    /**
     * Reads correlation-id into {@code dst}, keeping its type; false (and {@code dst} cleared) when absent.
     *
     * @param dst the holder to read into
     * @return whether the message has a correlation-id
     */
    public boolean correlationId(MessageId dst) {
        return readId(Properties.CORRELATION_ID, dst);
    }

    private boolean readId(int field, MessageId dst) {
        if (!positionOnPropertiesField(field, own)) {
            dst.clear();
            return false;
        }
        dst.read(own);
        return true;
    }

    /**
     * Copies {@code to} into {@code dst}; false when absent.
     *
     * @param dst where to copy the value
     * @return whether the field is there
     */
    public boolean to(MutableBytes dst) {
        return propertiesField(Properties.TO, dst);
    }

    /**
     * Copies {@code subject} into {@code dst}; false when absent.
     *
     * @param dst where to copy the value
     * @return whether the field is there
     */
    public boolean subject(MutableBytes dst) {
        return propertiesField(Properties.SUBJECT, dst);
    }

    /**
     * Copies {@code reply-to} into {@code dst}; false when absent.
     *
     * @param dst where to copy the value
     * @return whether the field is there
     */
    public boolean replyTo(MutableBytes dst) {
        return propertiesField(Properties.REPLY_TO, dst);
    }

    /**
     * Copies {@code content-type} into {@code dst}; false when absent.
     *
     * @param dst where to copy the value
     * @return whether the field is there
     */
    public boolean contentType(MutableBytes dst) {
        return propertiesField(Properties.CONTENT_TYPE, dst);
    }

    /**
     * Copies {@code content-encoding} into {@code dst}; false when absent.
     *
     * @param dst where to copy the value
     * @return whether the field is there
     */
    public boolean contentEncoding(MutableBytes dst) {
        return propertiesField(Properties.CONTENT_ENCODING, dst);
    }

    /** {@return {@code to} as a String (allocates), or null} */
    public String toAsString() {
        return propertiesFieldAsString(Properties.TO);
    }

    /** {@return {@code subject} as a String (allocates), or null} */
    public String subjectAsString() {
        return propertiesFieldAsString(Properties.SUBJECT);
    }

    /** {@return {@code reply-to} as a String (allocates), or null} */
    public String replyToAsString() {
        return propertiesFieldAsString(Properties.REPLY_TO);
    }

    /** {@return {@code content-type} as a String (allocates), or null} */
    public String contentTypeAsString() {
        return propertiesFieldAsString(Properties.CONTENT_TYPE);
    }

    /** {@return {@code content-encoding} as a String (allocates), or null} */
    public String contentEncodingAsString() {
        return propertiesFieldAsString(Properties.CONTENT_ENCODING);
    }

    // ------------------------------------------------------------------------------------------ maps

    /**
     * Positions {@code reader} on the value of the application property named {@code name} (string keys,
     * AMQP 1.0 §3.2.5), reading past the other entries without decoding them. The value may be null. Returns
     * false when there is no such property.
     *
     * @param name the property's name
     * @param reader the reader to position
     * @return whether the property is there (the reader is then on its value)
     */
    public boolean positionOnApplicationProperty(CharSequence name, AmqpReader reader) {
        return find(MessageSection.APPLICATION_PROPERTIES, true, name, null, 0, 0, reader);
    }

    /**
     * Like {@link #positionOnApplicationProperty(CharSequence, AmqpReader)}, with the name as UTF-8 bytes.
     *
     * @param utf8Name holds the property's name in UTF-8
     * @param nameOffset where it starts in {@code utf8Name}
     * @param nameLength its length in bytes
     * @param reader the reader to position
     * @return whether the property is there (the reader is then on its value)
     */
    public boolean positionOnApplicationProperty(byte[] utf8Name, int nameOffset, int nameLength, AmqpReader reader) {
        return find(MessageSection.APPLICATION_PROPERTIES, true, null, utf8Name, nameOffset, nameLength, reader);
    }

    /**
     * Copies the string (or symbol) value of the application property {@code name} into {@code dst}; returns
     * false and clears {@code dst} when the property is absent, null, or not text (use
     * {@link #positionOnApplicationProperty(CharSequence, AmqpReader)} for other types).
     *
     * @param name the property's name
     * @param dst where to copy the value
     * @return whether a text value was copied into {@code dst}
     */
    public boolean applicationProperty(CharSequence name, MutableBytes dst) {
        return textValue(find(MessageSection.APPLICATION_PROPERTIES, true, name, null, 0, 0, own), dst);
    }

    /**
     * Like {@link #applicationProperty(CharSequence, MutableBytes)}, with the name as UTF-8 bytes.
     *
     * @param utf8Name holds the property's name in UTF-8
     * @param nameOffset where it starts in {@code utf8Name}
     * @param nameLength its length in bytes
     * @param dst where to copy the value
     * @return whether a text value was copied into {@code dst}
     */
    public boolean applicationProperty(byte[] utf8Name, int nameOffset, int nameLength, MutableBytes dst) {
        return textValue(find(MessageSection.APPLICATION_PROPERTIES, true, null, utf8Name, nameOffset, nameLength, own), dst);
    }

    /**
     * {@return the string value of the application property {@code name} (allocates), or null when absent or not text}
     *
     * @param name the property's name
     */
    public String applicationPropertyAsString(CharSequence name) {
        if (!find(MessageSection.APPLICATION_PROPERTIES, true, name, null, 0, 0, own)) {
            return null;
        }
        int c = own.formatCode();
        return c == FormatCode.STR8 || c == FormatCode.STR32 || c == FormatCode.SYM8 || c == FormatCode.SYM32
                ? own.getString() : null;
    }

    private boolean textValue(boolean found, MutableBytes dst) {
        int c = found ? own.formatCode() : FormatCode.NULL;
        if (c == FormatCode.STR8 || c == FormatCode.STR32 || c == FormatCode.SYM8 || c == FormatCode.SYM32) {
            dst.read(own);
            return true;
        }
        dst.clear();
        return false;
    }

    /**
     * Positions {@code reader} on the value of message annotation {@code key} (symbol keys); false when absent.
     *
     * @param key the annotation's key
     * @param reader the reader to position
     * @return whether the annotation is there
     */
    public boolean positionOnMessageAnnotation(Symbol key, AmqpReader reader) {
        byte[] k = key.bytes();
        return find(MessageSection.MESSAGE_ANNOTATIONS, false, null, k, 0, k.length, reader);
    }

    /**
     * Positions {@code reader} on the value of delivery annotation {@code key}; false when absent.
     *
     * @param key the annotation's key
     * @param reader the reader to position
     * @return whether the annotation is there
     */
    public boolean positionOnDeliveryAnnotation(Symbol key, AmqpReader reader) {
        byte[] k = key.bytes();
        return find(MessageSection.DELIVERY_ANNOTATIONS, false, null, k, 0, k.length, reader);
    }

    /**
     * Positions {@code reader} on the value of footer entry {@code key}; false when absent.
     *
     * @param key the entry's key
     * @param reader the reader to position
     * @return whether the entry is there
     */
    public boolean positionOnFooterEntry(Symbol key, AmqpReader reader) {
        byte[] k = key.bytes();
        return find(MessageSection.FOOTER, false, null, k, 0, k.length, reader);
    }

    private boolean find(MessageSection section, boolean stringKeys, CharSequence name, byte[] key, int keyOffset,
                         int keyLength, AmqpReader reader) {
        if (!positionOnSection(section, reader)) {
            return false;
        }
        reader.enter();
        reader.next();
        if (reader.next() == FormatCode.NULL) {
            return false;
        }
        reader.enter();
        byte[] b = reader.buffer();
        while (reader.hasNext()) {
            int c = reader.next();
            boolean match = (stringKeys ? c == FormatCode.STR8 || c == FormatCode.STR32
                    : c == FormatCode.SYM8 || c == FormatCode.SYM32)
                    && (name != null
                    ? Utf8Comparison.equals(b, reader.valueOffset(), reader.valueLength(), name)
                    : Arrays.equals(b, reader.valueOffset(), reader.valueEnd(), key, keyOffset, keyOffset + keyLength));
            reader.next();
            if (match) {
                return true;
            }
        }
        return false;
    }

    /**
     * Opens {@code cursor} on the application-properties; false (cursor empty) when absent or empty.
     *
     * @param cursor the cursor to open
     * @return whether there is at least one entry
     */
    public boolean openApplicationProperties(MapCursor cursor) {
        return open(MessageSection.APPLICATION_PROPERTIES, cursor);
    }

    /**
     * Opens {@code cursor} on the message-annotations; false (cursor empty) when absent or empty.
     *
     * @param cursor the cursor to open
     * @return whether there is at least one entry
     */
    public boolean openMessageAnnotations(MapCursor cursor) {
        return open(MessageSection.MESSAGE_ANNOTATIONS, cursor);
    }

    /**
     * Opens {@code cursor} on the delivery-annotations; false (cursor empty) when absent or empty.
     *
     * @param cursor the cursor to open
     * @return whether there is at least one entry
     */
    public boolean openDeliveryAnnotations(MapCursor cursor) {
        return open(MessageSection.DELIVERY_ANNOTATIONS, cursor);
    }

    /**
     * Opens {@code cursor} on the footer; false (cursor empty) when absent or empty.
     *
     * @param cursor the cursor to open
     * @return whether there is at least one entry
     */
    public boolean openFooter(MapCursor cursor) {
        return open(MessageSection.FOOTER, cursor);
    }

    private boolean open(MessageSection section, MapCursor cursor) {
        int s = sectionStart(section);
        if (s < 0) {
            cursor.close();
            return false;
        }
        return cursor.open(buf, s, end[section.ordinal()]);
    }

    /** The section layout, for logs and traces (allocates). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("MessageView[").append(length).append(" bytes");
        for (MessageSection s : MessageSection.values()) {
            int i = s.ordinal();
            if (hasSection(s)) {
                sb.append(", ").append(s.specName()).append('@').append(start[i]).append('-').append(end[i]);
                if (s.isBody() && body.count() > 1) {
                    sb.append(" (").append(body.count()).append(" sections)");
                }
            }
        }
        return sb.append(']').toString();
    }
}
