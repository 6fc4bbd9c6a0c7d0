package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Role;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an idle AMQP connection costs the server in heap (docs/design.md §2), counted over real sockets against a
 * real Jetty server in this JVM: an open connection (SASL ANONYMOUS, open with an idle timeout so the server sends
 * heartbeats, a session, a reply receiver on a dynamic source with credit) and a socket that sent only the SASL
 * protocol header and waits in the handshake.
 *
 * <p><b>Method.</b> The bytes of live objects (a class histogram's total, taken after a full collection) are read
 * after each of three batches of connections: the first batch has loaded the classes and filled the server-wide
 * caches and pools (the engine scratch busy connections share, docs/connector.md), so the growth with each further
 * batch is what each idle connection holds of its own; the smaller of the two growths counts. The clients
 * live in this JVM too, so their share is measured and subtracted: the same number of the same client objects
 * (a non-blocking {@link SocketChannel}, registered with one selector, and its few counters) connected to a plain
 * listener that never accepts, so the kernel completes the connections in its backlog and no server object exists
 * for them. What is left per connection is the server's: Jetty's end point and selector key, the
 * {@link AmqpConnection}, its engine, sessions and links, and whatever they keep. The client writes every frame in
 * one write from one shared array and reads into one shared buffer, so it holds nothing per connection beyond the
 * channel. The client share is the median of three such measurements, and the server runs on a fixed pool of 16
 * threads, so the engine scratch it keeps for busy connections (bounded by the threads that drive engines at once)
 * is filled by the first batch. Each reading waits until the live heap has settled.
 */
@Timeout(60)
class IdleConnectionMemoryTest {
    /** The target for an idle open connection, Jetty's end point included (docs/jetty.md, "Memory per connection"). */
    static final long MAX_BYTES_PER_IDLE_CONNECTION = 4 * 1024;
    /*
     * The target for a socket in the handshake is 2 KiB and is not met yet: about 1.4 KB of it is Jetty's own end
     * point, socket channel, selection key, addresses and idle-timeout task (docs/benchmarks.md, "Capacity"). This
     * bound keeps what was gained (from about 55 KB); lower it as the target is met.
     */
    static final long MAX_BYTES_PER_HANDSHAKE_SOCKET = 3 * 1024;
    static final int CONNECTIONS = Integer.getInteger("idle.connections", 1000);

    /** The server's frames that answer an open connection: mechanisms, outcome, open, begin, attach. */
    private static final int FRAMES_OPEN = 5;
    /** The server's frames a socket that sent the SASL header gets: mechanisms. */
    private static final int FRAMES_HANDSHAKE = 1;

    @Test
    void idleOpenConnectionCostsAtMostFourKibibytes() throws Exception {
        long perConnection = serverBytesPerConnection(openConnectionBytes(), FRAMES_OPEN);
        assertTrue(perConnection <= MAX_BYTES_PER_IDLE_CONNECTION, "an idle open connection costs " + perConnection
                + " bytes of heap, more than " + MAX_BYTES_PER_IDLE_CONNECTION);
    }

    @Test
    void socketWaitingInTheHandshakeCostsAtMostThreeKibibytes() throws Exception {
        byte[] header = new byte[ProtocolHeader.LENGTH];
        ProtocolHeader.SASL.writeTo(header, 0);
        long perSocket = serverBytesPerConnection(header, FRAMES_HANDSHAKE);
        assertTrue(perSocket <= MAX_BYTES_PER_HANDSHAKE_SOCKET, "a socket in the SASL handshake costs " + perSocket
                + " bytes of heap, more than " + MAX_BYTES_PER_HANDSHAKE_SOCKET);
    }

    /** Everything a client sends to hold an idle connection open, pipelined in one write. */
    static byte[] openConnectionBytes() {
        AmqpWriter w = new AmqpWriter();
        int at = w.reserve(ProtocolHeader.LENGTH);
        ProtocolHeader.SASL.writeTo(w.array(), at);
        SaslFrames sasl = new SaslFrames();
        int start = FrameWriter.begin(w, FrameHeader.TYPE_SASL, 0);
        sasl.init().clear().mechanism(Symbol.of("ANONYMOUS")).encode(w);
        FrameWriter.end(w, start);
        at = w.reserve(ProtocolHeader.LENGTH);
        ProtocolHeader.AMQP.writeTo(w.array(), at);
        Performatives p = new Performatives();
        // An idle timeout of 10 s: the server sends a heartbeat every 5 s, so its tick stays scheduled.
        frame(w, p.open().clear().containerId("idle-client").idleTimeOutMillis(10_000));
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

    private static void frame(AmqpWriter w, Performative p) {
        int start = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, 0);
        p.encode(w);
        FrameWriter.end(w, start);
    }

    /**
     * Opens {@link #CONNECTIONS} sockets to a fresh server, sends {@code hello} on each, waits until each has
     * received {@code frames} non-empty frames, and returns the heap per connection that is the server's.
     */
    static long serverBytesPerConnection(byte[] hello, int frames) throws Exception {
        int n = CONNECTIONS;
        long clientBytes = clientBytesPerConnection(n);
        // A fixed pool of threads: the engine scratch the pool keeps for busy connections (a server-wide cost) is
        // bounded by how many threads drive engines at once, so the first batch fills it and the second does not.
        Server server = new Server(new QueuedThreadPool(16, 16));
        AmqpConnectionFactory factory = new AmqpConnectionFactory();
        // All the sockets wait in the handshake at once: above the default handshake limit, which is not under test.
        factory.setMaxHandshakingConnections(4 * n); // three batches of n are open at the end
        factory.setMaxConnections(4 * n);
        // All from 127.0.0.1: counted per address (one table entry), above the per-address limits too.
        factory.setMaxHandshakesPerAddress(4 * n);
        factory.setMaxConnectionsPerAddress(4 * n);
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setAcceptQueueSize(n);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo/*");
        server.setHandler(context);
        server.start();
        try {
            // The first batch loads what an AMQP connection needs (classes, server-wide caches, the pool of engine
            // scratch that busy connections share): the second batch's growth is what each connection adds.
            Clients first = Clients.open(connector.getLocalPort(), n);
            first.handshake(hello, frames);
            awaitEndPoints(connector, n);
            boolean histogram = System.getenv("IDLE_HISTOGRAM") != null;
            long before = heapUsedAfterGc();
            String histogramBefore = histogram ? histogram() : null;
            Clients second = Clients.open(connector.getLocalPort(), n);
            second.handshake(hello, frames);
            awaitEndPoints(connector, 2 * n);
            long after = heapUsedAfterGc();
            if (histogram) {
                System.out.println(histogramGrowth(histogramBefore, histogram(), n));
            }
            // A third batch, and the smaller of the two growths: memory other threads of this JVM take or let go
            // of meanwhile (earlier tests' servers winding down) moves one reading, rarely both the same way.
            Clients third = Clients.open(connector.getLocalPort(), n);
            third.handshake(hello, frames);
            awaitEndPoints(connector, 3 * n);
            long afterThird = heapUsedAfterGc();
            long total = Math.min(after - before, afterThird - after) / n;
            long serverBytes = total - clientBytes;
            System.out.printf("%d connections (%d frames each): %d bytes/connection in all, client %d, server %d%n",
                    n, frames, total, clientBytes, serverBytes);
            first.close();
            second.close();
            third.close();
            return serverBytes;
        } finally {
            server.stop();
        }
    }

    /**
     * The heap the client side of one connection takes: a channel to a listener that never accepts. The kernel
     * queues at most {@code somaxconn} connections for it, so no more are opened than fit (with the warm-up ones).
     */
    private static long clientBytesPerConnection(int connections) throws Exception {
        long[] runs = new long[3];
        for (int i = 0; i < runs.length; i++) {
            runs[i] = clientBytesPerConnectionOnce(connections);
        }
        java.util.Arrays.sort(runs);
        return runs[1]; // the median: one run may see other memory come or go
    }

    private static long clientBytesPerConnectionOnce(int connections) throws Exception {
        int n = Math.max(16, Math.min(connections, somaxconn() / 2 - 32));
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0), 2 * n + 64); // the closed warm-up ones stay queued too
            int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
            Clients.open(port, 20).close();
            heapUsedAfterGc();
            String before = histogram();
            Clients clients = Clients.open(port, n);
            heapUsedAfterGc();
            String after = histogram();
            clients.close();
            return grownByConnections(before, after, n) / n;
        }
    }

    /**
     * The bytes added by the classes with at least one new instance per two connections: what {@code n} client
     * connections hold, counted so that memory other threads let go of meanwhile (an earlier test's threads ending)
     * cannot take from it, as it could from the heap's total. Single objects that grow with the count (a list's
     * array) are left out: a few bytes per connection, which then count as the server's.
     */
    static long grownByConnections(String before, String after, int n) {
        long bytes = 0;
        for (long[] delta : growth(before, after).values()) {
            if (delta[0] >= n / 2) {
                bytes += delta[1];
            }
        }
        return bytes;
    }

    private static int somaxconn() {
        try {
            return Integer.parseInt(Files.readString(Path.of("/proc/sys/net/core/somaxconn")).trim());
        } catch (IOException | RuntimeException e) {
            return 128; // the smallest default of the kernels that have one
        }
    }

    private static void awaitEndPoints(ServerConnector connector, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (connector.getConnectedEndPoints().size() != n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(connector.getConnectedEndPoints().size() + " end points, expected " + n);
            }
            Thread.sleep(10);
        }
    }

    /**
     * The bytes of live objects: the total of a class histogram, which the JVM takes after a full collection (the
     * same figure {@code jcmd GC.class_histogram} gives {@code bench capacity}). Unlike the heap's used size it does
     * not count what other threads allocated since, or space a collector keeps.
     */
    static long heapUsedAfterGc() throws Exception {
        // Earlier tests' threads and servers may still be letting go of memory (a pool thread that ends drops its
        // thread-locals): read until two readings a moment apart agree within 16 KiB, at most twenty times.
        long last = liveBytes();
        for (int i = 0; i < 20; i++) {
            Thread.sleep(50);
            long now = liveBytes();
            if (Math.abs(now - last) <= 16 * 1024) {
                return Math.min(now, last);
            }
            last = now;
        }
        return last;
    }

    private static long liveBytes() throws Exception {
        Matcher m = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$").matcher(histogram());
        if (!m.find()) {
            throw new AssertionError("no Total line in the class histogram");
        }
        return Long.parseLong(m.group(1));
    }

    /** The live class histogram of this JVM (to see where the bytes go: environment variable IDLE_HISTOGRAM). */
    static String histogram() throws Exception {
        return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[]{new String[0]}, new String[]{String[].class.getName()});
    }

    /** The classes whose instances grew between two histograms, most bytes first, per connection. */
    static String histogramGrowth(String before, String after, int n) {
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        for (Map.Entry<String, long[]> e : growth(before, after).entrySet()) {
            if (e.getValue()[1] > n / 2) {
                grown.add(e);
            }
        }
        grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        StringBuilder sb = new StringBuilder("per connection: instances, bytes, class\n");
        for (Map.Entry<String, long[]> e : grown) {
            sb.append(String.format("%8.2f %8.1f  %s%n", e.getValue()[0] / (double) n, e.getValue()[1] / (double) n,
                    e.getKey()));
        }
        return sb.toString();
    }

    /** Per class present after: its instances and bytes after minus before. */
    private static Map<String, long[]> growth(String before, String after) {
        Map<String, long[]> was = parseHistogram(before);
        Map<String, long[]> delta = new HashMap<>();
        for (Map.Entry<String, long[]> e : parseHistogram(after).entrySet()) {
            long[] old = was.getOrDefault(e.getKey(), new long[2]);
            delta.put(e.getKey(), new long[]{e.getValue()[0] - old[0], e.getValue()[1] - old[1]});
        }
        return delta;
    }

    private static Map<String, long[]> parseHistogram(String histogram) {
        Map<String, long[]> byClass = new HashMap<>();
        for (String line : histogram.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                byClass.put(f[3], new long[]{Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return byClass;
    }

    /**
     * Many client sockets on one selector, each with a count of the server's non-empty frames it has read. A unit
     * of the server's stream is either an 8-byte protocol header (it starts with "AMQP", which as a frame size would
     * exceed any limit) or a frame (its first four bytes are its size).
     */
    static final class Clients {
        private final Selector selector;
        private final List<Client> all = new ArrayList<>();

        private Clients(Selector selector) {
            this.selector = selector;
        }

        static Clients open(int port, int n) throws IOException {
            Clients c = new Clients(Selector.open());
            for (int i = 0; i < n; i++) {
                SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                ch.configureBlocking(false);
                Client client = new Client(ch);
                ch.register(c.selector, SelectionKey.OP_READ, client);
                c.all.add(client);
            }
            return c;
        }

        /** Sends {@code hello} on every socket and reads until each has seen {@code frames} non-empty frames. */
        void handshake(byte[] hello, int frames) throws IOException {
            for (Client c : all) {
                ByteBuffer b = ByteBuffer.wrap(hello);
                while (b.hasRemaining()) {
                    c.channel.write(b);
                }
            }
            ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
            int waiting = all.size();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (waiting > 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(waiting + " connections did not finish the handshake");
                }
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    Client c = (Client) key.attachment();
                    in.clear();
                    int read = c.channel.read(in);
                    if (read < 0) {
                        throw new AssertionError("the server closed a connection during the handshake");
                    }
                    in.flip();
                    boolean wasDone = c.frames >= frames;
                    c.parse(in);
                    if (!wasDone && c.frames >= frames) {
                        waiting--;
                    }
                }
                selector.selectedKeys().clear();
            }
        }

        void close() throws IOException {
            for (Client c : all) {
                c.channel.close();
            }
            selector.close();
        }
    }

    private static final class Client {
        private static final int AMQP = 0x414D5150;
        final SocketChannel channel;
        /** The first four bytes of the current unit, as far as read. */
        private int head;
        private int headBytes;
        /** Bytes of the current unit still to skip once its first four are known. */
        private int skip;
        int frames;

        Client(SocketChannel channel) {
            this.channel = channel;
        }

        void parse(ByteBuffer in) {
            while (in.hasRemaining()) {
                if (skip > 0) {
                    int n = Math.min(skip, in.remaining());
                    in.position(in.position() + n);
                    skip -= n;
                    continue;
                }
                head = head << 8 | in.get() & 0xFF;
                if (++headBytes < 4) {
                    continue;
                }
                if (head == AMQP) {
                    skip = ProtocolHeader.LENGTH - 4;
                } else {
                    skip = head - 4;
                    if (head > 8) {
                        frames++;
                    }
                }
                head = 0;
                headBytes = 0;
            }
        }
    }
}
