package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;

/**
 * The {@code properties} section of a message (AMQP 1.0 §3.2.4): the immutable properties of the bare message.
 * A mutable object meant to be reused: {@link #decode} overwrites every field, {@link #clear()} makes every
 * field null. Text fields are {@link MutableBytes} holders (UTF-8 for strings, ASCII for the content-type and
 * content-encoding symbols), so decoding allocates nothing once the holders are large enough; the ids are
 * {@link MessageId}s, which keep their AMQP type.
 *
 * <p>Timestamps are milliseconds since the Unix epoch and group-sequence a uint in a long; each has a presence
 * flag because every value is legal. Encoding omits trailing null fields.
 */
public final class Properties {
    /** Field index of message-id in the properties list. */
    public static final int MESSAGE_ID = 0;
    /** Field index of user-id. */
    public static final int USER_ID = 1;
    /** Field index of to. */
    public static final int TO = 2;
    /** Field index of subject. */
    public static final int SUBJECT = 3;
    /** Field index of reply-to. */
    public static final int REPLY_TO = 4;
    /** Field index of correlation-id. */
    public static final int CORRELATION_ID = 5;
    /** Field index of content-type. */
    public static final int CONTENT_TYPE = 6;
    /** Field index of content-encoding. */
    public static final int CONTENT_ENCODING = 7;
    /** Field index of absolute-expiry-time. */
    public static final int ABSOLUTE_EXPIRY_TIME = 8;
    /** Field index of creation-time. */
    public static final int CREATION_TIME = 9;
    /** Field index of group-id. */
    public static final int GROUP_ID = 10;
    /** Field index of group-sequence. */
    public static final int GROUP_SEQUENCE = 11;
    /** Field index of reply-to-group-id. */
    public static final int REPLY_TO_GROUP_ID = 12;
    /** The number of fields AMQP 1.0 defines. */
    public static final int FIELD_COUNT = 13;

    private final MessageId messageId = new MessageId();
    private final MutableBytes userId = new MutableBytes();
    private final MutableBytes to = new MutableBytes();
    private final MutableBytes subject = new MutableBytes();
    private final MutableBytes replyTo = new MutableBytes();
    private final MessageId correlationId = new MessageId();
    private final MutableBytes contentType = new MutableBytes();
    private final MutableBytes contentEncoding = new MutableBytes();
    private boolean hasAbsoluteExpiryTime;
    private long absoluteExpiryTime;
    private boolean hasCreationTime;
    private long creationTime;
    private final MutableBytes groupId = new MutableBytes();
    private long groupSequence = -1;
    private final MutableBytes replyToGroupId = new MutableBytes();

    /** Creates an empty {@code Properties}. */
    public Properties() {
    }

    /**
     * Makes every field null.
     *
     * @return this, for chaining
     */
    public Properties clear() {
        messageId.clear();
        userId.clear();
        to.clear();
        subject.clear();
        replyTo.clear();
        correlationId.clear();
        contentType.clear();
        contentEncoding.clear();
        hasAbsoluteExpiryTime = false;
        absoluteExpiryTime = 0;
        hasCreationTime = false;
        creationTime = 0;
        groupId.clear();
        groupSequence = -1;
        replyToGroupId.clear();
        return this;
    }

    /** {@return the message-id holder; set it in place} */
    public MessageId messageId() {
        return messageId;
    }

    /** {@return the user-id holder (binary); set it in place} */
    public MutableBytes userId() {
        return userId;
    }

    /** {@return the to holder (address string); set it in place} */
    public MutableBytes to() {
        return to;
    }

    /** {@return the subject holder (string); set it in place} */
    public MutableBytes subject() {
        return subject;
    }

    /** {@return the reply-to holder (address string); set it in place} */
    public MutableBytes replyTo() {
        return replyTo;
    }

    /** {@return the correlation-id holder; set it in place} */
    public MessageId correlationId() {
        return correlationId;
    }

    /** {@return the content-type holder (symbol, a MIME type); set it in place} */
    public MutableBytes contentType() {
        return contentType;
    }

