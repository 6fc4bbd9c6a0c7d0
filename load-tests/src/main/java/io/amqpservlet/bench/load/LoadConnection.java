package io.amqpservlet.bench.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One connection of the load generator, whatever its protocol: a non-blocking socket driven by its client's
 * {@link EventLoop}, a window of requests in flight, and in open loop its own schedule of send times. The event loop
 * asks it to send when a request is due (closed loop: when a slot frees) and feeds it what the socket read; the
 * connection records each response's latency with the loop, counted from the time the request was due.
 */
abstract class LoadConnection {
    final EventLoop loop;
    final LoadOptions options;
    final LoadOptions.Endpoint endpoint;
    final SocketChannel channel;
    SelectionKey key;

    /** Open loop: time between this connection's requests, and when the next one is due. */
    long intervalNanos;
    long nextDueNanos;

    boolean ready;
    boolean closed;
    /** In the event loop's list of connections with output to write. */
    boolean dirty;

    LoadConnection(EventLoop loop, LoadOptions options, LoadOptions.Endpoint endpoint) throws IOException {
        this.loop = loop;
        this.options = options;
        this.endpoint = endpoint;
        channel = SocketChannel.open();
        channel.configureBlocking(false);
        channel.socket().setTcpNoDelay(true);
    }

    /** A connection speaking the endpoint's protocol ({@code amqp}, {@code http} or {@code h2c}). */
    static LoadConnection open(EventLoop loop, LoadOptions options, LoadOptions.Endpoint endpoint)
            throws IOException {
        return switch (endpoint.scheme()) {
            case "http" -> new Http1LoadConnection(loop, options, endpoint);
            case "h2c" -> new H2cLoadConnection(loop, options, endpoint);
            default -> new AmqpLoadConnection(loop, options, endpoint);
        };
    }

    /** Puts this connection on the loop's list of connections to flush (once). */
    final void markDirty() {
        if (!dirty) {
            dirty = true;
            loop.markDirty(this);
        }
    }

    /** The socket connected: start the protocol. */
    abstract void onConnected(long nowMillis);

    /** {@code length} bytes read from the socket, from the start of {@code buffer}'s array. */
    abstract void onInput(ByteBuffer buffer, int length, long nowMillis);

    /** Whether a slot is free for another request. */
    abstract boolean canSend();

    /** Sends one request whose latency counts from {@code fromNanos}; false when it could not be sent. */
    abstract boolean send(long fromNanos);

    /** The socket ended or failed: everything in flight is lost. */
    abstract void onTransportClosed(String why);

    /** Counts requests waiting longer than the timeout; protocol housekeeping (heartbeats). */
    abstract void tick(long nowNanos, long timeoutNanos);

    /** Writes what is pending; on a partial write, waits for the socket to be writable. */
    abstract void flush() throws IOException;

    /** Whether the selector watches this socket for writability (a write was partial). */
    private boolean writeInterestSet;

    /**
     * For a connection whose output is one buffer in write mode: writes what it holds, keeps what the socket did not
     * take, and watches for writability exactly while something is left.
     */
    final void flushBuffer(ByteBuffer out) throws IOException {
        dirty = false;
        if (closed || out.position() == 0) {
            return;
        }
        out.flip();
        channel.write(out);
        out.compact();
        boolean pending = out.position() > 0;
        if (pending != writeInterestSet) {
            writeInterestSet = pending;
            key.interestOps(pending ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }
    }

    /** Starts a clean close; the caller flushes. */
    abstract void close();

    /** Requests in flight now. */
    abstract int inFlight();
}
