package io.amqpservlet.jetty;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A TCP relay between a gateway and a broker that reads the AMQP frames going both ways (decoded with our codec) and
 * keeps the broker's unsettled deliveries to the gateway as the wire shows them: a transfer the broker sends adds its
 * delivery, a settled disposition the gateway sends removes its range. A settlement is counted before it is passed on
 * and a transfer once it has left the broker, so at each transfer the count here is at most what the broker itself
 * had out at that moment, with no lag of the broker's own accounting (which counts a settled delivery until it has
 * processed the acknowledgement). It also counts the deliveries the broker sent pre-settled. One connection at a
 * time.
 */
final class DeliveryTap implements AutoCloseable {
    private final ServerSocket server;
    private final int brokerPort;
    private final Thread acceptor;
    /** The broker's unsettled deliveries, by the broker's channel of their session. */
    private final Map<Integer, Set<Integer>> unsettled = new HashMap<>();
    /** The broker's channel for each of the gateway's, from the broker's begin. */
    private final Map<Integer, Integer> brokerChannel = new HashMap<>();
    /** The last pre-settled delivery the broker sent, by its channel (a message of several frames counts once). */
    private final Map<Integer, Integer> lastSettled = new HashMap<>();
    private int most;
    private long transfers;
    private long settledTransfers;
    /** What the tap could not decode: the counts after it would be wrong, so every accessor fails with it. */
    private volatile RuntimeException failure;
    private volatile Socket gatewaySide;
    private volatile Socket brokerSide;

    DeliveryTap(int brokerPort) throws IOException {
        this.brokerPort = brokerPort;
        server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "delivery-tap");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port the gateway connects to instead of the broker's. */
    int port() {
        return server.getLocalPort();
    }

    /** The most deliveries the broker had unsettled at the gateway when it sent one. */
    synchronized int most() {
        checkDecoded();
        return most;
    }

    /** The unsettled deliveries the broker sent through the tap. */
    synchronized long transfers() {
        checkDecoded();
        return transfers;
    }

    /** The pre-settled deliveries the broker sent through the tap. */
    synchronized long settledTransfers() {
        checkDecoded();
        return settledTransfers;
    }

    private void checkDecoded() {
        if (failure != null) {
            throw new AssertionError("the tap could not decode what went through it", failure);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket gateway = server.accept();
                Socket broker = new Socket();
                broker.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), brokerPort), 5_000);
                gateway.setTcpNoDelay(true);
                broker.setTcpNoDelay(true);
                closeQuietly(gatewaySide);
                closeQuietly(brokerSide);
                gatewaySide = gateway;
                brokerSide = broker;
                synchronized (this) {
                    unsettled.clear();
                    brokerChannel.clear();
                    lastSettled.clear();
                }
                pump(gateway, broker, true);
                pump(broker, gateway, false);
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromGateway) {
        Thread t = new Thread(() -> {
            Frames frames = new Frames(fromGateway);
            byte[] chunk = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(chunk)) > 0) {
                    frames.feed(chunk, n); // before it is passed on: a settlement counts before the broker sees it
                    out.write(chunk, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: the other follows
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "delivery-tap-" + (fromGateway ? "out" : "in"));
        t.setDaemon(true);
        t.start();
    }

    /** One direction's frames: protocol headers, SASL frames (skipped), AMQP frames (decoded). */
    private final class Frames {
        private final boolean fromGateway;
        private final FrameReader reader = new FrameReader(Integer.MAX_VALUE);
        private final AmqpReader amqp = new AmqpReader();
        private final Performatives performatives = new Performatives();
        private byte[] buffer = new byte[128 * 1024];
        private int length;

        Frames(boolean fromGateway) {
            this.fromGateway = fromGateway;
            reader.useNegotiatedLimit(); // a tap reads whatever the peers agree to, the opens included
        }

        void feed(byte[] bytes, int n) {
            if (length + n > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + n));
            }
            System.arraycopy(bytes, 0, buffer, length, n);
            length += n;
            int at = 0;
            while (true) {
                if (length - at >= 4 && buffer[at] == 'A' && buffer[at + 1] == 'M' && buffer[at + 2] == 'Q'
                        && buffer[at + 3] == 'P') {
                    if (length - at < ProtocolHeader.LENGTH) {
                        break;
                    }
                    at += ProtocolHeader.LENGTH; // no frame's size starts with "AMQP" (that would be 1 GiB)
                    continue;
                }
                if (!reader.read(buffer, at, length - at)) {
                    break;
                }
                if (reader.type() == FrameHeader.TYPE_AMQP && reader.bodyLength() > 0) {
                    amqp.wrap(buffer, reader.bodyOffset(), reader.bodyLength());
                    frame(reader.channel(), performatives.decode(amqp));
                }
                at += reader.frameSize();
            }
            System.arraycopy(buffer, at, buffer, 0, length - at);
            length -= at;
        }

        private void frame(int channel, Performative p) {
            synchronized (DeliveryTap.this) {
                if (!fromGateway && p instanceof Begin begin && begin.hasRemoteChannel()) {
                    brokerChannel.put(begin.remoteChannel(), channel);
                } else if (!fromGateway && p instanceof Transfer t && t.hasDeliveryId() && t.settled()) {
                    Integer last = lastSettled.put(channel, t.deliveryId());
                    if (last == null || last != t.deliveryId()) {
                        settledTransfers++;
                    }
                } else if (!fromGateway && p instanceof Transfer t && t.hasDeliveryId() && !t.settled()) {
                    Set<Integer> out = unsettled.computeIfAbsent(channel, c -> new HashSet<>());
                    if (out.add(t.deliveryId())) {
                        transfers++;
                        most = Math.max(most, out.size());
                    }
                } else if (fromGateway && p instanceof Disposition d && d.role() == Role.RECEIVER && d.settled()) {
                    Set<Integer> out = unsettled.get(brokerChannel.getOrDefault(channel, -1));
                    if (out != null) {
                        int last = d.hasLast() ? d.last() : d.first();
                        for (int id = d.first(); id - last <= 0; id++) {
                            out.remove(id);
                        }
                    }
                }
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        closeQuietly(gatewaySide);
        closeQuietly(brokerSide);
    }
}
