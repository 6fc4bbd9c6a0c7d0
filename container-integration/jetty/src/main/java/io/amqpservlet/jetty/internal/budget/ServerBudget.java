package io.amqpservlet.jetty.internal.budget;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The limits every connection of one factory shares, and their counts (the factory's {@code AmqpServerBudget} is the
 * view of it that users configure and read), so that many peers together cannot
 * take the server past its heap: open connections, connections still in their handshake (before the peer's open),
 * and bytes buffered across all connections (request bodies received and not yet read by their servlets, response
 * bytes encoded or queued and not yet written to the socket).
 *
 * <p>When a limit is reached the server degrades the AMQP way (docs/jetty.md, "Server-wide limits"): a connection
 * over the connection limit is opened and at once closed with {@code amqp:resource-limit-exceeded}; one over the
 * handshake limit is closed before any AMQP frame; while the byte budget is used up, no credit is granted, no
 * session window is reopened and new requests are released. Counts are reserved and released by each
 * connection's {@link BudgetShare}, which gives everything back when the connection closes, whichever way.
 *
 * <p>Thread-safe: counters are atomic; limits are read on every check and may be changed while the server runs.
 */
public final class ServerBudget {
    /** Default {@link #setMaxConnections max connections}: 4,096. */
    public static final int DEFAULT_MAX_CONNECTIONS = 4_096;
    /** Default {@link #setMaxHandshakingConnections max connections in handshake}: 256. */
    public static final int DEFAULT_MAX_HANDSHAKING_CONNECTIONS = 256;
    /** Default {@link #setMaxBufferedBytes byte budget}: 64 MiB, a quarter of a 256 MiB heap. */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = 64L * 1024 * 1024;

    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();
    private final AtomicLong bufferedBytes = new AtomicLong();
    private final AtomicLong maxBufferedBytesSeen = new AtomicLong();
    private final AtomicLong refusedConnections = new AtomicLong();
    private volatile int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private volatile int maxHandshakingConnections = DEFAULT_MAX_HANDSHAKING_CONNECTIONS;
    private volatile long maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;
    /** Tasks to run (each once) when the byte budget has room again: connections that paused credit or windows. */
    private final ConcurrentLinkedQueue<Runnable> waitingForRoom = new ConcurrentLinkedQueue<>();

    /** Counts a connection in, unless {@link #getMaxConnections()} are open already (then it is refused). */
    boolean tryOpenConnection() {
        return tryIncrement(connections, maxConnections);
    }

    void connectionClosed() {
        decrement(connections, "connections");
    }

    /** Counts a handshake in, unless {@link #getMaxHandshakingConnections()} are under way already. */
    boolean tryStartHandshake() {
        return tryIncrement(handshakes, maxHandshakingConnections);
    }

    void handshakeEnded() {
        decrement(handshakes, "handshakes");
    }

    void refused() {
        refusedConnections.incrementAndGet();
    }

    /**
     * Adds {@code deltaBytes} (negative to give back) to the bytes buffered across the factory's connections.
     * Bytes already in memory are counted even past the budget (they cannot be un-received); what the budget
     * stops is more of them arriving: see {@link #isExhausted()}.
     */
    void add(long deltaBytes) {
        long now = bufferedBytes.addAndGet(deltaBytes);
        if (now < 0) {
            throw new IllegalStateException("server budget released more bytes than it held: " + now);
        }
        if (deltaBytes < 0 && now < maxBufferedBytes && !waitingForRoom.isEmpty()) {
            wakeWaiting();
        }
        if (deltaBytes > 0) {
            long seen;
            while (now > (seen = maxBufferedBytesSeen.get()) && !maxBufferedBytesSeen.compareAndSet(seen, now)) {
                // another thread raised it meanwhile: try again with its value
            }
        }
    }

    /**
     * Runs {@code task} once, when the byte budget next has room (at once if it has now), on the thread that gave
     * bytes back: the task should only hand work over (to an executor, or a connection's event loop).
     */
    public void whenRoom(Runnable task) {
        waitingForRoom.offer(task);
        if (!isExhausted()) {
            wakeWaiting(); // room came back between the caller's check and the offer
        }
    }

    private void wakeWaiting() {
        Runnable task;
        while ((task = waitingForRoom.poll()) != null) {
            task.run();
        }
    }

    /**
     * Whether the byte budget is used up: no credit, no session window, new requests released.
     *
     * @return true while the bytes buffered reach {@link #getMaxBufferedBytes()}
     */
    public boolean isExhausted() {
        return bufferedBytes.get() >= maxBufferedBytes;
    }

    private static boolean tryIncrement(AtomicInteger counter, int max) {
        while (true) {
            int n = counter.get();
            if (n >= max) {
                return false;
            }
            if (counter.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private static void decrement(AtomicInteger counter, String what) {
        if (counter.decrementAndGet() < 0) {
            throw new IllegalStateException("server budget released more " + what + " than it counted");
        }
    }

    /**
     * Open AMQP connections counted against {@link #getMaxConnections()}.
     *
     * @return the number of open connections counted now
     */
    public int getConnections() {
        return connections.get();
    }

    /**
     * Connections between accept and the peer's open.
     *
     * @return the number of connections in the handshake now
     */
    public int getHandshakingConnections() {
        return handshakes.get();
    }

    /**
     * Bytes buffered now across all connections (request bodies unread, responses unwritten).
     *
     * @return the bytes buffered now
     */
    public long getBufferedBytes() {
        return bufferedBytes.get();
    }

    /**
     * The most bytes ever buffered at once across all connections (a statistic).
     *
     * @return the highest count of buffered bytes since this budget was made
     */
    public long getMaxBufferedBytesSeen() {
        return maxBufferedBytesSeen.get();
    }

    /**
     * Connections refused by the connection or handshake limit since the start (a statistic).
     *
     * @return the number of connections refused since this budget was made
     */
    public long getRefusedConnections() {
        return refusedConnections.get();
    }

    /**
     * The most AMQP connections open at once; see {@link #setMaxConnections}.
     *
     * @return the connection limit, {@value #DEFAULT_MAX_CONNECTIONS} unless set
     */
    public int getMaxConnections() {
        return maxConnections;
    }

    /**
     * The most AMQP connections open at once; one more is opened and closed with
     * {@code amqp:resource-limit-exceeded} (after SASL, as AMQP 1.0 §2.4.2 has a refused open answered).
     *
     * @param max the most open connections, at least 1; connections open beyond a lowered limit stay open
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxConnections(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max connections must be at least 1: " + max);
        }
        this.maxConnections = max;
    }

    /**
     * The most connections between accept and the peer's open at once; see {@link #setMaxHandshakingConnections}.
     *
     * @return the handshake limit, {@value #DEFAULT_MAX_HANDSHAKING_CONNECTIONS} unless set
     */
    public int getMaxHandshakingConnections() {
        return maxHandshakingConnections;
    }

    /**
     * The most connections between accept and the peer's open (protocol header, SASL, open); one more is closed
     * at once, before any frame, as no AMQP connection exists yet to refuse.
     *
     * @param max the most connections in the handshake at once, at least 1
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxHandshakingConnections(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max handshaking connections must be at least 1: " + max);
        }
        this.maxHandshakingConnections = max;
    }

    /**
     * The bytes all connections together may buffer; see {@link #setMaxBufferedBytes}.
     *
     * @return the byte limit, {@value #DEFAULT_MAX_BUFFERED_BYTES} unless set
     */
    public long getMaxBufferedBytes() {
        return maxBufferedBytes;
    }

    /**
     * The bytes all connections together may buffer: request bodies received and not read by their servlets, and
     * responses encoded or queued and not yet written to the socket.
     *
     * @param bytes the byte limit, at least 1
     * @throws IllegalArgumentException when {@code bytes} is less than 1
     */
    public void setMaxBufferedBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("max buffered bytes must be at least 1: " + bytes);
        }
        this.maxBufferedBytes = bytes;
    }
}
