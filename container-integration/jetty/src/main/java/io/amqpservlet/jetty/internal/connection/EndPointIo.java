package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.connector.engine.Engine;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One connection's socket as its engine pass uses it: reads into a pooled input buffer the engine parses in place,
 * one gathered write at a time of everything the engine produced, and read back-pressure (a peer that does not read
 * what we write is not read from either; a frame that has not all arrived waits in the socket while the server's byte
 * budget does not admit it to grow). Engine thread, but for the two callbacks Jetty completes, which only
 * record their event in the inbox.
 *
 * <p><b>Who reads.</b> Until the peer's open has arrived, input comes through Jetty's blocking fill callback (on a
 * pool thread: SASL may ask a login service that blocks). Once the connection is open, the fill interest is
 * non-blocking, so the selector's own thread reads the socket and runs the engine pass, and the handlers of the
 * requests it brings go to the pool: one thread hand-off per request, where Jetty's HTTP/1.1 pays two wake-ups (a
 * thread taking over the selector, and the selector woken to watch the socket again). A read that does not fill the
 * buffer ends the read on a plain socket.
 */
final class EndPointIo {
    private static final Logger LOG = LoggerFactory.getLogger(EndPointIo.class);
    /** Reads one fill makes before it lets the selector serve other connections. */
    private static final int MAX_READS = 8;

    private final AmqpConnection connection;
    private final EndPoint endPoint;
    private final ByteBufferPool bufferPool;
    /** The end point is the socket itself (no TLS layer between): a short read means the socket is drained. */
    private final boolean plainSocket;
    /** Bytes a detector read before upgrading to this connection: the engine's first input. */
    private byte[] upgradeInput;
    private RetainableByteBuffer input;
    private boolean writing;
    /** The peer will send no more (or reading failed): finish writing, then close. */
    private boolean inputShutdown;
    /** Reading stopped because the engine's output is full: the peer is not reading what we write. */
    private boolean readPaused;
    /** Bytes read from and written to the socket, for Jetty's connection statistics. */
    private volatile long bytesIn;
    private volatile long bytesOut;

    private final Callback writeCallback;
    /**
     * The fill interest of an open connection: the selector's own thread reads the socket and runs the engine pass,
     * which never blocks, and the requests it brings go to the pool.
     */
    private final Callback readOnSelector;

    EndPointIo(AmqpConnection connection, ConnectionInbox inbox) {
        this.connection = connection;
        this.endPoint = connection.getEndPoint();
        this.bufferPool = connection.getConnector().getByteBufferPool();
        // TLS decrypts into its own buffers: a short read there says nothing about what the socket still holds.
        this.plainSocket = endPoint instanceof SocketChannelEndPoint;
        this.writeCallback = new Callback() {
            @Override
            public void succeeded() {
                inbox.writeCompleted();
            }

            @Override
            public void failed(Throwable x) {
                connection.transportFailed(x); // now: the end point may close before the pass sees the failure
                inbox.writeFailed(x);
            }

            @Override
            public InvocationType getInvocationType() {
                return InvocationType.NON_BLOCKING; // the pass never blocks
            }
        };
        this.readOnSelector = new Callback() {
            @Override
            public void succeeded() {
                inbox.fillable(true);
            }

            @Override
            public void failed(Throwable x) {
                connection.fillFailed(x);
            }

            @Override
            public InvocationType getInvocationType() {
                return InvocationType.NON_BLOCKING;
            }
        };
    }

    /** Called before the connection opens: bytes a detector already read. */
    void upgradeInput(byte[] bytes) {
        upgradeInput = bytes;
    }

    /** Whether a detector's bytes wait to be the engine's first input (then the pass reads before asking for more). */
    boolean hasUpgradeInput() {
        return upgradeInput != null;
    }

