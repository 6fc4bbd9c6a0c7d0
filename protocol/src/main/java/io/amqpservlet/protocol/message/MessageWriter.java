package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;

import java.nio.ByteBuffer;

/**
 * Writes an AMQP 1.0 message (AMQP 1.0 §3.2) section by section into an {@link AmqpWriter}, with typed calls and
 * no intermediate objects: values go straight to the output, maps and lists are sized by the writer's backfill.
 * Sections must come in the spec's order and the writer checks it, so a message it produces always passes
 * {@link MessageView}'s checks. Properties fields are written in field order; skipped fields become nulls and
 * trailing ones are omitted. Nothing is allocated; one writer is reused for every message.
 *
 * <pre>{@code
 * messages.wrap(out)
 *         .header(true)
 *         .startProperties().messageId("req-1").to("/orders/42").subject("POST").endProperties()
 *         .startApplicationProperties().put("accept", "application/json").endApplicationProperties()
 *         .data(body, 0, body.length)
 *         .end();
 * }</pre>
 */
public final class MessageWriter {
    private AmqpWriter out;
    private MessageSection last;
    private MessageSection open;
    private int nextField;
    private int messageStart;

    // Offset of the reserved vbin32 header of a data section opened by startData(), or -1.
    private int openDataAt = -1;

    /** Creates an empty {@code MessageWriter}. */
    public MessageWriter() {
    }

    /**
     * Starts a message at the writer's current position.
     *
     * @param writer the writer the message is encoded into
     * @return this, for chaining
     */
    public MessageWriter wrap(AmqpWriter writer) {
        this.out = writer;
        this.last = null;
        this.open = null;
        this.openDataAt = -1;
        this.messageStart = writer.position();
        return this;
    }

    /** {@return the underlying writer, for values the typed calls do not cover (after a key, or inside an amqp-value)} */
    public AmqpWriter writer() {
        return out;
    }

    /**
     * Finishes the message: checks that no section is left open and returns the message's length in bytes.
     *
     * @return the message's length in bytes
     */
    public int end() {
        if (open != null) {
            throw new IllegalStateException("the " + open.specName() + " section is still open");
        }
        if (openDataAt >= 0) {
            throw new IllegalStateException("a data section started with startData() was not ended");
        }
        return out.position() - messageStart;
    }

    private void begin(MessageSection s) {
        order(s);
        out.writeDescriptor(s.descriptor());
    }

    private void order(MessageSection s) {
        if (out == null) {
            throw new IllegalStateException("wrap a writer first");
        }
        if (open != null) {
            throw new IllegalStateException("the " + open.specName() + " section is still open");
        }
        if (last != null && (s.rank() < last.rank() || (s.rank() == last.rank()
                && (s != last || !s.isBody() || s == MessageSection.AMQP_VALUE)))) {
            // AMQP 1.0 §3.2: the order is fixed and only data and amqp-sequence sections repeat.
            throw new IllegalStateException(s.specName() + " cannot follow " + last.specName());
        }
        last = s;
    }

    private void expectOpen(MessageSection s) {
        if (open != s) {
            throw new IllegalStateException("the " + s.specName() + " section is not open"
                    + (open != null ? "; " + open.specName() + " is" : ""));
        }
    }

    // ------------------------------------------------------------------------------------------ header

    /**
     * Writes a header with only durable set (AMQP 1.0 §3.2.1); a non-durable default header is written as list0.
     *
     * @param durable the header's durable
     * @return this, for chaining
     */
    public MessageWriter header(boolean durable) {
        begin(MessageSection.HEADER);
        out.startList();
        if (durable) {
            out.writeBoolean(true);
        }
        out.endList();
        return this;
    }

