package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;

import java.util.Arrays;

/**
 * Copies a message to another {@link AmqpWriter} while changing a few fields, without decoding the rest: header
 * fields, message annotations added or replaced, a few properties fields, delivery-annotations dropped. The
 * sections it changes are rebuilt field by field with the unchanged fields copied as raw encoded bytes; every
 * other section is copied byte for byte. A changed section that did not exist is created in its place in the
 * section order.
 *
 * <p>AMQP 1.0 §3.2: the header, delivery-annotations and message-annotations are where an intermediary may
 * change a message; properties belong to the bare message, which an intermediary must not change (footer
 * signatures cover it). The properties setters are for building a new message from a received one, such as a
 * response from its request.
 *
 * <p>Edits hold references to the values given (CharSequence, {@link MutableBytes}, {@link MessageId}) until
 * {@link #writeTo}; annotation values are encoded when put. One editor is reused: {@link #edit} starts over and
 * nothing is allocated once its buffers are large enough.
 *
 * <pre>{@code
 * editor.edit(view).ttlMillis(30_000).putMessageAnnotation(HOP, "gw-1").dropDeliveryAnnotations();
 * editor.writeTo(out);
 * }</pre>
 */
public final class MessageEditor {
    // The sections before application-properties, in order.
    private static final MessageSection[] LEADING = {
        MessageSection.HEADER, MessageSection.DELIVERY_ANNOTATIONS, MessageSection.MESSAGE_ANNOTATIONS,
        MessageSection.PROPERTIES
    };

    private final AmqpReader reader = new AmqpReader();
    private MessageView source;

    // Header fields to set: bit i for Header field i.
    private int headerMask;
    private boolean durable;
    private int priority;
    private long ttlMillis;
    private boolean firstAcquirer;
    private long deliveryCount;

    // Properties fields to set: bit i for Properties field i; the value is a CharSequence, MutableBytes or MessageId.
    private int propertiesMask;
    private final Object[] propertyValue = new Object[Properties.FIELD_COUNT];

    private boolean dropDeliveryAnnotations;

    // Message annotations to add: each key and its encoded value, in the scratch writer.
    private final AmqpWriter annotations = new AmqpWriter(256);
    private Symbol[] annotationKey = new Symbol[4];
    private int[] annotationValueStart = new int[4];
    private int[] annotationValueEnd = new int[4];
    private int annotationCount;

    /** Creates an empty {@code MessageEditor}. */
    public MessageEditor() {
    }

    /**
     * Starts editing the message {@code message} shows, forgetting earlier edits.
     *
     * @param message the message to copy with the edits
     * @return this, for chaining
     */
    public MessageEditor edit(MessageView message) {
        source = message;
        headerMask = 0;
        propertiesMask = 0;
        Arrays.fill(propertyValue, null);
        dropDeliveryAnnotations = false;
        annotations.clear();
        Arrays.fill(annotationKey, 0, annotationCount, null);
        annotationCount = 0;
        return this;
    }

    // ------------------------------------------------------------------------------------------ edits

    /**
     * Sets header durable.
     *
     * @param value the header's new durable
     * @return this, for chaining
     */
    public MessageEditor durable(boolean value) {
        durable = value;
        headerMask |= 1 << Header.DURABLE;
        return this;
    }

