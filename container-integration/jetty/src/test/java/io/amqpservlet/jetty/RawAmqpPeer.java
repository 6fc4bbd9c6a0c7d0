package io.amqpservlet.jetty;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.sasl.SaslFrame;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslMechanismNames;
import io.amqpservlet.protocol.types.sasl.SaslMechanisms;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;

/**
 * A peer that writes whatever bytes and frames a test chooses, however wrong, over a real socket, and reads back the
 * server's protocol header and frames (decoded with our codec). Unlike {@link AmqpSocketClient}, nothing here keeps
 * to the protocol on its own: that is the point of it. Every read is bounded by a deadline.
 */
final class RawAmqpPeer implements AutoCloseable {
    private static final long DEADLINE_MILLIS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpReader reader = new AmqpReader();
    // A test peer accepts frames of any size the server sends (the server keeps to its own limits).
    private final FrameReader frames = new FrameReader(64 * 1024 * 1024);
    private final Performatives performatives = new Performatives();
    private final SaslFrames sasl = new SaslFrames();
    private byte[] input = new byte[64 * 1024];
    private int inputStart;
    private int inputEnd;
    private boolean eof;

    RawAmqpPeer(int port) throws IOException {
        this(null, port);
    }

    /** A peer whose socket is bound to {@code localAddress} (a loopback address such as 127.0.0.2), or any. */
    RawAmqpPeer(String localAddress, int port) throws IOException {
        socket = new Socket();
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(50);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        frames.useNegotiatedLimit();
    }

    /** A peer on a socket a test's server accepted: the broker's side of a connection the attachment made. */
    RawAmqpPeer(Socket accepted) throws IOException {
        socket = accepted;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(50);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        frames.useNegotiatedLimit();
    }

    /** Writes raw bytes. */
    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Writes a protocol header. */
    void writeHeader(ProtocolHeader header) throws IOException {
        byte[] bytes = new byte[ProtocolHeader.LENGTH];
        header.writeTo(bytes, 0);
        write(bytes);
    }

    /** Writes one SASL frame. */
    void writeSasl(SaslFrame frame) throws IOException {
        writer.clear();
        int start = FrameWriter.begin(writer, FrameHeader.TYPE_SASL, 0);
        frame.encode(writer);
        FrameWriter.end(writer, start);
        flushWriter();
    }

    /** Writes one AMQP frame holding {@code performative} on {@code channel}. */
    void writeFrame(int channel, Performative performative) throws IOException {
        writer.clear();
        appendFrame(channel, performative, null, 0);
        flushWriter();
    }

    /** The bytes of one AMQP frame holding {@code performative} on {@code channel}, not written: to send in pieces. */
    byte[] frameBytes(int channel, Performative performative) {
        writer.clear();
        appendFrame(channel, performative, null, 0);
        return Arrays.copyOfRange(writer.array(), writer.start(), writer.start() + writer.length());
    }

    /** Appends a frame to the pending output without writing it, so many frames can go out in one write. */
    void appendFrame(int channel, Performative performative, byte[] payload, int payloadLength) {
        int start = FrameWriter.begin(writer, FrameHeader.TYPE_AMQP, channel);
        performative.encode(writer);
        if (payload != null) {
            FrameWriter.appendPayload(writer, payload, 0, payloadLength);
        }
        FrameWriter.end(writer, start);
    }

    /** Writes a transfer frame with payload. */
    void writeTransfer(int channel, Transfer transfer, byte[] payload, int length) throws IOException {
        writer.clear();
        appendFrame(channel, transfer, payload, length);
        flushWriter();
    }

    /** Starts collecting frames for {@link #flushWriter()}. */
    void clearOutput() {
        writer.clear();
    }

    /**
     * The broker's side of a connection's start: the SASL layer with ANONYMOUS offered and accepted (AMQP 1.0
     * §5.3.2), then the AMQP header and the peer's open (§2.4.1). The open is read and returned, not answered.
     */
    Open acceptAnonymously() throws IOException {
        readHeader();
        writeHeader(ProtocolHeader.SASL);
        SaslMechanisms mechanisms = new SaslMechanisms();
        mechanisms.mechanisms().add(SaslMechanismNames.ANONYMOUS);
        writeSasl(mechanisms);
        readUntil(SaslInit.class);
        writeSasl(new SaslOutcome().code(SaslOutcome.OK));
        readHeader();
        writeHeader(ProtocolHeader.AMQP);
        return readUntil(Open.class);
    }

