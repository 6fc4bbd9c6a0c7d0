package io.amqpservlet.bench.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One HTTP/2 connection without TLS (h2c with prior knowledge, RFC 9113 §3.3) of the load generator, so HTTP/2 is
 * loaded and measured exactly as AMQP and HTTP/1.1 are: the same event loop and schedule, latency from the time a
 * request was due, {@code window} streams in flight. The request (a HEADERS frame whose HPACK block uses the static
 * table and literals only, so no dynamic table is ever needed, then a DATA frame with the body and END_STREAM) is
 * encoded once; each send copies it and writes the new stream id into both frame headers. Responses are read frame
 * by frame: the status from the first field of the response's header block (an indexed static-table status, or a
 * literal one not Huffman-coded), the end of the response from END_STREAM. Flow control: the server's connection
 * window is honoured for the request bodies; our own receive window is opened wide at the start and topped up as
 * responses arrive. Nothing here allocates per request.
 */
final class H2cLoadConnection extends LoadConnection {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int FRAME_HEADER_BYTES = 9;
    /** RFC 9113 §4.2: the frame size every peer must accept, and ours (we never raise SETTINGS_MAX_FRAME_SIZE). */
    private static final int MAX_FRAME_BYTES = 16_384;
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int WINDOW_UPDATE = 0x8;
    private static final int FLAG_END_STREAM = 0x1;
    private static final int FLAG_ACK = 0x1;
    private static final int FLAG_END_HEADERS = 0x4;
    private static final int FLAG_PADDED = 0x8;
    private static final int FLAG_PRIORITY = 0x20;
    /** The receive window we give the server, per stream and (after the first WINDOW_UPDATE) for the connection. */
    private static final int RECEIVE_WINDOW = 1 << 30;
    /** RFC 7541 Appendix A: static-table indexes 8-14 are these :status values. */
    private static final int[] STATIC_STATUS = {200, 204, 206, 304, 400, 404, 500};

    private final byte[] request;
    private final int headersStreamIdOffset;
    private final int dataStreamIdOffset;
    private final int bodyBytes;
    private final ByteBuffer out;
    private final int window;
    private final long[] startNanos;
    /** The stream a slot waits on; 0 when the slot is free. */
    private final int[] slotStream;
    private final int[] slotStatus;
    private int inFlight;
    private int nextStreamId = 1;
    private long connectionSendWindow = 65_535; // RFC 9113 §6.9.2: until the server says otherwise
    private int maxConcurrentStreams = Integer.MAX_VALUE;
    private long receivedSinceUpdate;

    private final byte[] frameHeader = new byte[FRAME_HEADER_BYTES];
    private int frameHeaderFill;
    private final byte[] payload = new byte[MAX_FRAME_BYTES];
    private int payloadLength;
    private int payloadFill;

    H2cLoadConnection(EventLoop loop, LoadOptions options, LoadOptions.Endpoint endpoint) throws IOException {
        super(loop, options, endpoint);
        this.window = options.window;
        byte[] body = options.body();
        this.bodyBytes = body.length;
        byte[] block = headerBlock(options, endpoint);
        if (block.length > MAX_FRAME_BYTES || body.length > MAX_FRAME_BYTES) {
            throw new IOException("h2c request headers or body over " + MAX_FRAME_BYTES + " bytes");
        }
        ByteBuffer r = ByteBuffer.allocate(2 * FRAME_HEADER_BYTES + block.length + body.length);
        headersStreamIdOffset = 5;
        frameHeader(r, block.length, HEADERS, FLAG_END_HEADERS | (body.length == 0 ? FLAG_END_STREAM : 0), 0);
        r.put(block);
        if (body.length > 0) {
            dataStreamIdOffset = r.position() + 5;
            frameHeader(r, body.length, DATA, FLAG_END_STREAM, 0);
            r.put(body);
        } else {
            dataStreamIdOffset = -1;
        }
        request = java.util.Arrays.copyOf(r.array(), r.position());
        out = ByteBuffer.allocate(request.length * window + 64 * 1024);
        startNanos = new long[window];
        slotStream = new int[window];
        slotStatus = new int[window];
    }

