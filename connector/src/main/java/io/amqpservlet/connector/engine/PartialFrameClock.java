package io.amqpservlet.connector.engine;

/**
 * How long the frame the peer has begun has stayed incomplete ({@link EngineConfig#partialFrameTimeoutMillis()}):
 * while it is, the engine keeps its bytes and holds its scratch, and every byte of it counts as activity for the
 * idle timeout, so only a deadline on the frame itself stops a peer from dribbling one out for ever. Part of
 * {@link ConnectionDeadlines}, which tells it of every {@link Engine#process} call: it sees each frame the peer leaves
 * incomplete; the clock is per frame. Time in which
 * our own output was backed up is not counted: the transport does not read then, so the frame cannot progress.
 */
final class PartialFrameClock {
    private static final long NONE = Long.MIN_VALUE;

    /** When the incomplete frame's first byte arrived, or its clock last started again; {@link #NONE} for none. */
    private long sinceMillis = NONE;
    /** The bytes received of the incomplete frame. */
    private int receivedBytes;
    /** The incomplete frame's size from its header, or -1 while fewer than its four size bytes have arrived. */
    private int frameSizeBytes = -1;
    /** Our output was at its bound when the engine last looked ({@link #observeOutput}). */
    private boolean outputWasFull;
    /** The incomplete frame's deadline has been put off once for a pause of ours ({@link #excusePause}). */
    private boolean pauseExcused;

    /**
     * {@link Engine#process} was offered {@code length} bytes from {@code offset} and used {@code used}: what is left
     * is the start of a frame (or protocol header) that the caller keeps and offers again with more. When some were
     * used, the frame kept before (if any) completed, so what is left is a new frame and its clock starts now.
     */
    void processed(byte[] bytes, int offset, int length, int used, long nowMillis) {
        int left = length - used;
        if (left <= 0) {
            sinceMillis = NONE;
            return;
        }
        if (used > 0 || sinceMillis == NONE) {
            sinceMillis = nowMillis;
            pauseExcused = false;
        }
        receivedBytes = left;
        int at = offset + used;
        frameSizeBytes = left >= 4 ? (bytes[at] & 0xFF) << 24 | (bytes[at + 1] & 0xFF) << 16
                | (bytes[at + 2] & 0xFF) << 8 | bytes[at + 3] & 0xFF : -1;
    }

    /**
     * The engine looks at its output at {@code nowMillis}, with time: while it is at its bound, the transport does not
     * read, and the incomplete frame's clock starts again; so it does at the first look after it drained, as reading
     * goes on from about then (the drain itself, {@link Engine#endFlush()}, comes without the time).
     */
    void observeOutput(boolean outputFull, long nowMillis) {
        if ((outputFull || outputWasFull) && sinceMillis != NONE) {
            sinceMillis = nowMillis;
        }
        outputWasFull = outputFull;
    }

    /**
     * This side was paused past the frame's deadline: the rest of the frame may be in the transport, unread. Puts
     * the deadline {@code graceMillis} (at most the timeout) from now, once per frame; returns whether it did.
     */
    boolean excusePause(long nowMillis, long graceMillis, long timeoutMillis) {
        if (pauseExcused || sinceMillis == NONE || timeoutMillis <= 0) {
            return false;
        }
        pauseExcused = true;
        sinceMillis = nowMillis - timeoutMillis + Math.max(1, Math.min(graceMillis, timeoutMillis));
        return true;
    }

    /** {@return when the incomplete frame must be complete, given the timeout; Long.MAX_VALUE when there is none} */
    long deadline(long timeoutMillis) {
        if (sinceMillis == NONE || timeoutMillis <= 0) {
            return Long.MAX_VALUE;
        }
        long deadline = sinceMillis + timeoutMillis;
        return deadline < sinceMillis ? Long.MAX_VALUE : deadline;
    }

    /** The close's description: how much of the frame arrived in how long. */
    String describe(long timeoutMillis) {
        String of = frameSizeBytes < 0 ? " bytes (its size not yet among them)" : " of its " + frameSizeBytes + " bytes";
        return "frame incomplete after " + timeoutMillis + " ms: " + receivedBytes + of + " received";
    }
}
