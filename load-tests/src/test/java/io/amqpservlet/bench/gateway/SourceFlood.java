package io.amqpservlet.bench.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A flood of sockets from one local address (a loopback address of its own, such as 127.0.0.2), as one machine
 * would send it: idle connections (SASL ANONYMOUS, open, session, reply link, then heartbeats only,
 * {@link IdleSockets#openConnection()}) and stalled handshakes (the SASL protocol header, then nothing,
 * {@link IdleSockets#saslHeaderOnly()}), opened as fast as the server accepts them (at most
 * {@value #UNANSWERED} waiting for their first answer, so the flood stays within the server's accept queue and
 * the test measures the server, not the kernel's backlog), in any mix. It holds every socket the server keeps
 * open, answers nothing (not a close either: a refused connection waits for the server to drop it) and closes
 * only what the server closed. One thread, one selector.
 */
final class SourceFlood implements AutoCloseable {
    /** Sockets at most that have not had their first byte (or end) from the server. */
    static final int UNANSWERED = 256;
    private static final byte[] EMPTY_FRAME = {0, 0, 0, 8, 2, 0, 0, 0};
    private static final byte[] IDLE = IdleSockets.openConnection();
    private static final byte[] STALLED = IdleSockets.saslHeaderOnly();

    private final String localAddress;
    private final InetSocketAddress server;
    private final Selector selector = Selector.open();
    private final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
    private final List<Peer> peers = new ArrayList<>();
    private final int maxUnanswered;
    private final boolean untilOpen;
    private int unanswered;
    private long lastKeepAliveNanos = System.nanoTime();
    // What happened to the sockets of the current run.
    int opened;
    int connectFailures;
    int idleAnswered;
    int stalledAnswered;
    int closedByServer;
    int closedBeforeAnyByte;

    SourceFlood(String localAddress, int port) throws IOException {
        this(localAddress, port, UNANSWERED, false);
    }

    /**
     * A flood that keeps at most {@code maxUnanswered} sockets waiting for their answer: their first byte, or with
     * {@code untilOpen} an idle connection's whole handshake (to its open). Within the server's handshakes per address
     * (32), every idle connection it opens gets through, up to the connections per address.
     */
    SourceFlood(String localAddress, int port, int maxUnanswered, boolean untilOpen) throws IOException {
        this.localAddress = localAddress;
        this.server = new InetSocketAddress("127.0.0.1", port);
        this.maxUnanswered = maxUnanswered;
        this.untilOpen = untilOpen;
    }

    /**
     * Opens {@code idle} idle connections and {@code stalled} stalled handshakes, interleaved in proportion, and
     * returns once every one has been answered or closed by the server (or {@code timeoutMillis} passed).
     *
     * @return false when the time ran out first
     */
    boolean flood(int idle, int stalled, long timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        int total = idle + stalled;
        int idleOpened = 0;
        int stalledOpened = 0;
        while ((idleOpened + stalledOpened < total || unanswered > 0) && System.nanoTime() < deadline) {
            while (unanswered < maxUnanswered && idleOpened + stalledOpened < total) {
                // Interleaved: after i sockets, about i * idle / total of them are idle ones.
                boolean nextIdle = stalledOpened >= stalled || (idleOpened < idle
                        && (long) idleOpened * total <= (long) (idleOpened + stalledOpened) * idle);
                if (!open(nextIdle)) {
                    break;
                }
                if (nextIdle) {
                    idleOpened++;
                } else {
                    stalledOpened++;
                }
            }
            poll(10);
        }
        return idleOpened + stalledOpened == total && unanswered == 0;
    }

    /** Keeps the held sockets alive for {@code millis}: reads (and drops) what the server sends, heartbeats. */
    void hold(long millis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            poll(20);
        }
    }

    /** Idle connections the server keeps open now (they had its five answers and are not closed). */
    int idleHeld() {
        int n = 0;
        for (Peer p : peers) {
            n += p.idle && !p.closed && p.frames >= IdleSockets.OPEN_FRAMES ? 1 : 0;
        }
        return n;
    }

    /**
     * Idle connections refused at their open (answered with open and close, not yet dropped: this side does not
     * answer the close) that the server still keeps.
     */
    int refusedHeld() {
        int n = 0;
        for (Peer p : peers) {
            n += p.idle && !p.closed && p.frames > 0 && p.frames < IdleSockets.OPEN_FRAMES ? 1 : 0;
        }
        return n;
    }

    /** Stalled handshakes the server keeps now (answered with its mechanisms, not closed). */
    int stalledHeld() {
        int n = 0;
        for (Peer p : peers) {
            n += !p.idle && !p.closed && p.frames >= IdleSockets.HEADER_ONLY_FRAMES ? 1 : 0;
        }
        return n;
    }

    /**
     * Each idle connection the server keeps open sends the first {@code sent} bytes of a frame that declares
     * {@code declared} bytes, and then nothing more (no heartbeats either: they would only add to the frame).
     *
     * @return the bytes the sockets took (a socket whose buffer is full takes less)
     */
    long sendPartialFrames(int declared, int sent) {
        ByteBuffer frame = ByteBuffer.allocate(sent);
        frame.putInt(declared).put((byte) 2); // size, data offset in words; the rest: zeros
        long taken = 0;
        for (Peer p : peers) {
            if (p.idle && !p.closed && p.frames >= IdleSockets.OPEN_FRAMES) {
                p.partial = true;
                frame.clear();
                try {
                    while (frame.hasRemaining() && p.channel.write(frame) > 0) {
                        // as much as the socket takes now
                    }
                } catch (IOException e) {
                    // the server closed it: the next read says so
                }
                taken += frame.position();
            }
        }
        return taken;
    }

    private boolean open(boolean idle) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(localAddress, 0));
            ch.configureBlocking(false);
            Peer peer = new Peer(ch, idle);
            if (ch.connect(server)) {
                peer.connected();
                ch.register(selector, SelectionKey.OP_READ, peer);
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, peer);
            }
            peers.add(peer);
            opened++;
            unanswered++;
            return true;
        } catch (IOException e) {
            // Out of local ports or file descriptors: what this run can open, it has.
            ch.close();
            connectFailures++;
            if (connectFailures > 1_000) {
                throw new IOException("the flood cannot open sockets from " + localAddress + ": " + e, e);
            }
            return false;
        }
    }

    private void poll(long millis) throws IOException {
        selector.select(millis);
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            Peer p = (Peer) key.attachment();
            if (!key.isValid()) {
                continue;
            }
            if (key.isConnectable()) {
                try {
                    p.channel.finishConnect();
                    p.connected();
                    key.interestOps(SelectionKey.OP_READ);
                } catch (IOException e) {
                    connectFailures++;
                    end(p, key);
                }
                continue;
            }
            in.clear();
            int read;
            try {
                read = p.channel.read(in);
            } catch (IOException e) {
                read = -1;
            }
            if (read < 0) {
                closedByServer++;
                if (!p.anyByte) {
                    closedBeforeAnyByte++;
                }
                end(p, key);
                continue;
            }
            if (read > 0) {
                p.anyByte = true;
            }
            in.flip();
            int before = p.frames;
            p.parse(in);
            if (read > 0 && !p.answered && (!untilOpen || !p.idle || p.frames >= IdleSockets.OPEN_FRAMES)) {
                p.answered = true;
                unanswered--;
            }
            if (p.idle && before < IdleSockets.OPEN_FRAMES && p.frames >= IdleSockets.OPEN_FRAMES) {
                idleAnswered++;
            } else if (!p.idle && before < IdleSockets.HEADER_ONLY_FRAMES
                    && p.frames >= IdleSockets.HEADER_ONLY_FRAMES) {
                stalledAnswered++;
            }
        }
        long now = System.nanoTime();
        if (now - lastKeepAliveNanos > TimeUnit.SECONDS.toNanos(2)) {
            lastKeepAliveNanos = now;
            for (Peer p : peers) {
                // Heartbeats (AMQP 1.0 §2.4.5) only on open connections: an empty frame would end a SASL handshake.
                if (p.idle && !p.closed && !p.partial && p.frames >= IdleSockets.OPEN_FRAMES) {
                    write(p.channel, EMPTY_FRAME);
                }
            }
        }
    }

    private void end(Peer p, SelectionKey key) throws IOException {
        key.cancel();
        p.channel.close();
        if (!p.answered) {
            p.answered = true;
            unanswered--;
        }
        p.closed = true;
    }

    /** Closes every socket and forgets them: the next run starts from none. */
    void closeAll() throws IOException {
        for (Peer p : peers) {
            p.channel.close();
        }
        selector.selectNow(); // lets the cancelled keys go
        peers.clear();
        unanswered = 0;
        opened = 0;
        connectFailures = 0;
        idleAnswered = 0;
        stalledAnswered = 0;
        closedByServer = 0;
        closedBeforeAnyByte = 0;
    }

    private static void write(SocketChannel ch, byte[] bytes) {
        try {
            ch.write(ByteBuffer.wrap(bytes)); // a greeting or a heartbeat fits an empty socket buffer
        } catch (IOException e) {
            // the server closed it: the next read says so
        }
    }

    @Override
    public void close() throws IOException {
        closeAll();
        selector.close();
    }

    /** One socket: its greeting's kind and the server's non-empty frames so far. */
    private final class Peer extends FrameCounter {
        final SocketChannel channel;
        final boolean idle;
        boolean answered;
        boolean anyByte;
        boolean closed;
        /** It sent part of a frame and stopped ({@link #sendPartialFrames}). */
        boolean partial;

        Peer(SocketChannel channel, boolean idle) {
            this.channel = channel;
            this.idle = idle;
        }

        void connected() {
            write(channel, idle ? IDLE : STALLED);
        }
    }
}