    /**
     * Writes a header; defaults (priority 4, ttl -1 meaning none, delivery-count 0, false flags) become nulls
     * and trailing nulls are omitted.
     *
     * @param durable the header's durable
     * @param priority its priority, 0 to 255
     * @param ttlMillis its ttl in milliseconds
     * @param firstAcquirer its first-acquirer
     * @param deliveryCount its delivery-count
     * @return this, for chaining
     */
    public MessageWriter header(boolean durable, int priority, long ttlMillis, boolean firstAcquirer, long deliveryCount) {
        if (priority < 0 || priority > 255) {
            throw new IllegalArgumentException("priority is a ubyte: " + priority);
        }
        int lastField = deliveryCount != 0 ? Header.DELIVERY_COUNT
                : firstAcquirer ? Header.FIRST_ACQUIRER
                : ttlMillis >= 0 ? Header.TTL
                : priority != Header.DEFAULT_PRIORITY ? Header.PRIORITY
                : durable ? Header.DURABLE : -1;
        begin(MessageSection.HEADER);
        out.startList();
        if (lastField >= Header.DURABLE) {
            writeFlag(durable);
        }
        if (lastField >= Header.PRIORITY) {
            if (priority != Header.DEFAULT_PRIORITY) {
                out.writeUByte(priority);
            } else {
                out.writeNull();
            }
        }
        if (lastField >= Header.TTL) {
            if (ttlMillis >= 0) {
                out.writeUInt(ttlMillis);
            } else {
                out.writeNull();
            }
        }
        if (lastField >= Header.FIRST_ACQUIRER) {
            writeFlag(firstAcquirer);
        }
        if (lastField >= Header.DELIVERY_COUNT) {
            out.writeUInt(deliveryCount);
        }
        out.endList();
        return this;
    }

    private void writeFlag(boolean value) {
        if (value) {
            out.writeBoolean(true);
        } else {
            out.writeNull();
        }
    }

    /**
     * Writes {@code header}.
     *
     * @param header the header to write
     * @return this, for chaining
     */
    public MessageWriter header(Header header) {
        order(MessageSection.HEADER);
        header.encode(out); // writes its own descriptor
        return this;
    }

    // ------------------------------------------------------------------------------------------ annotations

    /**
     * Opens the delivery-annotations section; add entries with {@code annotation}, close with {@link #endAnnotations()}.
     *
     * @return this, for chaining
     */
    public MessageWriter startDeliveryAnnotations() {
        return startMap(MessageSection.DELIVERY_ANNOTATIONS);
    }

    /**
     * Opens the message-annotations section; add entries with {@code annotation}, close with {@link #endAnnotations()}.
     *
     * @return this, for chaining
     */
    public MessageWriter startMessageAnnotations() {
        return startMap(MessageSection.MESSAGE_ANNOTATIONS);
    }

    /**
     * Opens the footer section; add entries with {@code annotation}, close with {@link #endAnnotations()}.
     *
     * @return this, for chaining
     */
    public MessageWriter startFooter() {
        return startMap(MessageSection.FOOTER);
    }

    private MessageWriter startMap(MessageSection s) {
        begin(s);
        out.startMap();
        open = s;
        return this;
    }

    private void expectAnnotations() {
        if (open != MessageSection.DELIVERY_ANNOTATIONS && open != MessageSection.MESSAGE_ANNOTATIONS
                && open != MessageSection.FOOTER) {
            throw new IllegalStateException("no annotations section is open");
        }
    }

    /**
     * Writes an annotation key; the caller writes its value next with {@link #writer()}.
     *
     * @param key the annotation's key
     * @return this, for chaining
     */
    public MessageWriter annotationKey(Symbol key) {
        expectAnnotations();
        out.writeSymbol(key);
        return this;
    }

    /**
     * Adds an annotation with a string value.
     *
     * @param key the annotation's key
     * @param value its value, a string
     * @return this, for chaining
     */
    public MessageWriter annotation(Symbol key, CharSequence value) {
        annotationKey(key);
        out.writeString(value);
        return this;
    }