    /** {@return the content-encoding holder (symbol); set it in place} */
    public MutableBytes contentEncoding() {
        return contentEncoding;
    }

    /** {@return whether absolute-expiry-time is set} */
    public boolean hasAbsoluteExpiryTime() {
        return hasAbsoluteExpiryTime;
    }

    /** {@return the absolute expiry time in milliseconds since the epoch; meaningful only when set} */
    public long absoluteExpiryTime() {
        return absoluteExpiryTime;
    }

    /**
     * Sets absolute-expiry-time in milliseconds since the epoch.
     *
     * @param epochMillis the new value
     * @return this, for chaining
     */
    public Properties absoluteExpiryTime(long epochMillis) {
        hasAbsoluteExpiryTime = true;
        absoluteExpiryTime = epochMillis;
        return this;
    }

    /**
     * Makes absolute-expiry-time null.
     *
     * @return this, for chaining
     */
    public Properties clearAbsoluteExpiryTime() {
        hasAbsoluteExpiryTime = false;
        absoluteExpiryTime = 0;
        return this;
    }

    /** {@return whether creation-time is set} */
    public boolean hasCreationTime() {
        return hasCreationTime;
    }

    /** {@return the creation time in milliseconds since the epoch; meaningful only when set} */
    public long creationTime() {
        return creationTime;
    }

    /**
     * Sets creation-time in milliseconds since the epoch.
     *
     * @param epochMillis the new value
     * @return this, for chaining
     */
    public Properties creationTime(long epochMillis) {
        hasCreationTime = true;
        creationTime = epochMillis;
        return this;
    }

    /**
     * Makes creation-time null.
     *
     * @return this, for chaining
     */
    public Properties clearCreationTime() {
        hasCreationTime = false;
        creationTime = 0;
        return this;
    }

    /** {@return the group-id holder (string); set it in place} */
    public MutableBytes groupId() {
        return groupId;
    }

    /** {@return whether group-sequence is set} */
    public boolean hasGroupSequence() {
        return groupSequence >= 0;
    }

    /** {@return the group-sequence (a uint sequence number), or -1 when null} */
    public long groupSequence() {
        return groupSequence;
    }

    /**
     * Sets group-sequence, 0 to 2^32-1; -1 makes it null.
     *
     * @param value the new value
     * @return this, for chaining
     */
    public Properties groupSequence(long value) {
        if (value < -1 || value > 0xFFFFFFFFL) {
            throw new IllegalArgumentException("group-sequence is a uint: " + value);
        }
        groupSequence = value;
        return this;
    }

    /** {@return the reply-to-group-id holder (string); set it in place} */
    public MutableBytes replyToGroupId() {
        return replyToGroupId;
    }

    /**
     * Reads the properties section the reader is positioned on and leaves the reader after it. Text fields
     * are validated (UTF-8 strings, ASCII symbols) as they are copied.
     *
     * @param reader the reader to decode from
     * @return this, for chaining
     */
    public Properties decode(AmqpReader reader) {
        SectionDescriptor.enter(reader, Descriptors.PROPERTIES, "properties", true);
        reader.enter();
        // AMQP 1.0 §1.4: trailing null fields may be omitted; nextField reads them as null.
        reader.nextField();
        messageId.read(reader);
        reader.nextField();
        userId.read(reader);
        reader.nextField();
        to.read(reader);
        reader.nextField();
        subject.read(reader);
        reader.nextField();
        replyTo.read(reader);
        reader.nextField();
        correlationId.read(reader);
        reader.nextField();
        contentType.read(reader);
        reader.nextField();
        contentEncoding.read(reader);
        reader.nextField();
        hasAbsoluteExpiryTime = !reader.isNull();
        absoluteExpiryTime = hasAbsoluteExpiryTime ? reader.getTimestamp() : 0;
        reader.nextField();
        hasCreationTime = !reader.isNull();
        creationTime = hasCreationTime ? reader.getTimestamp() : 0;
        reader.nextField();
        groupId.read(reader);
        reader.nextField();
        groupSequence = reader.isNull() ? -1 : reader.getUnsignedInt();
        reader.nextField();
        replyToGroupId.read(reader);
        reader.exit(); // the list, and with it the section

        return this;
    }

