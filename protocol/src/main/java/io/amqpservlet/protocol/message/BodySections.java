package io.amqpservlet.protocol.message;

import java.util.Arrays;

/**
 * Where the body sections of a {@link MessageView}'s message are (AMQP 1.0 §3.2: one or more data sections,
 * one or more amqp-sequence sections, or one amqp-value section): each section's span and the offset and length
 * of its content in the view's buffer, so a data body is read zero-copy. Owned and refilled by its view; the
 * offset arrays grow (and stay grown) only when a message has more body sections than any before, so a message
 * may have any number of data sections.
 */
public final class BodySections {
    private byte[] buf;
    private MessageSection kind;
    private int count;
    private int[] start = new int[4];
    private int[] end = new int[4];
    // For data: the binary's content; for amqp-sequence and amqp-value: the encoded value after the descriptor.
    private int[] contentOffset = new int[4];
    private int[] contentLength = new int[4];
    private long dataLength;

    BodySections() {
    }

    void reset(byte[] buffer) {
        if (buf != buffer) {
            buf = buffer; // reference stores cost a GC barrier: none when the buffer is the same as last time
        }
        if (kind != null) {
            kind = null;
        }
        count = 0;
        dataLength = 0;
    }

    void add(MessageSection section, int sectionStart, int sectionEnd, int valueOffset, int valueLength) {
        if (count == start.length) {
            int n = count * 2;
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
            contentOffset = Arrays.copyOf(contentOffset, n);
            contentLength = Arrays.copyOf(contentLength, n);
        }
        int i = count++;
        start[i] = sectionStart;
        end[i] = sectionEnd;
        contentOffset[i] = valueOffset;
        contentLength[i] = valueLength;
        if (section == MessageSection.DATA) {
            dataLength += valueLength;
        }
        kind = section;
    }

    /** {@return the body's kind ({@link MessageSection#DATA}, {@code AMQP_SEQUENCE} or {@code AMQP_VALUE}), or null without a body} */
    public MessageSection kind() {
        return kind;
    }

    /** {@return the number of body sections (one for amqp-value, zero without a body)} */
    public int count() {
        return count;
    }

    /**
     * {@return offset of body section {@code index}'s first byte (its described-value constructor)}
     *
     * @param index which body section, from 0
     */
    public int sectionStart(int index) {
        checkIndex(index);
        return start[index];
    }

    /**
     * {@return offset just after body section {@code index}}
     *
     * @param index which body section, from 0
     */
    public int sectionEnd(int index) {
        checkIndex(index);
        return end[index];
    }

    /**
     * {@return offset of section {@code index}'s content: a data section's bytes, or the encoded list or value of an
     * amqp-sequence or amqp-value section}
     *
     * @param index which body section, from 0
     */
    public int contentOffset(int index) {
        checkIndex(index);
        return contentOffset[index];
    }

    /**
     * {@return length of section {@code index}'s content}
     *
     * @param index which body section, from 0
     */
    public int contentLength(int index) {
        checkIndex(index);
        return contentLength[index];
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("body section " + index + " of " + count);
        }
    }

    /** {@return the number of data sections: all body sections when the body is data, else 0} */
    public int dataSectionCount() {
        return kind == MessageSection.DATA ? count : 0;
    }

    /**
     * {@return offset in the view's buffer of data section {@code index}'s bytes}
     *
     * @param index which data section, from 0
     */
    public int dataOffset(int index) {
        checkDataIndex(index);
        return contentOffset[index];
    }

    /**
     * {@return length of data section {@code index}'s bytes}
     *
     * @param index which data section, from 0
     */
    public int dataLength(int index) {
        checkDataIndex(index);
        return contentLength[index];
    }

    private void checkDataIndex(int index) {
        if (kind != MessageSection.DATA || index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("data section " + index + " of " + dataSectionCount());
        }
    }

    /** {@return the total length of all data sections' bytes (0 when the body is not data)} */
    public long dataLength() {
        return dataLength;
    }

    /**
     * Copies the data sections' bytes, concatenated, into {@code dst} at {@code dstOffset}; returns the number
     * copied. {@code dst} must have room for {@link #dataLength()} bytes.
     *
     * @param dst where to copy the bytes
     * @param dstOffset where in {@code dst} the first byte goes
     * @return the number of bytes copied
     */
    public int copyData(byte[] dst, int dstOffset) {
        int p = dstOffset;
        for (int i = 0, n = dataSectionCount(); i < n; i++) {
            System.arraycopy(buf, contentOffset[i], dst, p, contentLength[i]);
            p += contentLength[i];
        }
        return p - dstOffset;
    }
}