    /** Writes every frame appended since the last flush. */
    void flushWriter() throws IOException {
        out.write(writer.array(), writer.start(), writer.length());
        out.flush();
        writer.clear();
    }

    /** Reads the server's 8-byte protocol header. */
    ProtocolHeader readHeader() throws IOException {
        fill(ProtocolHeader.LENGTH, "a protocol header");
        ProtocolHeader header = ProtocolHeader.parse(input, inputStart);
        inputStart += ProtocolHeader.LENGTH;
        return header;
    }

    /**
     * Reads the next non-empty frame: a {@link Performative} or a {@link SaslFrame}, decoded into an instance this
     * peer reuses (read what you need before the next call).
     */
    DescribedList readFrame() throws IOException {
        while (true) {
            while (!frames.read(input, inputStart, inputEnd - inputStart)) {
                fill(inputEnd - inputStart + frames.bytesNeeded(), "a frame");
            }
            int bodyOffset = frames.bodyOffset();
            int bodyLength = frames.bodyLength();
            int type = frames.type();
            inputStart += frames.frameSize();
            if (bodyLength == 0) {
                continue; // heartbeat
            }
            reader.wrap(input, bodyOffset, bodyLength);
            return type == FrameHeader.TYPE_SASL ? sasl.decode(reader) : performatives.decode(reader);
        }
    }

    /** Reads frames until one of {@code type} arrives, and returns it; fails on EOF or after the deadline. */
    <T extends DescribedList> T readUntil(Class<T> type) throws IOException {
        while (true) {
            DescribedList frame = readFrame();
            if (type.isInstance(frame)) {
                return type.cast(frame);
            }
        }
    }

    /**
     * Reads (and drops) whatever arrives until the server closes the socket; fails if it has not after
     * {@code millis}. Returns everything read, including what earlier reads left unconsumed.
     */
    byte[] awaitEof(long millis) throws IOException {
        long deadline = System.nanoTime() / 1_000_000 + millis;
        while (!eof) {
            if (System.nanoTime() / 1_000_000 > deadline) {
                throw new AssertionError("the server did not close the connection within " + millis + " ms");
            }
            readSome();
        }
        return Arrays.copyOfRange(input, inputStart, inputEnd);
    }

    /**
     * Reads (and keeps, for later reads) whatever arrives for {@code millis}, and fails if the server closes the
     * socket meanwhile or had closed it already: {@link #closedByServer()} alone knows only what reads have seen.
     */
    void assertStillOpen(long millis) throws IOException {
        long deadline = System.nanoTime() / 1_000_000 + millis;
        while (!eof && System.nanoTime() / 1_000_000 < deadline) {
            readSome();
        }
        if (eof) {
            throw new AssertionError("the server closed the connection");
        }
    }

    /** Whether the server has closed the socket (as far as reads have seen). */
    boolean closedByServer() {
        return eof;
    }

    private void fill(int needed, String what) throws IOException {
        long deadline = System.nanoTime() / 1_000_000 + DEADLINE_MILLIS;
        while (inputEnd - inputStart < needed) {
            if (eof) {
                throw new AssertionError("the server closed the connection while we waited for " + what);
            }
            if (System.nanoTime() / 1_000_000 > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            if (inputStart + needed > input.length) {
                byte[] bigger = new byte[Math.max(input.length * 2, needed)];
                System.arraycopy(input, inputStart, bigger, 0, inputEnd - inputStart);
                input = bigger;
                inputEnd -= inputStart;
                inputStart = 0;
            }
            readSome();
        }
    }

    private void readSome() throws IOException {
        if (inputEnd == input.length) {
            if (inputStart > 0) {
                System.arraycopy(input, inputStart, input, 0, inputEnd - inputStart);
                inputEnd -= inputStart;
                inputStart = 0;
            } else {
                input = Arrays.copyOf(input, input.length * 2);
            }
        }
        int n;
        try {
            n = in.read(input, inputEnd, input.length - inputEnd);
        } catch (SocketTimeoutException quiet) {
            return;
        } catch (IOException reset) {
            n = -1; // reset by the server: as good as closed for these tests
        }
        if (n < 0) {
            eof = true;
        } else {
            inputEnd += n;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
