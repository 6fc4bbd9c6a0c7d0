package io.amqpservlet.protocol.frame;

/**
 * Finds the next complete frame in a region of a byte array without copying it (AMQP 1.0 §2.3). A flyweight:
 * {@link #read} either reports how many more bytes are needed, or describes the frame at the start of the region
 * through {@link #type()}, {@link #channel()}, {@link #bodyOffset()} and {@link #bodyLength()} until the next
 * call. The extended header (DOFF above 2) is skipped; an empty body is a heartbeat (§2.4.5). Allocates nothing.
 *
 * <pre>{@code
 * while (reader.read(buf.array(), buf.readIndex(), buf.readable())) {
 *     handle(reader.type(), reader.channel(), buf.array(), reader.bodyOffset(), reader.bodyLength());
 *     buf.consume(reader.frameSize());
 * }
 * buf.ensureWritable(reader.bytesNeeded());
 * }</pre>
 *
 * <p>Frame size limit: until {@link #useNegotiatedLimit()} is called the limit is 512 bytes
 * (MIN-MAX-FRAME-SIZE, §2.7.1: no peer may send more before it has seen our open); after it, the max-frame-size
 * given to the constructor, which is the one our open frame advertises. Not thread-safe.
 */
public final class FrameReader {
    private final int maxFrameSizeBytes;
    private int limitBytes = FrameHeader.MIN_MAX_FRAME_SIZE;

    private int frameSize;
    private int bodyOffset;
    private int bodyLength;
    private int type;
    private int channel;
    private int bytesNeeded = FrameHeader.SIZE;

    /**
     * A reader that enforces {@code maxFrameSizeBytes} once {@link #useNegotiatedLimit()} is called. AMQP's
     * max-frame-size is a uint; limits above {@link Integer#MAX_VALUE} are not supported by a byte array.
     *
     * @param maxFrameSizeBytes the largest frame accepted, in bytes
     */
    public FrameReader(int maxFrameSizeBytes) {
        if (maxFrameSizeBytes < FrameHeader.MIN_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("max-frame-size " + maxFrameSizeBytes + " is below the minimum of "
                    + FrameHeader.MIN_MAX_FRAME_SIZE + " (AMQP 1.0 §2.7.1)");
        }
        this.maxFrameSizeBytes = maxFrameSizeBytes;
    }

    /** Enforces the max-frame-size given to the constructor from now on: call once our open has been sent. */
    public void useNegotiatedLimit() {
        limitBytes = maxFrameSizeBytes;
    }

    /** Back to the 512-byte limit of a new connection. */
    public void reset() {
        limitBytes = FrameHeader.MIN_MAX_FRAME_SIZE;
        bytesNeeded = FrameHeader.SIZE;
        frameSize = 0;
    }

    /** {@return the largest frame accepted now, in bytes} */
    public int limitBytes() {
        return limitBytes;
    }

    /**
     * Looks for a complete frame at {@code bytes[offset, offset + length)}.
     *
     * @param bytes holds the bytes to read
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return true when a whole frame is there (see the accessors; consume {@link #frameSize()} bytes), false
     *         when {@link #bytesNeeded()} more bytes must arrive first
     * @throws FramingException if the header breaks §2.3.1 or the limit; the offset names the bad field
     */
    public boolean read(byte[] bytes, int offset, int length) {
        if (length < FrameHeader.SIZE) {
            bytesNeeded = FrameHeader.SIZE - length;
            return false;
        }
        long size = FrameHeader.readSize(bytes, offset);
        if (size < FrameHeader.SIZE) {
            throw new FramingException("frame size " + size + " is below the 8-byte header", offset);
        }
        if (size > limitBytes) {
            throw new FramingException("frame size " + size + " exceeds the max-frame-size of " + limitBytes
                    + (limitBytes == FrameHeader.MIN_MAX_FRAME_SIZE && limitBytes != maxFrameSizeBytes
                            ? " that applies before open" : ""), offset);
        }
        int doff = bytes[offset + 4] & 0xFF;
        if (doff < FrameHeader.MIN_DOFF) {
            throw new FramingException("data offset " + doff + " is below 2", offset + 4);
        }
        if (doff * 4L > size) {
            throw new FramingException("data offset " + doff + " (" + doff * 4 + " bytes) is beyond the frame size "
                    + size, offset + 4);
        }
        int frameType = bytes[offset + 5] & 0xFF;
        if (frameType != FrameHeader.TYPE_AMQP && frameType != FrameHeader.TYPE_SASL) {
            throw new FramingException("unknown frame type 0x" + Integer.toHexString(frameType), offset + 5);
        }
        int total = (int) size;
        if (length < total) {
            bytesNeeded = total - length;
            return false;
        }
        frameSize = total;
        type = frameType;
        channel = ((bytes[offset + 6] & 0xFF) << 8) | (bytes[offset + 7] & 0xFF);
        bodyOffset = offset + doff * 4;
        bodyLength = total - doff * 4;
        bytesNeeded = 0;
        return true;
    }

    /** {@return after {@code read} returned false: how many more bytes must arrive (at least 1)} */
    public int bytesNeeded() {
        return bytesNeeded;
    }

    /** {@return the whole frame's size in bytes, header included: what to consume} */
    public int frameSize() {
        return frameSize;
    }

    /** {@return {@link FrameHeader#TYPE_AMQP} or {@link FrameHeader#TYPE_SASL}} */
    public int type() {
        return type;
    }

    /** {@return the channel (0-65535); ignored for SASL frames (§5.3.1)} */
    public int channel() {
        return channel;
    }

    /** {@return the offset of the body (the performative, then any payload) in the array given to {@code read}} */
    public int bodyOffset() {
        return bodyOffset;
    }

    /** {@return the body's length in bytes; 0 for an empty frame} */
    public int bodyLength() {
        return bodyLength;
    }

    /** {@return whether the frame has no body: a heartbeat (§2.4.5)} */
    public boolean isEmpty() {
        return bodyLength == 0;
    }
}