    /**
     * Adds an annotation with a symbol value.
     *
     * @param key the annotation's key
     * @param value its value, a symbol
     * @return this, for chaining
     */
    public MessageWriter annotation(Symbol key, Symbol value) {
        annotationKey(key);
        out.writeSymbol(value);
        return this;
    }

    /**
     * Adds an annotation with a long value.
     *
     * @param key the annotation's key
     * @param value its value, a long
     * @return this, for chaining
     */
    public MessageWriter annotation(Symbol key, long value) {
        annotationKey(key);
        out.writeLong(value);
        return this;
    }

    /**
     * Adds an annotation with a boolean value.
     *
     * @param key the annotation's key
     * @param value its value, a boolean
     * @return this, for chaining
     */
    public MessageWriter annotation(Symbol key, boolean value) {
        annotationKey(key);
        out.writeBoolean(value);
        return this;
    }

    /**
     * Closes the open annotations section (delivery-annotations, message-annotations or footer).
     *
     * @return this, for chaining
     */
    public MessageWriter endAnnotations() {
        expectAnnotations();
        out.endMap();
        open = null;
        return this;
    }

    // ------------------------------------------------------------------------------------------ properties

    /**
     * Opens the properties section; write fields in field order, close with {@link #endProperties()}.
     *
     * @return this, for chaining
     */
    public MessageWriter startProperties() {
        begin(MessageSection.PROPERTIES);
        out.startList();
        open = MessageSection.PROPERTIES;
        nextField = 0;
        return this;
    }

    /** Moves to properties field {@code field}, writing nulls for skipped fields. */
    private void field(int field) {
        expectOpen(MessageSection.PROPERTIES);
        if (field < nextField) {
            throw new IllegalStateException("properties field " + field + " after field " + (nextField - 1)
                    + ": write fields in their order");
        }
        while (nextField < field) {
            out.writeNull();
            nextField++;
        }
        nextField = field + 1;
    }

    /**
     * Sets message-id to a string.
     *
     * @param id the message-id, a string
     * @return this, for chaining
     */
    public MessageWriter messageId(CharSequence id) {
        field(Properties.MESSAGE_ID);
        out.writeString(id);
        return this;
    }

    /**
     * Sets message-id to a ulong.
     *
     * @param id the message-id, a ulong
     * @return this, for chaining
     */
    public MessageWriter messageId(long id) {
        field(Properties.MESSAGE_ID);
        out.writeULong(id);
        return this;
    }

    /**
     * Sets message-id to a uuid.
     *
     * @param mostSignificantBits the uuid's most significant 64 bits
     * @param leastSignificantBits its least significant 64 bits
     * @return this, for chaining
     */
    public MessageWriter messageIdUuid(long mostSignificantBits, long leastSignificantBits) {
        field(Properties.MESSAGE_ID);
        out.writeUuid(mostSignificantBits, leastSignificantBits);
        return this;
    }

    /**
     * Sets message-id from a holder, keeping its type.
     *
     * @param id the message-id, of any of its types
     * @return this, for chaining
     */
    public MessageWriter messageId(MessageId id) {
        field(Properties.MESSAGE_ID);
        id.write(out);
        return this;
    }

    /**
     * Sets user-id (binary).
     *
     * @param bytes holds the user-id
     * @param offset where it starts in {@code bytes}
     * @param length its length in bytes
     * @return this, for chaining
     */
    public MessageWriter userId(byte[] bytes, int offset, int length) {
        field(Properties.USER_ID);
        out.writeBinary(bytes, offset, length);
        return this;
    }

    /**
     * Sets to.
     *
     * @param address the {@code to} address
     * @return this, for chaining
     */
    public MessageWriter to(CharSequence address) {
        field(Properties.TO);
        out.writeString(address);
        return this;
    }

    /**
     * Sets to from a holder of UTF-8 bytes.
     *
     * @param address the {@code to} address
     * @return this, for chaining
     */
    public MessageWriter to(MutableBytes address) {
        field(Properties.TO);
        address.writeString(out);
        return this;
    }