    /**
     * Reads what the socket has and feeds it to the engine, making it first if it waits for the TLS handshake;
     * asks for more when the socket is drained, and stops reading while the engine's output is full.
     */
    void read(EnginePass pass, long nowMillis) {
        if (inputShutdown) {
            return;
        }
        if (input == null) {
            input = bufferPool.acquire(connection.getInputBufferSize(), false); // heap: parsed in place
        }
        ByteBuffer buffer = input.getByteBuffer();
        Engine engine = pass.engine();
        byte[] upgraded = upgradeInput;
        if (upgraded != null) {
            upgradeInput = null;
            if (engine == null) {
                engine = pass.startEngine(nowMillis);
            }
            bytesIn += upgraded.length;
            engine.ingest(upgraded, 0, upgraded.length, nowMillis);
        }
        int maxPendingOutput = pass.maxPendingOutputBytes();
        int reads = 0;
        try {
            while (engine == null || !engine.isDone()) {
                if (engine != null && engine.outputBytes() >= maxPendingOutput) {
                    // The peer does not read what we write: stop reading what it sends (TCP back-pressure), so
                    // neither its requests nor our answers to them pile up here; a finished write reads again.
                    readPaused = true;
                    releaseInput();
                    return;
                }
                if (engine != null && pass.partialFrameWaitsForRoom(engine)) {
                    // Part of a frame is held and it may not grow now: the rest waits in the socket until the
                    // budget admits it (the frame's deadline still runs); the budget's call reads again.
                    releaseInput();
                    return;
                }
                BufferUtil.clear(buffer);
                int n = endPoint.fill(buffer);
                if (n > 0) {
                    bytesIn += n;
                    if (engine == null) {
                        // Application bytes: the TLS handshake is over and the client's certificate, if any, known.
                        engine = pass.startEngine(nowMillis);
                    }
                    engine.ingest(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining(),
                            nowMillis);
                    if (plainSocket && n < buffer.capacity() || ++reads >= MAX_READS) {
                        // A read that did not fill the buffer drained the socket: the selector watches it again
                        // rather than one more read that would find nothing (bytes arriving meanwhile make the
                        // socket readable at once, the selector's readiness being level-triggered). A peer that
                        // keeps sending gets a few reads, then waits its turn behind the selector's other
                        // connections, so one fast sender cannot hold the selector's thread (TLS, holding bytes
                        // already read, calls back at once on the pool).
                        awaitInput(engine);
                        return;
                    }
                } else if (n == 0) {
                    awaitInput(engine);
                    return;
                } else {
                    inputShutdown = true; // the peer will send no more; finish writing, then close
                    break;
                }
            }
        } catch (IOException e) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("fill failed on {}", connection, e);
            }
            inputShutdown = true;
            connection.transportFailed(e);
        }
        releaseInput();
    }

    /**
     * Before the engine closes the connection for the peer's silence: reads what the socket holds, though the selector
     * has not said it is readable. After a pause of this process (a long GC, SIGSTOP, a suspended virtual machine)
     * the tick and the selector are due at once, and the tick may come first: without this, the heartbeats a live
     * peer sent meanwhile would lie unread while the connection is closed as silent.
     */
    void readBeforeIdleClose(EnginePass pass, long nowMillis) {
        if (!inputShutdown && !readPaused) {
            read(pass, nowMillis);
        }
    }

    /**
     * The socket is drained: the input buffer goes back and the selector watches the socket for more. It may be
     * watching already: a read without its word ({@link #readBeforeIdleClose}) may come while the interest is
     * registered, or register it before a pass takes the fillable the selector reported meanwhile. Only the pass (one
     * thread at a time) registers the interest, and the selector only takes it away, so the check cannot race.
     */
    private void awaitInput(Engine engine) {
        releaseInput();
        if (connection.isFillInterested()) {
            return;
        }
        if (engine != null && engine.isOpen()) {
            connection.fillInterested(readOnSelector);
        } else {
            connection.fillInterested();
        }
    }

    private void releaseInput() {
        if (input != null) {
            input.release();
            input = null;
        }
    }

    /**
     * The engine's output drained below {@code maxPendingOutputBytes} after reading paused: true when reading should
     * go on (once).
     */
    boolean readMayGoOn(Engine engine, int maxPendingOutputBytes) {
        if (readPaused && engine.outputBytes() < maxPendingOutputBytes) {
            readPaused = false; // the peer reads again: so do we
            return true;
        }
        return false;
    }

    /** Starts one gathered write of everything the engine has produced, unless a write is in flight. */
    void flush(Engine engine) {
        if (writing) {
            return;
        }
        ByteBuffer out = engine.beginFlush();
        if (out == null) {
            return;
        }
        writing = true;
        bytesOut += out.remaining();
        endPoint.write(writeCallback, out); // may complete inline: the callback then only records it
    }

    /** The write in flight finished (or failed): the next flush may start. */
    void writeEnded() {
        writing = false;
    }

    boolean writing() {
        return writing;
    }

    boolean inputShutdown() {
        return inputShutdown;
    }

    long bytesIn() {
        return bytesIn;
    }

    long bytesOut() {
        return bytesOut;
    }
}