    /**
     * Sets header priority (0-255).
     *
     * @param value the header's new priority, 0 to 255
     * @return this, for chaining
     */
    public MessageEditor priority(int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("priority is a ubyte: " + value);
        }
        priority = value;
        headerMask |= 1 << Header.PRIORITY;
        return this;
    }

    /**
     * Sets header ttl in milliseconds (a uint); -1 removes it.
     *
     * @param value the header's new ttl in milliseconds
     * @return this, for chaining
     */
    public MessageEditor ttlMillis(long value) {
        if (value < -1 || value > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("ttl is a uint of milliseconds: " + value);
        }
        ttlMillis = value;
        headerMask |= 1 << Header.TTL;
        return this;
    }

    /**
     * Sets header first-acquirer.
     *
     * @param value the header's new first-acquirer
     * @return this, for chaining
     */
    public MessageEditor firstAcquirer(boolean value) {
        firstAcquirer = value;
        headerMask |= 1 << Header.FIRST_ACQUIRER;
        return this;
    }

    /**
     * Sets header delivery-count (a uint).
     *
     * @param value the header's new delivery-count
     * @return this, for chaining
     */
    public MessageEditor deliveryCount(long value) {
        if (value < 0 || value > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("delivery-count is a uint: " + value);
        }
        deliveryCount = value;
        headerMask |= 1 << Header.DELIVERY_COUNT;
        return this;
    }

    /**
     * Leaves the delivery-annotations out of the copy (AMQP 1.0 §3.2.2: they are for the next hop only).
     *
     * @return this, for chaining
     */
    public MessageEditor dropDeliveryAnnotations() {
        dropDeliveryAnnotations = true;
        return this;
    }

    /**
     * Adds or replaces a message annotation with a string value.
     *
     * @param key the annotation's key
     * @param value its value, a string
     * @return this, for chaining
     */
    public MessageEditor putMessageAnnotation(Symbol key, CharSequence value) {
        int at = annotationKey(key);
        annotations.writeString(value);
        annotationValueEnd[at] = annotations.position();
        return this;
    }

    /**
     * Adds or replaces a message annotation with a symbol value.
     *
     * @param key the annotation's key
     * @param value its value, a symbol
     * @return this, for chaining
     */
    public MessageEditor putMessageAnnotation(Symbol key, Symbol value) {
        int at = annotationKey(key);
        annotations.writeSymbol(value);
        annotationValueEnd[at] = annotations.position();
        return this;
    }

    /**
     * Adds or replaces a message annotation with a long value.
     *
     * @param key the annotation's key
     * @param value its value, a long
     * @return this, for chaining
     */
    public MessageEditor putMessageAnnotation(Symbol key, long value) {
        int at = annotationKey(key);
        annotations.writeLong(value);
        annotationValueEnd[at] = annotations.position();
        return this;
    }

    /**
     * Adds or replaces a message annotation with a boolean value.
     *
     * @param key the annotation's key
     * @param value its value, a boolean
     * @return this, for chaining
     */
    public MessageEditor putMessageAnnotation(Symbol key, boolean value) {
        int at = annotationKey(key);
        annotations.writeBoolean(value);
        annotationValueEnd[at] = annotations.position();
        return this;
    }

    /**
     * Adds or replaces a message annotation with a complete encoded value.
     *
     * @param key the annotation's key
     * @param encoded holds the value's complete encoding
     * @param offset where it starts in {@code encoded}
     * @param length its length in bytes
     * @return this, for chaining
     */
    public MessageEditor putMessageAnnotationEncoded(Symbol key, byte[] encoded, int offset, int length) {
        int at = annotationKey(key);
        annotations.writeEncoded(encoded, offset, length);
        annotationValueEnd[at] = annotations.position();
        return this;
    }

    private int annotationKey(Symbol key) {
        for (int i = 0; i < annotationCount; i++) {
            if (annotationKey[i].equals(key)) {
                throw new IllegalStateException("message annotation " + key + " is already set in this edit");
            }
        }
        if (annotationCount == annotationKey.length) {
            int n = annotationCount * 2;
            annotationKey = Arrays.copyOf(annotationKey, n);
            annotationValueStart = Arrays.copyOf(annotationValueStart, n);
            annotationValueEnd = Arrays.copyOf(annotationValueEnd, n);
        }
        int i = annotationCount++;
        annotationKey[i] = key;
        annotationValueStart[i] = annotations.position();
        return i;
    }

    /**
     * Sets properties {@code to}; null makes it null.
     *
     * @param address the new {@code to}
     * @return this, for chaining
     */
    public MessageEditor to(CharSequence address) {
        return property(Properties.TO, address);
    }

    /**
     * Sets properties {@code to} from UTF-8 bytes.
     *
     * @param address the new {@code to}
     * @return this, for chaining
     */
    public MessageEditor to(MutableBytes address) {
        return property(Properties.TO, address);
    }

    /**
     * Sets properties {@code reply-to}; null makes it null.
     *
     * @param address the new {@code reply-to}
     * @return this, for chaining
     */
    public MessageEditor replyTo(CharSequence address) {
        return property(Properties.REPLY_TO, address);
    }

    /**
     * Sets properties {@code reply-to} from UTF-8 bytes.
     *
     * @param address the new {@code reply-to}
     * @return this, for chaining
     */
    public MessageEditor replyTo(MutableBytes address) {
        return property(Properties.REPLY_TO, address);
    }

    /**
     * Sets properties {@code subject}; null makes it null.
     *
     * @param subject the new {@code subject}
     * @return this, for chaining
     */
    public MessageEditor subject(CharSequence subject) {
        return property(Properties.SUBJECT, subject);
    }

    /**
     * Sets properties {@code correlation-id}, keeping the holder's type.
     *
     * @param id the new {@code correlation-id}
     * @return this, for chaining
     */
    public MessageEditor correlationId(MessageId id) {
        return property(Properties.CORRELATION_ID, id);
    }

    /**
     * Sets properties {@code message-id}, keeping the holder's type.
     *
     * @param id the new {@code message-id}
     * @return this, for chaining
     */
    public MessageEditor messageId(MessageId id) {
        return property(Properties.MESSAGE_ID, id);
    }

    private MessageEditor property(int field, Object value) {
        propertyValue[field] = value;
        propertiesMask |= 1 << field;
        return this;
    }

    // ------------------------------------------------------------------------------------------ copy

    /**
     * Writes the edited message at the writer's position; returns its length in bytes.
     *
     * @param out the writer to write the edited message into
     * @return the edited message's length in bytes
     */
    public int writeTo(AmqpWriter out) {
        MessageView v = source;
        if (v == null) {
            throw new IllegalStateException("call edit(view) first");
        }
        byte[] buf = v.buffer();
        int begin = out.position();
        if (headerMask != 0) {
            writeHeader(out, v);
        } else {
            copySection(out, v, MessageSection.HEADER);
        }
        if (!dropDeliveryAnnotations) {
            copySection(out, v, MessageSection.DELIVERY_ANNOTATIONS);
        }
        if (annotationCount != 0) {
            writeMessageAnnotations(out, v);
        } else {
            copySection(out, v, MessageSection.MESSAGE_ANNOTATIONS);
        }
        if (propertiesMask != 0) {
            writeProperties(out, v);
        } else {
            copySection(out, v, MessageSection.PROPERTIES);
        }
        // Application-properties, body and footer follow contiguously: one copy.
        int rest = v.offset();
        for (int i = LEADING.length - 1; i >= 0; i--) {
            int e = v.sectionEnd(LEADING[i]);
            if (e >= 0) {
                rest = e;
                break;
            }
        }
        int restLength = v.offset() + v.length() - rest;
        if (restLength > 0) {
            out.writeEncoded(buf, rest, restLength);
        }
        return out.position() - begin;
    }

    private static void copySection(AmqpWriter out, MessageView v, MessageSection s) {
        int start = v.sectionStart(s);
        if (start >= 0) {
            out.writeEncoded(v.buffer(), start, v.sectionEnd(s) - start);
        }
    }

    /** Opens the list of a list section in the reader and returns its field count, or 0 when absent. */
    private int enterList(MessageView v, MessageSection s) {
        if (!v.positionOnSection(s, reader)) {
            return 0;
        }
        reader.enter();
        reader.next();
        reader.next();
        reader.enter();
        return reader.remaining();
    }

    private void writeHeader(AmqpWriter out, MessageView v) {
        int existing = enterList(v, MessageSection.HEADER);
        int fields = Math.max(existing, 32 - Integer.numberOfLeadingZeros(headerMask));
        out.writeDescriptor(MessageSection.HEADER.descriptor());
        out.startList();
        for (int i = 0; i < fields; i++) {
            boolean present = i < existing;
            if (present) {
                reader.next();
            }
            if ((headerMask & (1 << i)) != 0) {
                writeHeaderField(out, i);
            } else if (present) {
                out.writeEncoded(reader.buffer(), reader.valueStart(), reader.valueEnd() - reader.valueStart());
            } else {
                out.writeNull();
            }
        }
        out.endList();
    }

    private void writeHeaderField(AmqpWriter out, int field) {
        switch (field) {
            case Header.DURABLE:
                out.writeBoolean(durable);
                return;
            case Header.PRIORITY:
                out.writeUByte(priority);
                return;
            case Header.TTL:
                if (ttlMillis >= 0) {
                    out.writeUInt(ttlMillis);
                } else {
                    out.writeNull();
                }
                return;
            case Header.FIRST_ACQUIRER:
                out.writeBoolean(firstAcquirer);
                return;
            default:
                out.writeUInt(deliveryCount);
        }
    }

    private void writeProperties(AmqpWriter out, MessageView v) {
        int existing = enterList(v, MessageSection.PROPERTIES);
        int fields = Math.max(existing, 32 - Integer.numberOfLeadingZeros(propertiesMask));
        out.writeDescriptor(MessageSection.PROPERTIES.descriptor());
        out.startList();
        for (int i = 0; i < fields; i++) {
            boolean present = i < existing;
            if (present) {
                reader.next();
            }
            if ((propertiesMask & (1 << i)) != 0) {
                writePropertyValue(out, propertyValue[i]);
            } else if (present) {
                out.writeEncoded(reader.buffer(), reader.valueStart(), reader.valueEnd() - reader.valueStart());
            } else {
                out.writeNull();
            }
        }
        out.endList();
    }

    private static void writePropertyValue(AmqpWriter out, Object value) {
        if (value instanceof MessageId) {
            ((MessageId) value).write(out);
        } else if (value instanceof MutableBytes) {
            ((MutableBytes) value).writeString(out);
        } else {
            out.writeString((CharSequence) value); // null writes null
        }
    }

    private void writeMessageAnnotations(AmqpWriter out, MessageView v) {
        out.writeDescriptor(MessageSection.MESSAGE_ANNOTATIONS.descriptor());
        out.startMap();
        if (v.positionOnSection(MessageSection.MESSAGE_ANNOTATIONS, reader)) {
            reader.enter();
            reader.next();
            if (reader.next() != FormatCode.NULL) {
                reader.enter();
                byte[] b = reader.buffer();
                while (reader.hasNext()) {
                    reader.next();
                    int keyStart = reader.valueStart();
                    int keyEnd = reader.valueEnd();
                    boolean replaced = isReplaced();
                    reader.next();
                    if (!replaced) {
                        out.writeEncoded(b, keyStart, keyEnd - keyStart);
                        out.writeEncoded(b, reader.valueStart(), reader.valueEnd() - reader.valueStart());
                    }
                }
            }
        }
        byte[] a = annotations.array();
        for (int i = 0; i < annotationCount; i++) {
            out.writeSymbol(annotationKey[i]);
            out.writeEncoded(a, annotationValueStart[i], annotationValueEnd[i] - annotationValueStart[i]);
        }
        out.endMap();
    }

    /** Whether the key under the reader is one this edit puts (annotation keys are symbols, AMQP 1.0 §3.2.10). */
    private boolean isReplaced() {
        int c = reader.formatCode();
        if (c != FormatCode.SYM8 && c != FormatCode.SYM32) {
            return false;
        }
        byte[] b = reader.buffer();
        for (int i = 0; i < annotationCount; i++) {
            if (annotationKey[i].matches(b, reader.valueOffset(), reader.valueLength())) {
                return true;
            }
        }
        return false;
    }
}
