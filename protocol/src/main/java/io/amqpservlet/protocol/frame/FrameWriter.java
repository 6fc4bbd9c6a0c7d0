package io.amqpservlet.protocol.frame;

import io.amqpservlet.protocol.codec.AmqpWriter;

/**
 * Writes frames (AMQP 1.0 §2.3) into an {@link AmqpWriter} in one pass: {@link #begin} reserves the 8-byte
 * header, the caller encodes the performative (and appends any payload), and {@link #end} backfills the size.
 *
 * <pre>{@code
 * int start = FrameWriter.begin(writer, FrameHeader.TYPE_AMQP, channel);
 * transfer.encode(writer);
 * FrameWriter.appendPayload(writer, payload, offset, length);
 * FrameWriter.end(writer, start, peerMaxFrameSize);
 * }</pre>
 */
public final class FrameWriter {
    private FrameWriter() {
    }

    /**
     * Reserves a frame header with DOFF 2 and the given type and channel.
     *
     * @param writer the writer to encode into
     * @param type the frame type, {@link FrameHeader#TYPE_AMQP} or {@link FrameHeader#TYPE_SASL}
     * @param channel the channel the frame is on
     * @return the offset of the header in {@code writer.array()}, for {@link #end}
     */
    public static int begin(AmqpWriter writer, int type, int channel) {
        if (writer.depth() != 0) {
            throw new IllegalStateException("a frame cannot begin inside an open compound value");
        }
        if ((channel & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("channel " + channel + " is not a ushort");
        }
        int start = writer.reserve(FrameHeader.SIZE);
        FrameHeader.write(writer.array(), start, 0, type, channel);
        return start;
    }

    /**
     * Appends payload bytes after the performative (the rest of a transfer frame's body, §2.7.5).
     *
     * @param writer the writer to encode into
     * @param payload holds the payload
     * @param offset where they start in {@code payload}
     * @param length their length in bytes
     */
    public static void appendPayload(AmqpWriter writer, byte[] payload, int offset, int length) {
        // reserve may move the writer to a larger array, so the array is read after it.
        int at = writer.reserve(length);
        System.arraycopy(payload, offset, writer.array(), at, length);
    }

    /**
     * Backfills the size of the frame begun at {@code start}.
     *
     * @param writer the writer to encode into
     * @param start where the frame begins, as {@link #begin} returned it
     * @return the frame's size in bytes
     */
    public static int end(AmqpWriter writer, int start) {
        if (writer.depth() != 0) {
            throw new IllegalStateException("a frame cannot end inside an open compound value");
        }
        int size = writer.position() - start;
        byte[] array = writer.array();
        array[start] = (byte) (size >>> 24);
        array[start + 1] = (byte) (size >>> 16);
        array[start + 2] = (byte) (size >>> 8);
        array[start + 3] = (byte) size;
        return size;
    }

    /**
     * As {@link #end(AmqpWriter, int)}, refusing a frame larger than {@code maxFrameSizeBytes} (the peer's
     * max-frame-size, §2.7.1): the frame is removed again and an exception thrown, so the caller can split it.
     *
     * @param writer the writer to encode into
     * @param start where the frame begins, as {@link #begin} returned it
     * @param maxFrameSizeBytes the largest frame accepted, in bytes
     * @return the frame's size in bytes
     */
    public static int end(AmqpWriter writer, int start, int maxFrameSizeBytes) {
        int size = writer.position() - start;
        if (size > maxFrameSizeBytes) {
            writer.truncate(start);
            throw new IllegalArgumentException("frame of " + size + " bytes exceeds the max-frame-size of "
                    + maxFrameSizeBytes);
        }
        return end(writer, start);
    }

    /**
     * Writes an empty AMQP frame (a heartbeat, §2.4.5) on channel 0.
     *
     * @param writer the writer to encode into
     */
    public static void writeEmpty(AmqpWriter writer) {
        int start = writer.reserve(FrameHeader.SIZE);
        FrameHeader.writeHeartbeat(writer.array(), start);
    }
}
