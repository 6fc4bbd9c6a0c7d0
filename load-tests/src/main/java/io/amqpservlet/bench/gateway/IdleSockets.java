package io.amqpservlet.bench.gateway;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Role;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Many client sockets that hold AMQP connections open and do nothing else, for measuring what an idle peer costs a
 * server: each sends one pipelined greeting (encoded once with our codec, shared by all) and counts the server's
 * non-empty frames until it has the answers it waits for; afterwards it only sends an empty frame now and then so
 * the server's idle timeout does not end it (AMQP 1.0 §2.4.5). One selector, one read buffer; a socket's state is
 * a few counters.
 *
 * <p>Two greetings: {@link #openConnection()} (SASL ANONYMOUS, open with an idle timeout, so the server sends
 * heartbeats, begin, a receiver attached to a dynamic source as reply link, with credit; the server answers with
 * five frames) and {@link #saslHeaderOnly()} (the SASL protocol header alone; the server answers with its
 * mechanisms and then waits, until its handshake timeout).
 */
final class IdleSockets implements AutoCloseable {
    /** The server frames that answer {@link #openConnection()}: mechanisms, outcome, open, begin, attach. */
    static final int OPEN_FRAMES = 5;
    /** The server frames that answer {@link #saslHeaderOnly()}: mechanisms. */
    static final int HEADER_ONLY_FRAMES = 1;
    private static final byte[] EMPTY_FRAME = {0, 0, 0, 8, 2, 0, 0, 0};

    private final Selector selector = Selector.open();
    private final List<Peer> peers = new ArrayList<>();
    private final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);

    IdleSockets() throws IOException {
    }

    /** The greeting of a client that opens a connection, a session and a reply link, then idles. */
    static byte[] openConnection() {
        AmqpWriter w = new AmqpWriter();
        int at = w.reserve(ProtocolHeader.LENGTH);
        ProtocolHeader.SASL.writeTo(w.array(), at);
        int start = FrameWriter.begin(w, FrameHeader.TYPE_SASL, 0);
        new SaslFrames().init().clear().mechanism(Symbol.of("ANONYMOUS")).encode(w);
        FrameWriter.end(w, start);
        at = w.reserve(ProtocolHeader.LENGTH);
        ProtocolHeader.AMQP.writeTo(w.array(), at);
        Performatives p = new Performatives();
        frame(w, p.open().clear().containerId("idle").idleTimeOutMillis(10_000)); // heartbeats every 5 s
        frame(w, p.begin().clear().nextOutgoingId(0).incomingWindow(2048).outgoingWindow(2048));
        p.attach().clear().name("replies").handle(0).role(Role.RECEIVER);
        p.attach().source().present(true).dynamic(true);
        p.attach().target().present(true);
        frame(w, p.attach());
        frame(w, p.flow().clear().nextIncomingId(0).incomingWindow(2048).nextOutgoingId(0).outgoingWindow(2048)
                .handle(0).deliveryCount(0).linkCredit(100));
        byte[] bytes = new byte[w.length()];
        System.arraycopy(w.array(), w.start(), bytes, 0, bytes.length);
        return bytes;
    }

    /** The greeting of a client that sends the SASL protocol header and nothing more. */
    static byte[] saslHeaderOnly() {
        byte[] header = new byte[ProtocolHeader.LENGTH];
        ProtocolHeader.SASL.writeTo(header, 0);
        return header;
    }

    private static void frame(AmqpWriter w, Performative p) {
        int start = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, 0);
        p.encode(w);
        FrameWriter.end(w, start);
    }

    /**
     * Opens {@code n} sockets to {@code port}, in batches, each sending {@code greeting}, and waits for each to
     * have received {@code frames} non-empty frames.
     *
     * @return how many completed before {@code deadlineNanos}
     */
    int open(int port, int n, byte[] greeting, int frames, long deadlineNanos) throws IOException {
        int done = 0;
        int batch = 500;
        for (int first = 0; first < n && System.nanoTime() < deadlineNanos; first += batch) {
            int count = Math.min(batch, n - first);
            long batchStart = System.nanoTime();
            List<Peer> opened = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                ch.configureBlocking(false);
                Peer peer = new Peer(ch);
                ch.register(selector, SelectionKey.OP_READ, peer);
                write(ch, greeting);
                opened.add(peer);
                peers.add(peer);
            }
            long t = System.nanoTime();
            done += awaitFrames(opened, frames, deadlineNanos);
            System.err.printf("bench capacity: %,d of %,d sockets answered (batch connected in %d ms, answered in %d ms)%n",
                    done, n, (t - batchStart) / 1_000_000, (System.nanoTime() - t) / 1_000_000);
            if (frames == OPEN_FRAMES) {
                // The first batches must not reach the server's idle timeout while the last ones open. Only open
                // connections: an empty frame is an AMQP frame, which ends a SASL handshake, and HTTP/1.1 bytes.
                keepAlive();
            }
        }
        return done;
    }

    private int awaitFrames(List<Peer> batch, int frames, long deadlineNanos) throws IOException {
        int waiting = 0;
        for (Peer p : batch) {
            if (p.frames < frames) {
                waiting++;
            }
        }
        int done = batch.size() - waiting;
        while (waiting > 0 && System.nanoTime() < deadlineNanos) {
            selector.select(100);
            for (SelectionKey key : selector.selectedKeys()) {
                Peer p = (Peer) key.attachment();
                in.clear();
                int read;
                try {
                    read = p.channel.read(in);
                } catch (IOException e) {
                    read = -1;
                }
                if (read < 0) {
                    key.cancel();
                    p.channel.close();
                    if (!p.closed && p.frames < frames && batch.contains(p)) {
                        waiting--;
                    }
                    p.closed = true;
                    continue;
                }
                in.flip();
                boolean wasDone = p.frames >= frames;
                p.parse(in);
                if (!wasDone && p.frames >= frames && batch.contains(p)) {
                    waiting--;
                    done++;
                }
            }
            selector.selectedKeys().clear();
        }
        return done;
    }

    /** Reads and drops what the server sent (heartbeats) and sends each open socket an empty frame. */
    void keepAlive() throws IOException {
        selector.selectNow();
        for (SelectionKey key : selector.selectedKeys()) {
            Peer p = (Peer) key.attachment();
            in.clear();
            try {
                if (p.channel.read(in) < 0) {
                    key.cancel();
                    p.channel.close();
                    p.closed = true;
                }
            } catch (IOException e) {
                key.cancel();
                p.channel.close();
                p.closed = true;
            }
        }
        selector.selectedKeys().clear();
        for (Peer p : peers) {
            if (!p.closed) {
                try {
                    write(p.channel, EMPTY_FRAME);
                } catch (IOException e) {
                    p.closed = true;
                }
            }
        }
    }

    /** How many sockets the server has not closed (as far as this side has read). */
    int openCount() {
        int n = 0;
        for (Peer p : peers) {
            if (!p.closed) {
                n++;
            }
        }
        return n;
    }

    private static void write(SocketChannel ch, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (b.hasRemaining() && System.nanoTime() < deadline) {
            ch.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        for (Peer p : peers) {
            p.channel.close();
        }
        selector.close();
    }

    /** One socket and the server's non-empty frames so far. */
    private static final class Peer extends FrameCounter {
        final SocketChannel channel;
        boolean closed;

        Peer(SocketChannel channel) {
            this.channel = channel;
        }
    }
}
