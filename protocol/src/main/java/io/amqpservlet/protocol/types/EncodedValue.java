package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;

import java.util.Arrays;

/**
 * A reusable holder for one complete encoded value kept as bytes: fields whose content the engine passes on
 * rather than interprets, such as the {@code properties} maps of open and attach, a source's filter set, or
 * message annotations. Decoding copies the value's bytes (constructor included); encoding writes them back
 * unchanged; {@link #reader(AmqpReader)} reads them on demand. Nothing is allocated once the holder's array is
 * large enough.
 */
public final class EncodedValue {
    /** Shared until the first value: most fields of a connection's performatives stay null. */
    private static final byte[] NO_BYTES = {};
    private byte[] bytes = NO_BYTES;
    private int length;

    /** Creates an empty {@code EncodedValue}. */
    public EncodedValue() {
    }

    /** {@return whether the field is absent (no bytes, or an encoded null)} */
    public boolean isNull() {
        return length == 0 || (length == 1 && (bytes[0] & 0xFF) == FormatCode.NULL);
    }

    /** {@return the encoded length in bytes (0 when absent)} */
    public int length() {
        return length;
    }

    /**
     * The holder's array; bytes {@code [0, length())} are the encoded value.
     *
     * @return the array holding the encoded value
     */
    public byte[] array() {
        return bytes;
    }

    /**
     * Makes the field absent.
     *
     * @return this, for chaining
     */
    public EncodedValue clear() {
        length = 0;
        return this;
    }

    /**
     * Sets the value to a copy of the complete encoded value {@code src[offset, offset + length)}.
     *
     * @param src holds the bytes to copy
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @return this, for chaining
     */
    public EncodedValue set(byte[] src, int offset, int length) {
        if (bytes.length < length) {
            bytes = new byte[Math.max(length, Math.min(Integer.MAX_VALUE - 16, bytes.length * 2))];
        }
        System.arraycopy(src, offset, bytes, 0, length);
        this.length = length;
        return this;
    }

    /**
     * Sets the value from the writer's output {@code [start(), position())}: build it with a scratch writer.
     *
     * @param writer a scratch writer holding the encoded value
     * @return this, for chaining
     */
    public EncodedValue set(AmqpWriter writer) {
        return set(writer.array(), writer.start(), writer.length());
    }

    /**
     * Copies the reader's current value, whatever its type; an encoded null makes the field absent.
     *
     * @param reader the reader to decode from
     * @return this, for chaining
     */
    public EncodedValue read(AmqpReader reader) {
        if (reader.isNull()) {
            return clear();
        }
        return set(reader.buffer(), reader.valueStart(), reader.valueEnd() - reader.valueStart());
    }

    /**
     * Writes the value, or null when absent.
     *
     * @param writer the writer to encode into
     */
    public void write(AmqpWriter writer) {
        if (length == 0) {
            writer.writeNull();
        } else {
            writer.writeEncoded(bytes, 0, length);
        }
    }

    /**
     * Points {@code reader} at the held bytes and moves it to the value, ready for its getters or {@code enter()}.
     *
     * @param reader the reader to position on the held value
     * @return {@code reader}, on the held value
     */
    public AmqpReader reader(AmqpReader reader) {
        if (length == 0) {
            throw new IllegalStateException("no value");
        }
        reader.wrap(bytes, 0, length);
        reader.next();
        return reader;
    }

    /**
     * {@return whether both hold the same bytes}
     *
     * @param other the value to compare with
     */
    public boolean contentEquals(EncodedValue other) {
        return Arrays.equals(bytes, 0, length, other.bytes, 0, other.length);
    }

    /** {@return a copy of the encoded bytes (allocates)} */
    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }
}
