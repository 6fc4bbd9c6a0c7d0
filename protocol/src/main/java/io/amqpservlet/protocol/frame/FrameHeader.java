package io.amqpservlet.protocol.frame;

/**
 * The fixed 8-byte frame header of AMQP 1.0 §2.3.1 and its constants:
 *
 * <pre>
 * +------+------+------+------+------+------+------+------+
 * |           SIZE (uint32)   | DOFF | TYPE |  CHANNEL    |  then extended header (DOFF*4 - 8 bytes), body
 * +------+------+------+------+------+------+------+------+
 * </pre>
 *
 * SIZE counts the whole frame including this header; DOFF is the body's offset in 4-byte words (at least 2);
 * a frame of exactly 8 bytes has no body and serves as a heartbeat (§2.4.5).
 */
public final class FrameHeader {
    /** Bytes in the fixed frame header. */
    public static final int SIZE = 8;
    /** The smallest legal data offset, in 4-byte words: the body starts right after the fixed header. */
    public static final int MIN_DOFF = 2;
    /** Frame type of AMQP frames (§2.3.2). */
    public static final int TYPE_AMQP = 0x00;
    /** Frame type of SASL frames (§5.3.1). */
    public static final int TYPE_SASL = 0x01;
    /**
     * MIN-MAX-FRAME-SIZE (§2.7.1): the largest frame either side must accept before open has negotiated a
     * max-frame-size, and the smallest max-frame-size that may be negotiated.
     */
    public static final int MIN_MAX_FRAME_SIZE = 512;

    private FrameHeader() {
    }

    /**
     * Writes a header with DOFF 2 at {@code dst[offset]}.
     *
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @param type the frame type, {@link FrameHeader#TYPE_AMQP} or {@link FrameHeader#TYPE_SASL}
     * @param channel the channel the frame is on
     * @param frameSize the whole frame's size, header included (uint32, held in an int)
     * @return the offset after the header
     */
    public static int write(byte[] dst, int offset, int frameSize, int type, int channel) {
        dst[offset] = (byte) (frameSize >>> 24);
        dst[offset + 1] = (byte) (frameSize >>> 16);
        dst[offset + 2] = (byte) (frameSize >>> 8);
        dst[offset + 3] = (byte) frameSize;
        dst[offset + 4] = MIN_DOFF;
        dst[offset + 5] = (byte) type;
        dst[offset + 6] = (byte) (channel >>> 8);
        dst[offset + 7] = (byte) channel;
        return offset + SIZE;
    }

    /**
     * Writes an empty AMQP frame on channel 0, a heartbeat (§2.4.5); returns the offset after it.
     *
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @return the offset after the frame
     */
    public static int writeHeartbeat(byte[] dst, int offset) {
        return write(dst, offset, SIZE, TYPE_AMQP, 0);
    }

    /**
     * {@return the SIZE field at {@code bytes[offset]} as an unsigned value}
     *
     * @param bytes holds the bytes to read
     * @param offset where it starts in {@code bytes}
     */
    public static long readSize(byte[] bytes, int offset) {
        return ((bytes[offset] & 0xFFL) << 24) | ((bytes[offset + 1] & 0xFF) << 16)
                | ((bytes[offset + 2] & 0xFF) << 8) | (bytes[offset + 3] & 0xFF);
    }
}
