package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;

import java.nio.ByteBuffer;

/**
 * The bytes an engine has produced and the transport has not yet written, in two buffers: frames are encoded
 * into one while the transport writes the other, so a slow socket write never blocks encoding and no byte is
 * copied between them. The transport asks for {@link #beginFlush()} (a view of everything produced so far, to write
 * in one gathered write), writes it, possibly in several attempts, then calls {@link #endFlush()}.
 *
 * <p>The buffers are the engine's {@link EngineScratch}: held from the first frame produced until everything has
 * been written and the engine gives its scratch back, so an idle connection holds no output buffer
 * (docs/design.md §2). Without them, there is nothing pending and nothing to flush.
 */
final class EngineOutput {
    private AmqpWriter filling;
    private AmqpWriter flushing;
    private boolean flushInProgress;
    private ByteBuffer fillingView;
    private ByteBuffer flushingView;

    /** Takes the scratch's buffers (empty) as this output's. */
    void attach(EngineScratch s) {
        filling = s.outputA;
        fillingView = s.viewA;
        flushing = s.outputB;
        flushingView = s.viewB;
    }

    /** Gives the buffers back to the scratch; only when nothing is pending ({@link #hasPending()} is false). */
    void detach(EngineScratch s) {
        s.outputA = filling;
        s.viewA = fillingView;
        s.outputB = flushing;
        s.viewB = flushingView;
        filling = null;
        flushing = null;
        fillingView = null;
        flushingView = null;
    }

    /** The writer frames are encoded into now; the engine has attached its scratch's buffers first. */
    AmqpWriter writer() {
        return filling;
    }

    /** Whether bytes wait to be written (being flushed or produced since). */
    boolean hasPending() {
        return flushInProgress || filling != null && filling.length() > 0;
    }

    /** Bytes produced and not yet handed to a flush. */
    int pendingBytes() {
        return (filling == null ? 0 : filling.length()) + (flushInProgress ? flushingView.remaining() : 0);
    }

    /**
     * The bytes to write next: the flush in progress if there is one (its position shows what was written),
     * otherwise everything produced so far; null when there is nothing to write.
     */
    ByteBuffer beginFlush() {
        if (flushInProgress) {
            return flushingView;
        }
        if (filling == null || filling.length() == 0) {
            return null;
        }
        AmqpWriter w = filling;
        filling = flushing;
        flushing = w;
        ByteBuffer swapView = fillingView;
        fillingView = flushingView;
        flushingView = swapView;
        if (flushingView == null || flushingView.array() != w.array()) {
            // A new view only when the writer's array grew, which stops once the largest message has been seen.
            flushingView = ByteBuffer.wrap(w.array());
        }
        flushingView.limit(w.position()).position(w.start());
        flushInProgress = true;
        return flushingView;
    }

    /** The transport finished writing the buffer {@link #beginFlush()} returned. */
    void endFlush() {
        if (!flushInProgress) {
            throw new IllegalStateException("no flush in progress");
        }
        if (flushingView.hasRemaining()) {
            throw new IllegalStateException(flushingView.remaining() + " bytes of the flush were not written");
        }
        flushing.clear();
        flushInProgress = false;
    }
}
