package io.amqpservlet.gateway;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.transport.Performatives;

import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A client behind a load balancer, over a real socket: a PROXY protocol v1 line naming the client's address, then
 * (over TLS, when given a socket factory for it) SASL ANONYMOUS and an open, pipelined; then it reads what the server
 * sends, as text, to look for a refusal.
 */
public final class ProxiedAmqpPeer implements AutoCloseable {
    private Socket socket = new Socket();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    public static ProxiedAmqpPeer open(int port, String clientAddress) throws IOException {
        return open(port, clientAddress, null);
    }

    /** As {@link #open(int, String)}, with TLS after the PROXY line when {@code tls} is not null. */
    public static ProxiedAmqpPeer open(int port, String clientAddress, SSLSocketFactory tls) throws IOException {
        ProxiedAmqpPeer p = new ProxiedAmqpPeer();
        p.socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        p.socket.setSoTimeout(100);
        AmqpWriter w = new AmqpWriter();
        byte[] proxy = ("PROXY TCP4 " + clientAddress + " 127.0.0.1 40000 5672\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        header(w, ProtocolHeader.SASL);
        int start = FrameWriter.begin(w, FrameHeader.TYPE_SASL, 0);
        new SaslFrames().init().clear().mechanism(Symbol.of("ANONYMOUS")).encode(w);
        FrameWriter.end(w, start);
        header(w, ProtocolHeader.AMQP);
        start = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, 0);
        new Performatives().open().clear().containerId(clientAddress).encode(w);
        FrameWriter.end(w, start);
        p.socket.getOutputStream().write(proxy);
        if (tls != null) {
            SSLSocket over = (SSLSocket) tls.createSocket(p.socket, "localhost", port, true);
            over.setSoTimeout(10_000);
            over.startHandshake();
            over.setSoTimeout(100);
            p.socket = over;
        }
        p.socket.getOutputStream().write(w.array(), w.start(), w.length());
        return p;
    }

    private static void header(AmqpWriter w, ProtocolHeader header) {
        int at = w.reserve(ProtocolHeader.LENGTH);
        header.writeTo(w.array(), at);
    }

    /**
     * Reads until the server's open has arrived (at most 10 s), so that a test knows this connection is counted
     * before it opens the next.
     *
     * @return this peer
     */
    public ProxiedAmqpPeer awaitOpen() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!hasOpen()) {
            if (System.nanoTime() > deadline || read() < 0) {
                throw new AssertionError("no open from the server: "
                        + received.toString(StandardCharsets.ISO_8859_1));
            }
        }
        return this;
    }

    /** Whether the bytes so far hold an AMQP frame whose performative is open (descriptor 0x10, AMQP 1.0 §2.7.1). */
    private boolean hasOpen() {
        byte[] b = received.toByteArray();
        int p = 0;
        while (p + 8 <= b.length) {
            if (b[p] == 'A' && b[p + 1] == 'M' && b[p + 2] == 'Q' && b[p + 3] == 'P') {
                p += ProtocolHeader.LENGTH;
                continue;
            }
            int size = (b[p] & 0xFF) << 24 | (b[p + 1] & 0xFF) << 16 | (b[p + 2] & 0xFF) << 8 | (b[p + 3] & 0xFF);
            int body = p + (b[p + 4] & 0xFF) * 4;
            if (b[p + 5] == FrameHeader.TYPE_AMQP && body + 3 <= b.length && b[body] == 0 && b[body + 1] == 0x53
                    && b[body + 2] == 0x10) {
                return true;
            }
            p += size;
        }
        return false;
    }

    /** Reads until the server closes the socket (at most 10 s); the bytes as ISO-8859-1 text. */
    public String readUntilClosed() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (read() < 0) {
                return received.toString(StandardCharsets.ISO_8859_1);
            }
        }
        throw new AssertionError("not closed: " + received.toString(StandardCharsets.ISO_8859_1));
    }

    /** Whether the server has not closed the socket within {@code millis} (reading what it sent). */
    public boolean stillOpenAfter(long millis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        do {
            if (read() < 0) {
                return false;
            }
        } while (System.nanoTime() < deadline);
        return received.size() > 0;
    }

    private int read() throws IOException {
        byte[] b = new byte[4096];
        try {
            int n = socket.getInputStream().read(b);
            if (n > 0) {
                received.write(b, 0, n);
            }
            return n;
        } catch (SocketTimeoutException e) {
            return 0;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