    /**
     * The request's HPACK block (RFC 7541): {@code :method} and {@code :scheme} indexed from the static table, the
     * rest literals without indexing (§6.2.2) and without Huffman coding, so the server's decoder table stays empty.
     */
    static byte[] headerBlock(LoadOptions options, LoadOptions.Endpoint endpoint) {
        ByteBuffer b = ByteBuffer.allocate(4096);
        switch (options.method) {
            case "GET" -> b.put((byte) 0x82); // static index 2
            case "POST" -> b.put((byte) 0x83); // static index 3
            default -> literal(b, 2, options.method);
        }
        b.put((byte) 0x86); // :scheme http, static index 6
        literal(b, 4, endpoint.path()); // :path
        literal(b, 1, endpoint.host() + ":" + endpoint.port()); // :authority
        byte[] body = options.body();
        if (body.length > 0) {
            literal(b, 31, options.contentType); // content-type
        }
        literal(b, 28, Integer.toString(body.length)); // content-length
        for (Map.Entry<String, String> h : options.headers.entrySet()) {
            b.put((byte) 0x00); // literal without indexing, new name
            string(b, h.getKey().toLowerCase(java.util.Locale.ROOT));
            string(b, h.getValue());
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    /** Literal header field without indexing, name from the static table (RFC 7541 §6.2.2: 4-bit prefix). */
    private static void literal(ByteBuffer b, int nameIndex, String value) {
        integer(b, 0x00, 4, nameIndex);
        string(b, value);
    }

    private static void string(ByteBuffer b, String s) {
        byte[] v = s.getBytes(StandardCharsets.UTF_8);
        integer(b, 0x00, 7, v.length); // H = 0: not Huffman-coded
        b.put(v);
    }

    /** RFC 7541 §5.1: an integer in an N-bit prefix, the first byte's other bits from {@code firstBits}. */
    static void integer(ByteBuffer b, int firstBits, int prefixBits, long value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            b.put((byte) (firstBits | value));
            return;
        }
        b.put((byte) (firstBits | max));
        long rest = value - max;
        while (rest >= 128) {
            b.put((byte) ((rest & 0x7f) | 0x80));
            rest >>>= 7;
        }
        b.put((byte) rest);
    }

    private static void frameHeader(ByteBuffer b, int length, int type, int flags, int streamId) {
        b.put((byte) (length >>> 16)).put((byte) (length >>> 8)).put((byte) length);
        b.put((byte) type).put((byte) flags).putInt(streamId);
    }

    @Override
    void onConnected(long nowMillis) {
        out.put(PREFACE);
        // RFC 9113 §6.5.2: no push; each stream's receive window as large as the connection's.
        frameHeader(out, 12, SETTINGS, 0, 0);
        out.putShort((short) 0x2).putInt(0);
        out.putShort((short) 0x4).putInt(RECEIVE_WINDOW);
        frameHeader(out, 4, WINDOW_UPDATE, 0, 0);
        out.putInt(RECEIVE_WINDOW - 65_535);
        markDirty(); // ready once the server's SETTINGS have come
    }

    @Override
    boolean canSend() {
        return ready && !closed && inFlight < window && inFlight < maxConcurrentStreams
                && connectionSendWindow >= bodyBytes && out.remaining() >= request.length;
    }

    @Override
    boolean send(long fromNanos) {
        if (!canSend()) {
            return false;
        }
        int slot = 0;
        while (slotStream[slot] != 0) {
            slot++;
        }
        int streamId = nextStreamId;
        nextStreamId += 2; // client streams are odd (RFC 9113 §5.1.1)
        int at = out.position();
        out.put(request);
        out.putInt(at + headersStreamIdOffset, streamId);
        if (dataStreamIdOffset >= 0) {
            out.putInt(at + dataStreamIdOffset, streamId);
        }
        connectionSendWindow -= bodyBytes;
        slotStream[slot] = streamId;
        slotStatus[slot] = 0;
        startNanos[slot] = fromNanos;
        inFlight++;
        markDirty();
        return true;
    }

    @Override
    void onInput(ByteBuffer buffer, int length, long nowMillis) {
        byte[] a = buffer.array();
        int i = buffer.arrayOffset();
        int end = i + length;
        while (i < end && !closed) {
            if (frameHeaderFill < FRAME_HEADER_BYTES) {
                int take = Math.min(FRAME_HEADER_BYTES - frameHeaderFill, end - i);
                System.arraycopy(a, i, frameHeader, frameHeaderFill, take);
                frameHeaderFill += take;
                i += take;
                if (frameHeaderFill < FRAME_HEADER_BYTES) {
                    return;
                }
                payloadLength = ((frameHeader[0] & 0xff) << 16) | ((frameHeader[1] & 0xff) << 8)
                        | (frameHeader[2] & 0xff);
                payloadFill = 0;
                if (payloadLength > MAX_FRAME_BYTES) {
                    onTransportClosed("h2c frame of " + payloadLength + " bytes over our maximum");
                    return;
                }
            }
            int take = Math.min(payloadLength - payloadFill, end - i);
            System.arraycopy(a, i, payload, payloadFill, take);
            payloadFill += take;
            i += take;
            if (payloadFill == payloadLength) {
                frameHeaderFill = 0;
                onFrame(frameHeader[3] & 0xff, frameHeader[4] & 0xff,
                        ((frameHeader[5] & 0x7f) << 24) | ((frameHeader[6] & 0xff) << 16)
                                | ((frameHeader[7] & 0xff) << 8) | (frameHeader[8] & 0xff));
            }
        }
    }

    private void onFrame(int type, int flags, int streamId) {
        switch (type) {
            case DATA -> {
                receivedSinceUpdate += payloadLength;
                if (receivedSinceUpdate >= RECEIVE_WINDOW / 2) {
                    frameHeader(out, 4, WINDOW_UPDATE, 0, 0);
                    out.putInt((int) receivedSinceUpdate);
                    receivedSinceUpdate = 0;
                    markDirty();
                }
                if ((flags & FLAG_END_STREAM) != 0) {
                    ended(streamId);
                }
            }
            case HEADERS -> {
                int slot = slotOf(streamId);
                if (slot >= 0 && slotStatus[slot] == 0) {
                    int from = ((flags & FLAG_PADDED) != 0 ? 1 : 0) + ((flags & FLAG_PRIORITY) != 0 ? 5 : 0);
                    slotStatus[slot] = status(payload, from, payloadLength);
                }
                if ((flags & FLAG_END_STREAM) != 0) {
                    ended(streamId);
                }
            }
            case SETTINGS -> {
                if ((flags & FLAG_ACK) != 0) {
                    return;
                }
                for (int k = 0; k + 6 <= payloadLength; k += 6) {
                    int id = ((payload[k] & 0xff) << 8) | (payload[k + 1] & 0xff);
                    long value = ((payload[k + 2] & 0xffL) << 24) | ((payload[k + 3] & 0xff) << 16)
                            | ((payload[k + 4] & 0xff) << 8) | (payload[k + 5] & 0xff);
                    if (id == 0x3) {
                        maxConcurrentStreams = (int) Math.min(Integer.MAX_VALUE, value);
                    }
                }
                frameHeader(out, 0, SETTINGS, FLAG_ACK, 0);
                markDirty();
                if (!ready) {
                    ready = true;
                    loop.onReady(this);
                }
            }
            case PING -> {
                if ((flags & FLAG_ACK) == 0 && payloadLength == 8) {
                    frameHeader(out, 8, PING, FLAG_ACK, 0);
                    out.put(payload, 0, 8);
                    markDirty();
                }
            }
            case WINDOW_UPDATE -> {
                if (streamId == 0 && payloadLength == 4) {
                    connectionSendWindow += ((payload[0] & 0x7fL) << 24) | ((payload[1] & 0xff) << 16)
                            | ((payload[2] & 0xff) << 8) | (payload[3] & 0xff);
                    loop.onSlotFreed(this, System.nanoTime()); // a request held back by the window may go now
                }
            }
            case RST_STREAM -> {
                int slot = slotOf(streamId);
                if (slot >= 0) {
                    loop.error("stream reset by the server");
                    free(slot);
                    loop.onSlotFreed(this, System.nanoTime());
                }
            }
            case GOAWAY -> onTransportClosed("GOAWAY from the server");
            default -> {
                // PRIORITY, CONTINUATION (the status is in the first frame), unknown types: nothing to do
            }
        }
    }

    /**
     * The {@code :status} of a response header block (RFC 7541), from its first field after any dynamic table size
     * updates: an indexed static entry (8-14) or a literal with the static name {@code :status} (index 8) whose
     * value is not Huffman-coded; -1 for anything else.
     */
    static int status(byte[] b, int from, int to) {
        int k = from;
        while (k < to && (b[k] & 0xe0) == 0x20) { // §6.3 dynamic table size update: 5-bit prefix integer
            if ((b[k++] & 0x1f) == 0x1f) {
                while (k < to && (b[k] & 0x80) != 0) {
                    k++;
                }
                k++;
            }
        }
        if (k >= to) {
            return -1;
        }
        int first = b[k] & 0xff;
        if ((first & 0x80) != 0) {
            int index = first & 0x7f;
            return index >= 8 && index <= 14 ? STATIC_STATUS[index - 8] : -1;
        }
        int nameIndex = (first & 0x40) != 0 ? first & 0x3f : first & 0x0f; // with indexing: 6-bit prefix
        if (nameIndex != 8 || k + 5 > to || (b[k + 1] & 0x80) != 0 || (b[k + 1] & 0x7f) != 3) {
            return -1;
        }
        int code = 0;
        for (int d = k + 2; d < k + 5; d++) {
            if (b[d] < '0' || b[d] > '9') {
                return -1;
            }
            code = code * 10 + (b[d] - '0');
        }
        return code;
    }

    private int slotOf(int streamId) {
        for (int s = 0; s < window; s++) {
            if (slotStream[s] == streamId) {
                return s;
            }
        }
        return -1;
    }

    private void free(int slot) {
        slotStream[slot] = 0;
        inFlight--;
    }

    private void ended(int streamId) {
        long now = System.nanoTime();
        int slot = slotOf(streamId);
        if (slot < 0) {
            return; // a stream we gave up on (timed out and reset)
        }
        int status = slotStatus[slot];
        loop.record(now - startNanos[slot], now);
        free(slot);
        if (status < 200 || status > 299) {
            loop.error(status < 0 ? "status (not readable, not 2xx)" : "status " + status, now);
        }
        loop.onSlotFreed(this, now);
    }

    @Override
    void onTransportClosed(String why) {
        if (!closed && !loop.stopping()) {
            loop.error(why);
            for (int k = 0; k < inFlight; k++) {
                loop.error("request lost: connection closed");
            }
        }
        inFlight = 0;
        java.util.Arrays.fill(slotStream, 0);
        closed = true;
        ready = false;
        try {
            channel.close();
        } catch (IOException ignored) {
            // already failed; the error is recorded
        }
    }

    @Override
    void tick(long nowNanos, long timeoutNanos) {
        for (int s = 0; s < window; s++) {
            if (slotStream[s] != 0 && nowNanos - startNanos[s] > timeoutNanos && !closed) {
                loop.error("timeout");
                frameHeader(out, 4, RST_STREAM, 0, slotStream[s]);
                out.putInt(0x8); // CANCEL
                free(s);
                markDirty();
                loop.onSlotFreed(this, nowNanos);
            }
        }
    }

    @Override
    void flush() throws IOException {
        flushBuffer(out);
    }

    @Override
    void close() {
        closed = true; // the event loop closes the socket
    }

    @Override
    int inFlight() {
        return inFlight;
    }
}
