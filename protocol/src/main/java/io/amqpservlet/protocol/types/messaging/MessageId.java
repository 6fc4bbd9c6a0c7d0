package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.MutableBytes;

/**
 * A reusable holder for a {@code message-id} or {@code correlation-id} (AMQP 1.0 §3.2.11-§3.2.15): the union
 * of ulong, uuid, binary and string. It keeps which of them it holds so that the value is written back with
 * the same AMQP type, which a response's correlation-id must keep (a peer that sent a uuid matches on a uuid).
 * Nothing is boxed: a ulong is a {@code long}, a uuid two {@code long}s, binary and string bytes a
 * {@link MutableBytes} that grows only when a longer id arrives.
 */
public final class MessageId {
    /** Which member of the union is held. */
    public enum Kind {
        /** No id. */
        NULL,
        /** message-id-ulong. */
        ULONG,
        /** message-id-uuid. */
        UUID,
        /** message-id-binary. */
        BINARY,
        /** message-id-string (UTF-8 bytes). */
        STRING
    }

    private Kind kind = Kind.NULL;
    private long ulong;
    private long uuidMsb;
    private long uuidLsb;
    private final MutableBytes bytes = new MutableBytes();
    // Scratch for encoding a CharSequence without a String.getBytes allocation; grows only for longer ids.
    private byte[] scratch = new byte[64];

    /** Creates an empty {@code MessageId}. */
    public MessageId() {
    }

    /** {@return which member of the union is held} */
    public Kind kind() {
        return kind;
    }

    /** {@return whether no id is held} */
    public boolean isNull() {
        return kind == Kind.NULL;
    }

    /**
     * Makes the id absent.
     *
     * @return this, for chaining
     */
    public MessageId clear() {
        kind = Kind.NULL;
        bytes.clear();
        return this;
    }

    /**
     * Holds a ulong id (the 64 bits read as unsigned).
     *
     * @param value the message-id, a ulong (its 64 bits read as unsigned)
     * @return this, for chaining
     */
    public MessageId setULong(long value) {
        kind = Kind.ULONG;
        ulong = value;
        bytes.clear();
        return this;
    }

    /**
     * Holds a uuid id from its two halves.
     *
     * @param mostSignificantBits the uuid's most significant 64 bits
     * @param leastSignificantBits its least significant 64 bits
     * @return this, for chaining
     */
    public MessageId setUuid(long mostSignificantBits, long leastSignificantBits) {
        kind = Kind.UUID;
        uuidMsb = mostSignificantBits;
        uuidLsb = leastSignificantBits;
        bytes.clear();
        return this;
    }

    /**
     * Holds a binary id copied from {@code src[offset, offset + length)}.
     *
     * @param src holds the bytes to copy
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @return this, for chaining
     */
    public MessageId setBinary(byte[] src, int offset, int length) {
        kind = Kind.BINARY;
        bytes.set(src, offset, length);
        return this;
    }

    /**
     * Holds a string id from bytes that are already UTF-8 (not checked).
     *
     * @param utf8 holds the bytes to copy
     * @param offset where they start in {@code utf8}
     * @param length their length in bytes
     * @return this, for chaining
     */
    public MessageId setStringUtf8(byte[] utf8, int offset, int length) {
        kind = Kind.STRING;
        bytes.set(utf8, offset, length);
        return this;
    }

    /**
     * Holds a string id; {@code null} clears. Allocates nothing once the scratch array is large enough.
     *
     * @param text the message-id, a string
     * @return this, for chaining
     */
    public MessageId setString(CharSequence text) {
        if (text == null) {
            return clear();
        }
        int n = Utf8.encodedLength(text);
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
        int end = Utf8.encode(text, scratch, 0);
        return setStringUtf8(scratch, 0, end);
    }

    /**
     * Copies another id, keeping its kind.
     *
     * @param other the value to copy
     * @return this, for chaining
     */
    public MessageId set(MessageId other) {
        kind = other.kind;
        ulong = other.ulong;
        uuidMsb = other.uuidMsb;
        uuidLsb = other.uuidLsb;
        bytes.set(other.bytes);
        return this;
    }

