package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.AmqpServerBudget;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.Session;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.util.BufferUtil;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The body of a request message that arrives in several transfer frames, handed to the servlet as it comes: the
 * engine thread adds the bytes of each frame's data sections ({@link #offer}), Jetty reads them as
 * {@link Content.Chunk}s ({@link #read()}, {@link #demand(HttpChannel)}).
 *
 * <p><b>Bounded memory.</b> When {@value #HOLD_BYTES} bytes or more wait unread, the body holds its session's
 * incoming window ({@link Session#holdIncoming()}): the client may send what is left of the window and must then
 * wait (AMQP 1.0 §2.5.6). Once the servlet has read the queue down to half that, the engine thread is asked to
 * let go ({@link EngineInbox#resume(RequestBody)}). So what one session can have buffered is at most the
 * window ({@code sessionIncomingWindowFrames × maxFrameSizeBytes}) plus {@value #HOLD_BYTES} per streamed request.
 * Link credit could not do this: it counts deliveries, and a delivery that has begun may send all its frames. The
 * queued bytes count against the factory's {@link AmqpServerBudget}; while it is used up, the window is held as
 * soon as any byte waits, and not let go until the budget has room again ({@code ServerBudget.whenRoom}). What the
 * window still lets in once the budget is used up cannot be refused, so a streamed request is served only once it
 * has reserved that much ({@link #admitStream()}: the session window, at most the largest message), the reservations
 * together within the budget's size, until its last frame arrives or the rest of it is dropped.
 *
 * <p>Threads: {@link #offer}, {@link #end}, {@link #fail}, {@link #discard} and {@link #resumeOnEngine} run on the
 * connection's engine thread (which alone touches the session); {@link #read} and {@link #demand} on Jetty's. The
 * queue and flags are guarded by this object's monitor; no callback runs with it held.
 */
public final class RequestBody {
    /** Unread bytes at which the session window is held. */
    public static final int HOLD_BYTES = 256 * 1024;

    private final ExchangeDispatcher dispatcher;
    private final ByteBufferPool pool;
    private final Session session;
    private final BudgetShare budget;
    private final ArrayDeque<Content.Chunk> chunks = new ArrayDeque<>();
    private long queuedBytes;
    private boolean ended;
    private Content.Chunk failure;
    private boolean discarding;
    private boolean held;
    private boolean resumeAsked;
    private HttpChannel demander;
    /** What {@link #admitStream()} reserved and has not given back (engine thread). */
    private long reserved;

    RequestBody(ExchangeDispatcher dispatcher, BudgetShare budget, Session session) {
        this.dispatcher = dispatcher;
        this.pool = dispatcher.bufferPool();
        this.session = session;
        this.budget = budget;
    }

    // ------------------------------------------------------------------------------------------ engine thread

    /**
     * Reserves what the session's incoming window may bring whatever the byte budget says: the window's frames at
     * the largest frame size, at most the largest message. {@return false when the budget has no room for it: the
     * request is then released, not served}
     */
    boolean admitStream() {
        EngineConfig config = session.engine().config();
        long bytes = (long) config.sessionIncomingWindowFrames() * config.maxFrameSizeBytes();
        if (config.maxMessageSizeBytes() > 0) {
            bytes = Math.min(bytes, config.maxMessageSizeBytes());
        }
        if (!budget.admitStream(bytes)) {
            return false;
        }
        reserved = bytes;
        return true;
    }

    /** Nothing more of the message will be kept: its reservation goes back. */
    private void streamDone() {
        long r = reserved;
        if (r > 0) {
            reserved = 0;
            budget.streamDone(r);
        }
    }

    /** Adds body bytes (copied: they are the engine's input buffer); holds the window when too much waits. */
    void offer(byte[] bytes, int offset, int length) {
        if (length == 0) {
            return;
        }
        boolean hold;
        HttpChannel wake;
        synchronized (this) {
            if (discarding || failure != null) {
                return; // nobody will read them: the exchange ended, or the body failed
            }
            RetainableByteBuffer.Mutable buffer = pool.acquire(length, false);
            ByteBuffer bb = buffer.getByteBuffer();
            BufferUtil.append(bb, bytes, offset, length);
            budget.addRequestBytes(length); // before a reader can see (and give back) the chunk
            chunks.add(Content.Chunk.from(buffer, false));
            queuedBytes += length;
            dispatcher.bufferedRequestBytes(queuedBytes);
            // Also when the server-wide budget is used up: the peer may send what is left of the window, no more.
            hold = !held && (queuedBytes >= HOLD_BYTES || budget.isExhausted());
            if (hold) {
                held = true;
            }
            wake = demander;
            demander = null;
        }
        if (hold) {
            session.holdIncoming();
        }
        wakeUp(wake);
    }

    /** The message ended: after the queued chunks, the reader sees the end of the body. */
    void end() {
        streamDone();
        HttpChannel wake;
        synchronized (this) {
            ended = true;
            wake = demander;
            demander = null;
        }
        wakeUp(wake);
    }

    /** The message will not be complete (aborted, its link ended, malformed): the reader sees {@code cause}. */
    void fail(Throwable cause) {
        streamDone();
        HttpChannel wake;
        synchronized (this) {
            if (failure == null) {
                failure = Content.Chunk.from(cause, true);
            }
            releaseQueued();
            wake = demander;
            demander = null;
        }
        letGo();
        wakeUp(wake);
    }

    /** The exchange ended: the rest of the message is read and dropped, and the window no longer waits for it. */
    void discard() {
        streamDone();
        synchronized (this) {
            discarding = true;
            releaseQueued();
        }
        letGo();
    }

    /**
     * Lets go of the session window once the reader has caught up (asked for by {@link #read()}), and the
     * server-wide budget has room: while it has none, the window stays held and this is tried again shortly.
     */
    public void resumeOnEngine() {
        synchronized (this) {
            resumeAsked = false;
            if (!held || queuedBytes > HOLD_BYTES / 2) {
                return;
            }
            if (budget.isExhausted() && !discarding && failure == null) {
                resumeAsked = true;
                budget.whenRoom(() -> dispatcher.execute(() -> dispatcher.inbox().resume(this)));
                return;
            }
        }
        letGo();
    }

    private void letGo() {
        synchronized (this) {
            if (!held) {
                return;
            }
            held = false;
        }
        if (session.isOpen()) {
            session.releaseIncoming();
        }
    }

    private void releaseQueued() {
        Content.Chunk c;
        while ((c = chunks.poll()) != null) {
            c.release();
        }
        budget.addRequestBytes(-queuedBytes);
        queuedBytes = 0;
    }

    private void wakeUp(HttpChannel channel) {
        if (channel != null) {
            Runnable task = channel.onContentAvailable();
            if (task != null) {
                dispatcher.execute(task); // never the servlet's code on the engine thread
            }
        }
    }

    // ------------------------------------------------------------------------------------------ Jetty threads

    /** The next chunk, the end, a failure, or null when nothing is here yet ({@link #demand} then). */
    Content.Chunk read() {
        boolean askResume;
        Content.Chunk c;
        synchronized (this) {
            if (failure != null) {
                return failure;
            }
            c = chunks.poll();
            if (c == null) {
                return ended ? Content.Chunk.EOF : null;
            }
            queuedBytes -= c.remaining();
            budget.addRequestBytes(-c.remaining());
            askResume = held && !resumeAsked && queuedBytes <= HOLD_BYTES / 2;
            if (askResume) {
                resumeAsked = true;
            }
        }
        if (askResume) {
            dispatcher.inbox().resume(this);
        }
        return c;
    }

    /** Calls the channel back (on the executor) once a chunk, the end or a failure is there. */
    void demand(HttpChannel channel) {
        boolean available;
        synchronized (this) {
            available = failure != null || ended || !chunks.isEmpty();
            if (!available) {
                demander = channel;
            }
        }
        if (available) {
            wakeUp(channel);
        }
    }

    /** Whether the servlet has the session window held (for tests). */
    synchronized boolean held() {
        return held;
    }
}