    private int lastNonNullField() {
        if (!replyToGroupId.isNull()) {
            return REPLY_TO_GROUP_ID;
        }
        if (groupSequence >= 0) {
            return GROUP_SEQUENCE;
        }
        if (!groupId.isNull()) {
            return GROUP_ID;
        }
        if (hasCreationTime) {
            return CREATION_TIME;
        }
        if (hasAbsoluteExpiryTime) {
            return ABSOLUTE_EXPIRY_TIME;
        }
        if (!contentEncoding.isNull()) {
            return CONTENT_ENCODING;
        }
        if (!contentType.isNull()) {
            return CONTENT_TYPE;
        }
        if (!correlationId.isNull()) {
            return CORRELATION_ID;
        }
        if (!replyTo.isNull()) {
            return REPLY_TO;
        }
        if (!subject.isNull()) {
            return SUBJECT;
        }
        if (!to.isNull()) {
            return TO;
        }
        if (!userId.isNull()) {
            return USER_ID;
        }
        return messageId.isNull() ? -1 : MESSAGE_ID;
    }

    /**
     * Writes the properties section, omitting trailing null fields.
     *
     * @param writer the writer to encode into
     */
    public void encode(AmqpWriter writer) {
        int last = lastNonNullField();
        writer.writeDescriptor(Descriptors.PROPERTIES);
        writer.startList();
        for (int i = 0; i <= last; i++) {
            writeField(i, writer);
        }
        writer.endList();
    }

    private void writeField(int i, AmqpWriter writer) {
        switch (i) {
            case MESSAGE_ID:
                messageId.write(writer);
                return;
            case USER_ID:
                userId.writeBinary(writer);
                return;
            case TO:
                to.writeString(writer);
                return;
            case SUBJECT:
                subject.writeString(writer);
                return;
            case REPLY_TO:
                replyTo.writeString(writer);
                return;
            case CORRELATION_ID:
                correlationId.write(writer);
                return;
            case CONTENT_TYPE:
                contentType.writeSymbol(writer);
                return;
            case CONTENT_ENCODING:
                contentEncoding.writeSymbol(writer);
                return;
            case ABSOLUTE_EXPIRY_TIME:
                if (hasAbsoluteExpiryTime) {
                    writer.writeTimestamp(absoluteExpiryTime);
                } else {
                    writer.writeNull();
                }
                return;
            case CREATION_TIME:
                if (hasCreationTime) {
                    writer.writeTimestamp(creationTime);
                } else {
                    writer.writeNull();
                }
                return;
            case GROUP_ID:
                groupId.writeString(writer);
                return;
            case GROUP_SEQUENCE:
                if (groupSequence >= 0) {
                    writer.writeUInt(groupSequence);
                } else {
                    writer.writeNull();
                }
                return;
            default:
                replyToGroupId.writeString(writer);
        }
    }

    /** A readable form for logs and traces (allocates). */
    @Override
    public String toString() {
        return "Properties[messageId=" + messageId + ", userId=" + (userId.isNull() ? "null" : userId.length() + " bytes")
                + ", to=" + to + ", subject=" + subject + ", replyTo=" + replyTo + ", correlationId=" + correlationId
                + ", contentType=" + contentType + ", contentEncoding=" + contentEncoding
                + ", absoluteExpiryTime=" + (hasAbsoluteExpiryTime ? Long.toString(absoluteExpiryTime) : "null")
                + ", creationTime=" + (hasCreationTime ? Long.toString(creationTime) : "null")
                + ", groupId=" + groupId + ", groupSequence=" + (groupSequence < 0 ? "null" : Long.toString(groupSequence))
                + ", replyToGroupId=" + replyToGroupId + "]";
    }
}
