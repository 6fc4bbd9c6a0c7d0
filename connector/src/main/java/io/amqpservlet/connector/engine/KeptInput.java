package io.amqpservlet.connector.engine;

import java.nio.ByteBuffer;

/**
 * The bytes of a frame that one read left incomplete, kept until the next read completes it. Whole frames are
 * processed straight from the caller's array; only a partial frame is copied, into a buffer capped at one frame
 * (it grows for a large frame and shrinks back after idle time). A read may complete the kept frame and carry any
 * number of frames after it, so the kept bytes are topped up only as far as the cap and processed in slices.
 */
final class KeptInput {
    private final Engine engine;

    /** The buffer is the engine's scratch (docs/design.md §2): held while bytes are kept, given back when idle. */
    KeptInput(Engine engine) {
        this.engine = engine;
    }

    void ingest(byte[] bytes, int offset, int length, long nowMillis) {
        AdaptiveBuffer kept = engine.scratch().kept;
        int end = offset + length;
        // Finish a frame kept from an earlier read first. Append no more than the buffer holds: the kept bytes are
        // less than one frame, but a read may carry any number of frames after them.
        while (kept.readable() > 0 && offset < end && !engine.isDone()) {
            int n = Math.min(end - offset, kept.maxCapacity() - kept.readable());
            offset += keep(bytes, offset, n);
            int used = engine.process(kept.array(), kept.readIndex(), kept.readable(), nowMillis);
            kept.consume(used);
            if (used == 0 && n == 0) {
                break; // a full buffer without a whole frame: process has already failed the connection
            }
        }
        if (kept.readable() == 0 && offset < end && !engine.isDone()) {
            int used = engine.process(bytes, offset, end - offset, nowMillis);
            if (used < end - offset && !engine.isDone()) {
                keep(bytes, offset + used, end - offset - used);
            }
        }
        kept.maybeShrink(nowMillis * 1_000_000L);
    }

    /** Consumes the remaining bytes of {@code buffer} (a heap or direct buffer), advancing its position. */
    void ingest(ByteBuffer buffer, long nowMillis) {
        AdaptiveBuffer kept = engine.scratch().kept;
        int n = buffer.remaining();
        if (buffer.hasArray()) {
            ingest(buffer.array(), buffer.arrayOffset() + buffer.position(), n, nowMillis);
            buffer.position(buffer.position() + n);
            return;
        }
        // A direct buffer is copied in slices that fit beside the kept bytes, as above.
        while (buffer.hasRemaining() && !engine.isDone()) {
            int slice = Math.min(buffer.remaining(), kept.maxCapacity() - kept.readable());
            kept.ensureWritable(slice);
            buffer.get(kept.array(), kept.writeIndex(), slice);
            kept.commitWrite(slice);
            int used = engine.process(kept.array(), kept.readIndex(), kept.readable(), nowMillis);
            kept.consume(used);
            if (used == 0 && slice == 0) {
                break;
            }
        }
        buffer.position(buffer.limit());
    }

    /** Appends {@code n} bytes to the kept input; returns n. */
    private int keep(byte[] bytes, int offset, int n) {
        AdaptiveBuffer kept = engine.scratch().kept;
        kept.ensureWritable(n);
        System.arraycopy(bytes, offset, kept.array(), kept.writeIndex(), n);
        kept.commitWrite(n);
        return n;
    }
}