    /**
     * Sets subject.
     *
     * @param subject the {@code subject}
     * @return this, for chaining
     */
    public MessageWriter subject(CharSequence subject) {
        field(Properties.SUBJECT);
        out.writeString(subject);
        return this;
    }

    /**
     * Sets reply-to.
     *
     * @param address the {@code reply-to} address
     * @return this, for chaining
     */
    public MessageWriter replyTo(CharSequence address) {
        field(Properties.REPLY_TO);
        out.writeString(address);
        return this;
    }

    /**
     * Sets reply-to from a holder of UTF-8 bytes.
     *
     * @param address the {@code reply-to} address
     * @return this, for chaining
     */
    public MessageWriter replyTo(MutableBytes address) {
        field(Properties.REPLY_TO);
        address.writeString(out);
        return this;
    }

    /**
     * Sets correlation-id to a string.
     *
     * @param id the correlation-id, a string
     * @return this, for chaining
     */
    public MessageWriter correlationId(CharSequence id) {
        field(Properties.CORRELATION_ID);
        out.writeString(id);
        return this;
    }

    /**
     * Sets correlation-id from a holder, keeping its type.
     *
     * @param id the correlation-id, of any of its types
     * @return this, for chaining
     */
    public MessageWriter correlationId(MessageId id) {
        field(Properties.CORRELATION_ID);
        id.write(out);
        return this;
    }

    /**
     * Sets content-type (a symbol; MIME types are ASCII).
     *
     * @param mimeType the content-type
     * @return this, for chaining
     */
    public MessageWriter contentType(CharSequence mimeType) {
        field(Properties.CONTENT_TYPE);
        out.writeSymbol(mimeType);
        return this;
    }

    /**
     * Sets content-type from a symbol constant.
     *
     * @param mimeType the content-type
     * @return this, for chaining
     */
    public MessageWriter contentType(Symbol mimeType) {
        field(Properties.CONTENT_TYPE);
        out.writeSymbol(mimeType);
        return this;
    }

    /**
     * Sets content-encoding (a symbol).
     *
     * @param encoding the content-encoding
     * @return this, for chaining
     */
    public MessageWriter contentEncoding(CharSequence encoding) {
        field(Properties.CONTENT_ENCODING);
        out.writeSymbol(encoding);
        return this;
    }

    /**
     * Sets absolute-expiry-time in milliseconds since the epoch.
     *
     * @param epochMillis milliseconds since the Unix epoch
     * @return this, for chaining
     */
    public MessageWriter absoluteExpiryTime(long epochMillis) {
        field(Properties.ABSOLUTE_EXPIRY_TIME);
        out.writeTimestamp(epochMillis);
        return this;
    }

    /**
     * Sets creation-time in milliseconds since the epoch.
     *
     * @param epochMillis milliseconds since the Unix epoch
     * @return this, for chaining
     */
    public MessageWriter creationTime(long epochMillis) {
        field(Properties.CREATION_TIME);
        out.writeTimestamp(epochMillis);
        return this;
    }

    /**
     * Sets group-id.
     *
     * @param groupId the group-id
     * @return this, for chaining
     */
    public MessageWriter groupId(CharSequence groupId) {
        field(Properties.GROUP_ID);
        out.writeString(groupId);
        return this;
    }

    /**
     * Sets group-sequence (a uint).
     *
     * @param sequence the group-sequence
     * @return this, for chaining
     */
    public MessageWriter groupSequence(long sequence) {
        field(Properties.GROUP_SEQUENCE);
        out.writeUInt(sequence);
        return this;
    }

    /**
     * Sets reply-to-group-id.
     *
     * @param groupId the reply-to-group-id
     * @return this, for chaining
     */
    public MessageWriter replyToGroupId(CharSequence groupId) {
        field(Properties.REPLY_TO_GROUP_ID);
        out.writeString(groupId);
        return this;
    }

