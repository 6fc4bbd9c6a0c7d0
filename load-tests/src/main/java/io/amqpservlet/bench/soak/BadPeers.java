package io.amqpservlet.bench.soak;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.RequestMessageEncoder;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.frame.ProtocolHeader;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Peers that misbehave, one started every period in turn, each on a thread of its own, each kept for at most the
 * hold time and then closed by us:
 * <ul>
 *   <li>{@link Kind#STALLED_HANDSHAKE}: sends the SASL protocol header and nothing more; the gateway should end it
 *       at its handshake timeout.</li>
 *   <li>{@link Kind#GARBAGE}: sends random bytes; the gateway should close at once.</li>
 *   <li>{@link Kind#UNREADING_AMQP}: a real AMQP client (our engine) that opens a connection and links, sends as
 *       many 8 KiB requests as its credit allows, and then never reads a byte: the responses pile up in the
 *       gateway until its socket buffers fill, and stay there until the peer goes.</li>
 *   <li>{@link Kind#UNREADING_HTTP}: 200 pipelined HTTP/1.1 POSTs of 8 KiB to {@code /echo}, never reading.</li>
 * </ul>
 * For each kind the counts of peers started, closed by the gateway within the hold time, and still open when we
 * closed them (a non-reading peer cannot see the gateway close unless a write of its own fails; it counts as held).
 */
final class BadPeers {
    enum Kind {
        STALLED_HANDSHAKE("stalled handshake"), GARBAGE("garbage bytes"), UNREADING_AMQP("non-reading AMQP"),
        UNREADING_HTTP("non-reading HTTP/1.1");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * How one kind of bad peer fared: started, closed by the gateway within the hold time, still open when the hold
     * time ended, cut short by the end of the run, failed (could not connect, or an error of ours).
     */
    record Counts(long started, long closedByGateway, long heldToTheEnd, long cutShort, long failed) {
    }

    private static final int BODY_BYTES = 8 * 1024;
    private static final int HTTP_REQUESTS = 200;
    private static final int MAX_AMQP_REQUESTS = 500;

    private final String host;
    private final int amqpPort;
    private final int httpPort;
    private final long periodMillis;
    private final long holdMillis;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "soak-bad-peer");
        t.setDaemon(true);
        return t;
    });
    private final Thread starter;
    /** Closes each peer's socket at the end of its hold time, whatever its thread is blocked in. */
    private final ScheduledExecutorService closer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "soak-bad-peer-closer");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Map<Kind, AtomicLong[]> counts = new EnumMap<>(Kind.class);
    private final AtomicLong startedInInterval = new AtomicLong();
    private volatile boolean running;

    BadPeers(String host, int amqpPort, int httpPort, long periodMillis, long holdMillis) {
        this.host = host;
        this.amqpPort = amqpPort;
        this.httpPort = httpPort;
        this.periodMillis = periodMillis;
        this.holdMillis = holdMillis;
        for (Kind k : Kind.values()) {
            counts.put(k, new AtomicLong[] {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong(),
                new AtomicLong()});
        }
        starter = new Thread(this::loop, "soak-bad-peers");
        starter.setDaemon(true);
    }

    String describe() {
        return String.format(Locale.ROOT, "one bad peer every %.1f s in turn (stalled SASL handshake, 1 KiB of random "
                + "bytes, a non-reading AMQP client with its credit's worth of 8 KiB requests, %d pipelined 8 KiB "
                + "HTTP/1.1 POSTs never read), each closed by us after %d s if the gateway has not", periodMillis / 1e3,
                HTTP_REQUESTS, holdMillis / 1000);
    }

    void start() {
        running = true;
        starter.start();
    }

    private void loop() {
        int next = 0;
        Kind[] kinds = Kind.values();
        while (running) {
            Kind kind = kinds[next++ % kinds.length];
            counts.get(kind)[0].incrementAndGet();
            startedInInterval.incrementAndGet();
            threads.execute(() -> run(kind));
            try {
                Thread.sleep(periodMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void run(Kind kind) {
        AtomicLong[] c = counts.get(kind);
        AtomicBoolean closedByUs = new AtomicBoolean();
        Socket socket = new Socket();
        open.add(socket);
        ScheduledFuture<?> close = closer.schedule(() -> {
            closedByUs.set(true);
            closeQuietly(socket);
        }, holdMillis + 1_000, TimeUnit.MILLISECONDS);
        try {
            socket.connect(new InetSocketAddress(host, kind == Kind.UNREADING_HTTP ? httpPort : amqpPort), 10_000);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMillis);
            boolean closedByGateway = switch (kind) {
                case STALLED_HANDSHAKE -> {
                    byte[] header = new byte[ProtocolHeader.LENGTH];
                    ProtocolHeader.SASL.writeTo(header, 0);
                    socket.getOutputStream().write(header);
                    yield readUntilClosed(socket, until);
                }
                case GARBAGE -> {
                    byte[] junk = new byte[1024];
                    new Random().nextBytes(junk);
                    junk[0] = 'X'; // not "AMQP": a random first byte could start a valid header once in 2^32
                    socket.getOutputStream().write(junk);
                    yield readUntilClosed(socket, until);
                }
                case UNREADING_AMQP -> unreadingAmqp(socket, until);
                case UNREADING_HTTP -> unreadingHttp(socket, until);
            };
            (closedByGateway ? c[1] : running ? c[2] : c[3]).incrementAndGet();
        } catch (IOException | RuntimeException e) {
            // Our own close at the end of the hold time (or of the run) ends a blocked read or write.
            (!running ? c[3] : closedByUs.get() ? c[2] : c[4]).incrementAndGet();
        } finally {
            close.cancel(false);
            closeQuietly(socket);
            open.remove(socket);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Reads and drops what comes until the gateway closes (true) or the hold time ends (false). */
    private boolean readUntilClosed(Socket socket, long untilNanos) throws IOException {
        socket.setSoTimeout(200);
        InputStream in = socket.getInputStream();
        byte[] sink = new byte[4096];
        while (running && System.nanoTime() < untilNanos) {
            try {
                if (in.read(sink) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException quiet) {
                // go on waiting
            } catch (IOException reset) {
                return true;
            }
        }
        return false;
    }

    /** Holds the socket without reading until the hold time ends. */
    private void holdUnread(long untilNanos) throws InterruptedException {
        while (running && System.nanoTime() < untilNanos) {
            Thread.sleep(200);
        }
    }

    private boolean unreadingHttp(Socket socket, long untilNanos) throws IOException {
        byte[] body = SoakRun.body(BODY_BYTES);
        byte[] head = ("POST /echo HTTP/1.1\r\nHost: soak\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        OutputStream out = socket.getOutputStream();
        // Written from another thread: once the gateway's output back-pressures, it stops reading and our writes block.
        AtomicBoolean writeFailed = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < HTTP_REQUESTS && running; i++) {
                    out.write(head);
                    out.write(body);
                }
            } catch (IOException closed) {
                writeFailed.set(!socket.isClosed()); // the gateway closed, not we
            }
        }, "soak-bad-peer-http-writer");
        writer.setDaemon(true);
        writer.start();
        try {
            holdUnread(untilNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return writeFailed.get();
    }

    private boolean unreadingAmqp(Socket socket, long untilNanos) throws IOException {
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(20);
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        Engine engine = new Engine(new EngineConfig().saslAnonymous().role(EngineConfig.Role.INITIATOR),
                new EngineHandler() {
                });
        engine.start(AmqpRequestClient.now());
        Session session = null;
        Link replies = null;
        Link sender = null;
        byte[] buffer = new byte[1024 * 1024];
        int start = 0;
        int end = 0;
        long deadline = AmqpRequestClient.now() + 10_000;
        // Read until the links are attached and the gateway has granted credit.
        while (sender == null || !sender.canSend() || replies.source().address().isNull()) {
            if (AmqpRequestClient.now() > deadline || engine.isDone()) {
                throw new IOException("the non-reading AMQP peer did not get its links");
            }
            if (session == null && engine.isOpen()) {
                session = engine.beginSession();
                replies = session.attachDynamicReceiver("replies", true);
                replies.flow(10_000);
                sender = session.attachSender("requests", "/echo");
            }
            write(engine, out);
            int n;
            try {
                n = in.read(buffer, end, buffer.length - end);
            } catch (SocketTimeoutException quiet) {
                n = 0;
            }
            if (n < 0) {
                return true;
            }
            end += n;
            start += engine.process(buffer, start, end - start, AmqpRequestClient.now());
            if (start == end) {
                start = 0;
                end = 0;
            }
            engine.tick(AmqpRequestClient.now());
        }
        RequestMessageEncoder encoder = new RequestMessageEncoder(BODY_BYTES + 512);
        byte[] body = SoakRun.body(BODY_BYTES);
        String replyTo = replies.source().address().toString();
        for (int i = 0; i < MAX_AMQP_REQUESTS && sender.canSend(); i++) {
            encoder.encode(i, "POST", "/echo", replyTo, "application/octet-stream", Map.of(), body, 0, body.length);
            sender.send(encoder.array(), encoder.offset(), encoder.length(), false);
            try {
                write(engine, out);
            } catch (IOException closed) {
                return true;
            }
        }
        // From here on nothing is read: the responses fill the gateway's socket buffers and wait there.
        try {
            holdUnread(untilNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private static void write(Engine engine, OutputStream out) throws IOException {
        ByteBuffer output;
        while ((output = engine.beginFlush()) != null) {
            out.write(output.array(), output.arrayOffset() + output.position(), output.remaining());
            output.position(output.limit());
            engine.endFlush();
        }
        out.flush();
    }

    /** Bad peers started since the last call. */
    long drainStarted() {
        return startedInInterval.getAndSet(0);
    }

    Map<Kind, Counts> counts() {
        Map<Kind, Counts> m = new EnumMap<>(Kind.class);
        for (Map.Entry<Kind, AtomicLong[]> e : counts.entrySet()) {
            AtomicLong[] c = e.getValue();
            m.put(e.getKey(), new Counts(c[0].get(), c[1].get(), c[2].get(), c[3].get(), c[4].get()));
        }
        return m;
    }

    /** Stops starting peers, closes those still open, and waits for their threads. */
    void stop() throws InterruptedException {
        running = false;
        starter.interrupt();
        starter.join(5_000);
        for (Socket s : open) {
            closeQuietly(s);
        }
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        closer.shutdownNow();
    }
}
