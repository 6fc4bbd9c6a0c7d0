package io.amqpservlet.connector.engine;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of a frame that one read left incomplete, kept until the next read completes it. Whole frames are
 * processed straight from the caller's array; only a partial frame is copied, into a buffer capped at one frame
 * (it grows for a large frame and shrinks back after idle time). A read may complete the kept frame and carry any
 * number of frames after it, so the kept bytes are topped up only as far as the cap and processed in slices.
 *
 * <p>The buffer is the engine's scratch, which a partial frame keeps from going back to the pool. A frame that stays
 * partial for {@link #PARK_AFTER_MILLIS} with no byte added is <em>parked</em>: its bytes are copied into an array of
 * their size and the scratch may go back ({@link Engine#releaseScratch()}); the next read takes scratch again and
 * puts them back first. So a peer that leaves frames half sent holds the bytes it sent, not the engine's working
 * buffers, and a frame that arrives over several reads in quick succession is never copied out.
 */
final class KeptInput {
    /** How long a partial frame may go without a new byte before its bytes leave the scratch. */
    static final long PARK_AFTER_MILLIS = 1_000;

    private final Engine engine;
    /** A partial frame's bytes while the engine holds no scratch, or null. */
    private byte[] parked;
    /** When bytes were last added to the kept frame. */
    private long keptAtMillis;

    /** The buffer is the engine's scratch (docs/design.md §2): held while bytes are kept, given back when idle. */
    KeptInput(Engine engine) {
        this.engine = engine;
    }

    void ingest(byte[] bytes, int offset, int length, long nowMillis) {
        AdaptiveBuffer kept = unpark();
        keptAtMillis = nowMillis;
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
        int n = buffer.remaining();
        if (buffer.hasArray()) {
            ingest(buffer.array(), buffer.arrayOffset() + buffer.position(), n, nowMillis);
            buffer.position(buffer.position() + n);
            return;
        }
        AdaptiveBuffer kept = unpark();
        keptAtMillis = nowMillis;
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

    /**
     * When a partial frame in the scratch may be parked: {@link Engine#tick} asks, so the transport calls again then
     * (and gives the scratch back after the call).
     *
     * @return the time, or {@code Long.MAX_VALUE} when no partial frame waits in the scratch or it may be parked
     *     already (by the next {@link #park})
     */
    long parkDue(long nowMillis) {
        EngineScratch s = engine.heldScratch();
        if (s == null || s.kept.readable() == 0) {
            return Long.MAX_VALUE;
        }
        long due = keptAtMillis + PARK_AFTER_MILLIS;
        return nowMillis >= due ? Long.MAX_VALUE : due; // due: the next releaseScratch parks it
    }

    /**
     * Before the scratch goes back: copies a partial frame that has waited {@link #PARK_AFTER_MILLIS} without a new
     * byte out of it.
     *
     * @param s the scratch the engine holds
     * @param nowMillis the time of the engine's last call
     * @return whether no partial frame is left in the scratch (none was kept, or it is parked now)
     */
    boolean park(EngineScratch s, long nowMillis) {
        AdaptiveBuffer kept = s.kept;
        int n = kept.readable();
        if (n == 0) {
            return true;
        }
        if (engine.isDone()) {
            return false; // nothing will read it again: the scratch stays until the transport lets the engine go
        }
        if (nowMillis - keptAtMillis < PARK_AFTER_MILLIS) {
            return false;
        }
        parked = Arrays.copyOfRange(kept.array(), kept.readIndex(), kept.writeIndex());
        kept.consume(n);
        return true;
    }

    /** Lets the next {@link #park} park a partial frame however recently its last byte came. */
    void parkAtNextRelease() {
        keptAtMillis = Long.MIN_VALUE / 2; // long ago; the next byte sets it again
    }

    /** The scratch's kept-input buffer, with a parked partial frame put back in it first. */
    private AdaptiveBuffer unpark() {
        AdaptiveBuffer kept = engine.scratch().kept;
        byte[] p = parked;
        if (p != null) {
            parked = null;
            kept.ensureWritable(p.length);
            System.arraycopy(p, 0, kept.array(), kept.writeIndex(), p.length);
            kept.commitWrite(p.length);
        }
        return kept;
    }

    /**
     * {@return the bytes a partial frame holds now: its parked array, or the scratch it keeps from going back; 0 when
     * no frame is partial}
     */
    int heldBytes() {
        byte[] p = parked;
        if (p != null) {
            return p.length;
        }
        EngineScratch s = engine.heldScratch();
        return s == null || s.kept.readable() == 0 ? 0 : s.footprintBytes();
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