    /** {@return the ulong id; only meaningful when {@link #kind()} is {@link Kind#ULONG}} */
    public long ulongValue() {
        requireKind(Kind.ULONG);
        return ulong;
    }

    /** {@return the uuid's most significant bits; only when {@link #kind()} is {@link Kind#UUID}} */
    public long uuidMostSignificantBits() {
        requireKind(Kind.UUID);
        return uuidMsb;
    }

    /** {@return the uuid's least significant bits; only when {@link #kind()} is {@link Kind#UUID}} */
    public long uuidLeastSignificantBits() {
        requireKind(Kind.UUID);
        return uuidLsb;
    }

    /** {@return the bytes of a binary or string id (UTF-8 for a string); a null holder for the other kinds} Do not modify. */
    public MutableBytes bytes() {
        return bytes;
    }

    private void requireKind(Kind wanted) {
        if (kind != wanted) {
            throw new IllegalStateException("message id is " + kind + ", not " + wanted);
        }
    }

    /**
     * Reads the reader's current value: null, ulong (any unsigned long encoding), uuid, binary or string.
     * Strings are checked to be UTF-8.
     *
     * @param reader the reader to decode from
     * @throws UnexpectedTypeException for any other type (AMQP 1.0 §3.2.11: the union has only these members)
     * @return this, for chaining
     */
    public MessageId read(AmqpReader reader) {
        int code = reader.formatCode();
        switch (code) {
            case FormatCode.NULL:
                return clear();
            case FormatCode.ULONG:
            case FormatCode.SMALLULONG:
            case FormatCode.ULONG0:
                return setULong(reader.getLong());
            case FormatCode.UUID:
                return setUuid(reader.getUuidMostSignificantBits(), reader.getUuidLeastSignificantBits());
            case FormatCode.VBIN8:
            case FormatCode.VBIN32:
                kind = Kind.BINARY;
                bytes.read(reader);
                return this;
            case FormatCode.STR8:
            case FormatCode.STR32:
                kind = Kind.STRING;
                bytes.read(reader); // validates UTF-8
                return this;
            default:
                throw new UnexpectedTypeException("expected a message id (ulong, uuid, binary or string) but found "
                        + FormatCode.name(code), reader.valueStart());
        }
    }

    /**
     * Writes the id with the AMQP type it holds, or null.
     *
     * @param writer the writer to encode into
     */
    public void write(AmqpWriter writer) {
        switch (kind) {
            case ULONG:
                writer.writeULong(ulong);
                return;
            case UUID:
                writer.writeUuid(uuidMsb, uuidLsb);
                return;
            case BINARY:
                bytes.writeBinary(writer);
                return;
            case STRING:
                bytes.writeString(writer);
                return;
            default:
                writer.writeNull();
        }
    }

    /**
     * {@return whether both hold the same kind and value}
     *
     * @param other the value to compare with
     */
    public boolean contentEquals(MessageId other) {
        if (kind != other.kind) {
            return false;
        }
        switch (kind) {
            case ULONG:
                return ulong == other.ulong;
            case UUID:
                return uuidMsb == other.uuidMsb && uuidLsb == other.uuidLsb;
            case BINARY:
            case STRING:
                return bytes.contentEquals(other.bytes);
            default:
                return true;
        }
    }

    /**
     * The id as text (allocates): the string, the unsigned decimal of a ulong, the canonical uuid form, or the
     * hex of a binary; {@code "null"} when absent.
     */
    @Override
    public String toString() {
        switch (kind) {
            case ULONG:
                return Long.toUnsignedString(ulong);
            case UUID:
                return new java.util.UUID(uuidMsb, uuidLsb).toString();
            case STRING:
                return bytes.toString();
            case BINARY: {
                StringBuilder sb = new StringBuilder(bytes.length() * 2);
                byte[] b = bytes.array();
                for (int i = 0; i < bytes.length(); i++) {
                    sb.append(Character.forDigit((b[i] >> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
                }
                return sb.toString();
            }
            default:
                return "null";
        }
    }
}