    /**
     * Closes the properties section; fields not written after the last one are omitted.
     *
     * @return this, for chaining
     */
    public MessageWriter endProperties() {
        expectOpen(MessageSection.PROPERTIES);
        out.endList();
        open = null;
        return this;
    }

    /**
     * Writes a whole properties section from {@code properties}.
     *
     * @param properties the properties to write
     * @return this, for chaining
     */
    public MessageWriter properties(Properties properties) {
        order(MessageSection.PROPERTIES);
        properties.encode(out); // writes its own descriptor
        return this;
    }

    // ------------------------------------------------------------------------------------------ application-properties

    /**
     * Opens application-properties; add entries with {@code put}, close with {@link #endApplicationProperties()}.
     *
     * @return this, for chaining
     */
    public MessageWriter startApplicationProperties() {
        begin(MessageSection.APPLICATION_PROPERTIES);
        out.startMap();
        open = MessageSection.APPLICATION_PROPERTIES;
        return this;
    }

    /**
     * Writes a key (AMQP 1.0 §3.2.5: keys are strings); the caller writes a simple value next with {@link #writer()}.
     *
     * @param key the property's name
     * @return this, for chaining
     */
    public MessageWriter putKey(CharSequence key) {
        expectOpen(MessageSection.APPLICATION_PROPERTIES);
        if (key == null) {
            throw new IllegalArgumentException("application-properties keys are strings, not null");
        }
        out.writeString(key);
        return this;
    }

    /**
     * Adds a string property.
     *
     * @param key the property's name
     * @param value its value, a string
     * @return this, for chaining
     */
    public MessageWriter put(CharSequence key, CharSequence value) {
        putKey(key);
        out.writeString(value);
        return this;
    }

    /**
     * Adds a string property from a holder of UTF-8 bytes (null when the holder is null).
     *
     * @param key the property's name
     * @param value its value as UTF-8 bytes, written as a string
     * @return this, for chaining
     */
    public MessageWriter put(CharSequence key, MutableBytes value) {
        putKey(key);
        value.writeString(out);
        return this;
    }

    /**
     * Adds a long property.
     *
     * @param key the property's name
     * @param value its value, a long
     * @return this, for chaining
     */
    public MessageWriter put(CharSequence key, long value) {
        putKey(key);
        out.writeLong(value);
        return this;
    }

    /**
     * Adds an int property.
     *
     * @param key the property's name
     * @param value its value, an int
     * @return this, for chaining
     */
    public MessageWriter put(CharSequence key, int value) {
        putKey(key);
        out.writeInt(value);
        return this;
    }

    /**
     * Adds a boolean property.
     *
     * @param key the property's name
     * @param value its value, a boolean
     * @return this, for chaining
     */
    public MessageWriter put(CharSequence key, boolean value) {
        putKey(key);
        out.writeBoolean(value);
        return this;
    }

    /**
     * Closes application-properties.
     *
     * @return this, for chaining
     */
    public MessageWriter endApplicationProperties() {
        expectOpen(MessageSection.APPLICATION_PROPERTIES);
        out.endMap();
        open = null;
        return this;
    }

    // ------------------------------------------------------------------------------------------ body

    /**
     * Adds a data section with {@code bytes[offset, offset + length)}; call again for more sections.
     *
     * @param bytes holds the section's content
     * @param offset where it starts in {@code bytes}
     * @param length its length in bytes
     * @return this, for chaining
     */
    public MessageWriter data(byte[] bytes, int offset, int length) {
        begin(MessageSection.DATA);
        out.writeBinary(bytes, offset, length);
        return this;
    }

