package io.amqpservlet.jetty;

import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Open;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted broker that takes every connection as far as the session and then never answers an attach, as brokers
 * do for a link they cannot serve: it accepts on a loopback port, completes SASL ANONYMOUS, answers the open (with no
 * idle-time-out unless {@linkplain #announcing told to announce one}: it asks for no heartbeats) and the first begin,
 * and from then on reads whatever comes, our close included, and answers nothing, until the peer closes the socket. Each connection is served by a thread of its own, so a
 * peer that connects again is accepted while an earlier connection is still waiting for its answers.
 */
public final class UnansweringBroker implements AutoCloseable {
    private final ServerSocket server;
    /** The idle-time-out our open announces, in ms; 0 for none. */
    private final long idleTimeoutMillis;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** The idle-time-out of each connection's open, in connection order; -1 where the open had none. */
    private final List<Long> announcedIdleTimeouts = new CopyOnWriteArrayList<>();
    private final AtomicInteger attaches = new AtomicInteger();
    private final AtomicInteger closesReceived = new AtomicInteger();
    private final AtomicInteger mostClosesOnAConnection = new AtomicInteger();
    private final List<String> closeErrors = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();

    private UnansweringBroker(ServerSocket server, long idleTimeoutMillis) {
        this.server = server;
        this.idleTimeoutMillis = idleTimeoutMillis;
    }

    /** Listens on a free loopback port and serves every connection as above. */
    public static UnansweringBroker start() throws IOException {
        return announcing(0);
    }

    /**
     * As {@link #start()}, with an open that announces {@code idleTimeoutMillis} as its idle-time-out (AMQP 1.0
     * §2.4.5), however short; 0 announces none.
     */
    public static UnansweringBroker announcing(long idleTimeoutMillis) throws IOException {
        UnansweringBroker broker = new UnansweringBroker(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
                idleTimeoutMillis);
        Thread acceptor = new Thread(broker::accept, "unanswering-broker");
        acceptor.setDaemon(true);
        acceptor.start();
        return broker;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    public int connections() {
        return sockets.size();
    }

    /** Connections that got as far as the peer's open. */
    public int opened() {
        return announcedIdleTimeouts.size();
    }

    /** The idle-time-out announced in each connection's open (AMQP 1.0 §2.4.5), in order; -1 for none. */
    public List<Long> announcedIdleTimeouts() {
        return List.copyOf(announcedIdleTimeouts);
    }

    /** Attach frames received (and never answered), over every connection. */
    public int attaches() {
        return attaches.get();
    }

    /** Close frames received (never answered), over every connection. */
    public int closesReceived() {
        return closesReceived.get();
    }

    /** The most close frames one connection carried: 1 for a peer that keeps to AMQP 1.0 §2.4.3. */
    public int mostClosesOnAConnection() {
        return mostClosesOnAConnection.get();
    }

    /** The error of every close received, as {@code condition description}, in the order they came. */
    public List<String> closeErrors() {
        return List.copyOf(closeErrors);
    }

    /** What went wrong in the script (a peer that did not speak as a client does), empty when nothing did. */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    private void accept() {
        try {
            while (true) {
                Socket s = server.accept();
                sockets.add(s);
                Thread t = new Thread(() -> serve(s), "unanswering-broker-" + sockets.size());
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private void serve(Socket socket) {
        try (RawAmqpPeer peer = new RawAmqpPeer(socket)) {
            Open open = peer.acceptAnonymously();
            announcedIdleTimeouts.add(open.hasIdleTimeOut() ? open.idleTimeOutMillis() : -1L);
            Open ours = new Open().containerId("unanswering-broker");
            if (idleTimeoutMillis > 0) {
                ours.idleTimeOutMillis(idleTimeoutMillis);
            }
            peer.writeFrame(0, ours);
            // AMQP 1.0 §2.5.1: the session the peer begins on channel 0 is answered, and nothing after it:
            // attaches, flows and the close (which may come before any begin) are read and dropped.
            boolean begun = false;
            int closes = 0;
            while (!peer.closedByServer()) {
                DescribedList frame;
                try {
                    frame = peer.readFrame();
                } catch (AssertionError quietOrEnded) {
                    continue; // ten quiet seconds, or the end of the stream (the loop's condition)
                }
                if (frame instanceof Begin && !begun) {
                    begun = true;
                    peer.writeFrame(0, new Begin().remoteChannel(0).nextOutgoingId(0).incomingWindow(1000)
                            .outgoingWindow(1000));
                } else if (frame instanceof Attach) {
                    attaches.incrementAndGet();
                } else if (frame instanceof Close) {
                    closesReceived.incrementAndGet();
                    Close close = (Close) frame;
                    closeErrors.add(close.error().condition() + " " + close.error().description());
                    mostClosesOnAConnection.accumulateAndGet(++closes, Math::max);
                }
            }
        } catch (IOException | AssertionError e) {
            // The peer may give up at any step (its attach timeout covers the handshake too): only a peer that is
            // still there and did not send what a client sends next is a failure of the script.
            if (!server.isClosed() && !socket.isClosed() && !endOfStream(e)) {
                failures.add(socket + ": " + e);
            }
        }
    }

    private static boolean endOfStream(Throwable e) {
        String message = String.valueOf(e.getMessage());
        return e instanceof java.net.SocketException || message.contains("closed the connection");
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
