package io.amqpservlet.bench.load;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.List;

/**
 * One client of the load generator: a thread with its own selector driving its connections over non-blocking
 * sockets. Latencies go into a {@link SingleWriterRecorder} (wait-free for this thread; the runner takes interval
 * histograms from it). In closed loop a freed slot is refilled at once; in open loop each connection has a
 * schedule of send times, and a request that is due while the window is full is sent as soon as a slot frees,
 * its latency still counted from the time it was due (no coordinated omission).
 */
final class EventLoop implements Runnable {
    /** Latencies are recorded in nanoseconds, up to a minute, to 3 significant digits. */
    static final long HIGHEST_NANOS = 60_000_000_000L;
    private static final long TICK_NANOS = 50_000_000L;

    final int index;
    final ErrorTally errors;
    private final LoadOptions options;
    private final Selector selector;
    private final Consumer<SelectionKey> onKey = this::handleKey;
    private final List<LoadConnection> connections = new ArrayList<>();
    private LoadConnection[] all = new LoadConnection[0];
    private LoadConnection[] dirty = new LoadConnection[16];
    private int dirtyCount;
    /** Every latency, for the live progress line (the runner takes interval histograms from it). */
    private final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_NANOS, 3);
    /**
     * Latencies of responses that arrived within the measured phase, written by this thread only and read by the
     * runner after the thread ended. Responses and errors are put in the phase by the time this thread saw them,
     * the same test for both, so the counts agree exactly.
     */
    private final Histogram measured = new Histogram(1, HIGHEST_NANOS, 3);
    private volatile long measureFromNanos = Long.MAX_VALUE;
    private volatile long measureUntilNanos = Long.MAX_VALUE;
    private final ByteBuffer readBuffer = ByteBuffer.allocate(256 * 1024);
    private final boolean openLoop;
    private final long timeoutNanos;

    private volatile boolean running;
    private volatile boolean stopping;
    private volatile long runStartNanos;
    private boolean started;
    private int readyCount;
    private int failedCount;
    private volatile int readyPublished;
    private volatile int failedPublished;
    private final Thread thread;
    private final SendTimer timer;

    EventLoop(int index, LoadOptions options, ErrorTally errors) throws IOException {
        this.index = index;
        this.options = options;
        this.errors = errors;
        this.selector = Selector.open();
        this.openLoop = options.ratePerSecond > 0;
        this.timeoutNanos = options.timeoutMillis * 1_000_000L;
        this.thread = new Thread(this, "load-client-" + index);
        thread.setDaemon(true);
        this.timer = openLoop ? new SendTimer(selector, "load-timer-" + index) : null;
    }

    /** Adds a connection to {@code endpoint}; the socket connects once the thread runs. */
    void add(LoadOptions.Endpoint endpoint, int globalIndex, int totalConnections) throws IOException {
        LoadConnection c = LoadConnection.open(this, options, endpoint);
        if (openLoop) {
            c.intervalNanos = Math.max(1, Math.round(1e9 * totalConnections / options.ratePerSecond));
            // Spread the connections' schedules over one interval, so the aggregate rate is smooth.
            c.nextDueNanos = c.intervalNanos * globalIndex / totalConnections;
        }
        connections.add(c);
    }

    void start() {
        thread.start();
        if (timer != null) {
            timer.start();
        }
    }

    /** Starts sending: latencies and the open-loop schedule count from {@code startNanos}. */
    void go(long startNanos) {
        runStartNanos = startNanos;
        running = true;
        selector.wakeup();
    }

    /** Stops sending and closes every connection; the thread ends soon after. */
    void stop() {
        stopping = true;
        running = false;
        if (timer != null) {
            timer.stop();
        }
        if (selector.isOpen()) {
            selector.wakeup();
        }
    }

    void join(long millis) throws InterruptedException {
        thread.join(millis);
    }

    boolean stopping() {
        return stopping;
    }

    int readyConnections() {
        return readyPublished;
    }

    int failedConnections() {
        return failedPublished;
    }

    int connectionCount() {
        return connections.size();
    }

    /** The latencies recorded since the last call; {@code recycle} is a histogram this returned before, or null. */
    Histogram interval(Histogram recycle) {
        return recorder.getIntervalHistogram(recycle);
    }

    /** Sets the measured phase: responses and errors seen by this thread in {@code [from, until)} count. */
    void measure(long fromNanos, long untilNanos) {
        measureUntilNanos = untilNanos;
        measureFromNanos = fromNanos;
    }

    /** The measured phase's latencies; read only after {@link #join} returned with the thread ended. */
    Histogram measured() {
        return measured;
    }

    boolean ended() {
        return !thread.isAlive();
    }

    private boolean inPhase(long nowNanos) {
        return nowNanos - measureFromNanos >= 0 && nowNanos - measureUntilNanos < 0;
    }

    void record(long latencyNanos, long nowNanos) {
        long v = Math.min(Math.max(latencyNanos, 1), HIGHEST_NANOS);
        recorder.recordValue(v);
        if (inPhase(nowNanos)) {
            measured.recordValue(v);
        }
    }

    /** Counts an error, in the measured phase or not by the time it is seen. */
    void error(String kind) {
        error(kind, System.nanoTime());
    }

    void error(String kind, long nowNanos) {
        errors.record(kind, inPhase(nowNanos));
    }

    void onReady(LoadConnection c) {
        readyPublished = ++readyCount;
        if (started) {
            begin(c, System.nanoTime());
        }
    }

    void markDirty(LoadConnection c) {
        if (dirtyCount == dirty.length) {
            dirty = java.util.Arrays.copyOf(dirty, dirty.length * 2);
        }
        dirty[dirtyCount++] = c;
    }

    /** A response came (or a request failed or timed out): refill in closed loop, catch up in open loop. */
    void onSlotFreed(LoadConnection c, long nowNanos) {
        if (!running || !started) {
            return;
        }
        if (openLoop) {
            if (c.nextDueNanos <= nowNanos && c.send(c.nextDueNanos)) {
                c.nextDueNanos += c.intervalNanos;
            }
        } else {
            c.send(nowNanos);
        }
    }

    @Override
    public void run() {
        try {
            connectAll();
            loop();
        } catch (IOException | RuntimeException e) {
            error("client " + index + " failed: " + e);
        } finally {
            closeAll();
        }
    }

    private void connectAll() throws IOException {
        all = connections.toArray(new LoadConnection[0]);
        for (LoadConnection c : all) {
            c.key = c.channel.register(selector, SelectionKey.OP_CONNECT, c);
            try {
                if (c.channel.connect(new InetSocketAddress(c.endpoint.host(), c.endpoint.port()))) {
                    connected(c);
                }
            } catch (IOException e) {
                connectFailed(c, e);
            }
        }
    }

    private void loop() throws IOException {
        long nextTick = System.nanoTime() + TICK_NANOS;
        while (!stopping) {
            long now = System.nanoTime();
            if (running && !started) {
                started = true;
                for (LoadConnection c : all) {
                    begin(c, runStartNanos);
                }
            }
            long nextDue = Long.MAX_VALUE;
            if (started && openLoop && running) {
                nextDue = sendDue(now);
                timer.schedule(nextDue);
            }
            flushDirty();
            long waitNanos = Math.min(nextDue, nextTick) - System.nanoTime();
            // The action forms of select hand each ready key to onKey without the selected-key set and its
            // iterator, which would otherwise be an allocation per wake-up (one per response when they come apart).
            if (waitNanos <= 0) {
                selector.selectNow(onKey);
            } else {
                // Selector timeouts are whole milliseconds: in open loop the SendTimer wakes the selector when the
                // next request is due, so it leaves on time (lateness would count in its latency).
                selector.select(onKey, Math.max(1, waitNanos / 1_000_000L));
            }
            now = System.nanoTime();
            if (now >= nextTick) {
                for (LoadConnection c : all) {
                    c.tick(now, timeoutNanos);
                }
                nextTick = now + TICK_NANOS;
            }
        }
    }

    /** Sends every request whose time has come, as far as the windows allow; returns the earliest next due time. */
    private long sendDue(long now) {
        long next = Long.MAX_VALUE;
        for (LoadConnection c : all) {
            while (c.nextDueNanos <= now && c.canSend() && c.send(c.nextDueNanos)) {
                c.nextDueNanos += c.intervalNanos;
            }
            if (c.canSend() && c.nextDueNanos < next) {
                next = c.nextDueNanos;
            }
        }
        return next;
    }

    private void begin(LoadConnection c, long startNanos) {
        if (!c.ready) {
            return;
        }
        if (openLoop) {
            c.nextDueNanos += startNanos;
        } else {
            while (c.canSend() && c.send(startNanos)) {
                // fill the window
            }
        }
    }

    private void handleKey(SelectionKey key) {
        LoadConnection c = (LoadConnection) key.attachment();
        if (!key.isValid()) {
            return;
        }
        try {
            if (key.isConnectable()) {
                if (c.channel.finishConnect()) {
                    connected(c);
                }
                return;
            }
            if (key.isWritable()) {
                c.flush();
            }
            if (key.isReadable()) {
                read(c);
            }
        } catch (IOException e) {
            lost(c, e);
        }
    }

    private void read(LoadConnection c) throws IOException {
        // Read until the socket is drained, so one wakeup takes everything that arrived.
        for (int i = 0; i < 16; i++) {
            readBuffer.clear();
            int n = c.channel.read(readBuffer);
            if (n < 0) {
                c.onTransportClosed("connection closed by the server (end of stream)");
                c.key.cancel();
                return;
            }
            if (n == 0) {
                return;
            }
            c.onInput(readBuffer, n, System.nanoTime() / 1_000_000L);
            if (n < readBuffer.capacity()) {
                return;
            }
        }
    }

    private void connected(LoadConnection c) {
        c.key.interestOps(SelectionKey.OP_READ);
        c.onConnected(System.nanoTime() / 1_000_000L);
    }

    private void connectFailed(LoadConnection c, IOException e) {
        failedPublished = ++failedCount;
        c.onTransportClosed("connect to " + c.endpoint.host() + ":" + c.endpoint.port() + " failed: "
                + e.getMessage());
    }

    private void lost(LoadConnection c, IOException e) {
        if (!c.ready && !c.closed) {
            connectFailed(c, e);
        } else {
            c.onTransportClosed("connection failed: " + e.getMessage());
        }
        c.key.cancel();
    }

    private void flushDirty() {
        for (int i = 0; i < dirtyCount; i++) {
            LoadConnection c = dirty[i];
            dirty[i] = null;
            if (c.channel.isOpen()) {
                try {
                    c.flush();
                } catch (IOException e) {
                    lost(c, e);
                }
            } else {
                c.dirty = false;
            }
        }
        dirtyCount = 0;
    }

    /** Sends close on every connection, gives the server a moment to answer, then closes the sockets. */
    private void closeAll() {
        for (LoadConnection c : all) {
            if (c.channel.isOpen() && c.ready) {
                c.close();
            }
        }
        flushDirty();
        long deadline = System.nanoTime() + 500_000_000L;
        try {
            while (System.nanoTime() < deadline && anyOpen()) {
                selector.select(onKey, 20);
                flushDirty();
            }
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
        for (LoadConnection c : all) {
            try {
                c.channel.close();
            } catch (IOException ignored) {
                // nothing left to do with it
            }
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // the thread ends
        }
    }

    private boolean anyOpen() {
        for (LoadConnection c : all) {
            if (c.channel.isOpen() && !c.closed) {
                return true;
            }
        }
        return false;
    }
}