    /**
     * Starts a data section whose length is not known yet: its vbin32 header is reserved now, bytes follow with
     * {@link #appendData(ByteBuffer)} (as many times as they arrive) and {@link #endData()} backfills the size.
     * One section however many pieces: some clients (proton-j based, such as Qpid JMS) keep only the last data
     * section of a message.
     *
     * @return this, for chaining
     */
    public MessageWriter startData() {
        begin(MessageSection.DATA);
        openDataAt = out.reserve(5);
        out.array()[openDataAt] = (byte) FormatCode.VBIN32;
        return this;
    }

    /**
     * Appends the remaining bytes of {@code bytes} to the data section {@link #startData()} opened, without changing its position.
     *
     * @param bytes the bytes to append: the buffer's remaining bytes
     * @return this, for chaining
     */
    public MessageWriter appendData(ByteBuffer bytes) {
        requireOpenData();
        int n = bytes.remaining();
        int at = out.reserve(n);
        bytes.get(bytes.position(), out.array(), at, n);
        return this;
    }

    /**
     * Appends {@code bytes[offset, offset + length)} to the data section {@link #startData()} opened.
     *
     * @param bytes holds the bytes to append
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return this, for chaining
     */
    public MessageWriter appendData(byte[] bytes, int offset, int length) {
        requireOpenData();
        int at = out.reserve(length);
        System.arraycopy(bytes, offset, out.array(), at, length);
        return this;
    }

    /**
     * Ends the data section {@link #startData()} opened, backfilling its size.
     *
     * @return this, for chaining
     */
    public MessageWriter endData() {
        requireOpenData();
        int size = out.position() - openDataAt - 5;
        byte[] a = out.array();
        a[openDataAt + 1] = (byte) (size >>> 24);
        a[openDataAt + 2] = (byte) (size >>> 16);
        a[openDataAt + 3] = (byte) (size >>> 8);
        a[openDataAt + 4] = (byte) size;
        openDataAt = -1;
        return this;
    }

    private void requireOpenData() {
        if (openDataAt < 0) {
            throw new IllegalStateException("no data section started with startData()");
        }
    }

    /**
     * Adds a data section with the remaining bytes of {@code bytes}, without changing its position.
     *
     * @param bytes the section's content: the buffer's remaining bytes
     * @return this, for chaining
     */
    public MessageWriter data(ByteBuffer bytes) {
        begin(MessageSection.DATA);
        out.writeBinary(bytes);
        return this;
    }

    /**
     * Writes an amqp-value body holding a string.
     *
     * @param text the value, a string
     * @return this, for chaining
     */
    public MessageWriter amqpValue(CharSequence text) {
        begin(MessageSection.AMQP_VALUE);
        out.writeString(text);
        return this;
    }

    /**
     * Writes an amqp-value body holding a binary.
     *
     * @param bytes holds the value, a binary
     * @param offset where it starts in {@code bytes}
     * @param length its length in bytes
     * @return this, for chaining
     */
    public MessageWriter amqpValueBinary(byte[] bytes, int offset, int length) {
        begin(MessageSection.AMQP_VALUE);
        out.writeBinary(bytes, offset, length);
        return this;
    }

    /**
     * Starts an amqp-value body: the next value written with {@link #writer()} is the body.
     *
     * @return this, for chaining
     */
    public MessageWriter startAmqpValue() {
        begin(MessageSection.AMQP_VALUE);
        return this;
    }

    /**
     * Opens an amqp-sequence section: write its elements with {@link #writer()}, then {@link #endAmqpSequence()}.
     *
     * @return this, for chaining
     */
    public MessageWriter startAmqpSequence() {
        begin(MessageSection.AMQP_SEQUENCE);
        out.startList();
        open = MessageSection.AMQP_SEQUENCE;
        return this;
    }

    /**
     * Closes the amqp-sequence section.
     *
     * @return this, for chaining
     */
    public MessageWriter endAmqpSequence() {
        expectOpen(MessageSection.AMQP_SEQUENCE);
        out.endList();
        open = null;
        return this;
    }
}
