package io.amqpservlet.bench.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One HTTP/1.1 connection of the load generator, so HTTP is loaded and measured exactly as AMQP is: the same event
 * loop, the same open-loop schedule, latency from the time a request was due. The request is encoded once
 * (method, path, {@code Host}, content type and length, the extra headers, the body); each send copies those bytes
 * into the output buffer. Responses come back in order (RFC 9112 §9.3), so the send times wait in a ring and each
 * response takes the oldest. The parser reads the status line and {@code Content-Length} only and skips the body;
 * a response without a length (chunked) is not supported and ends the connection as an error. With a window of 1
 * (the suite's setting) a connection has one request at a time, as browsers and wrk do; a larger window pipelines.
 * Nothing here allocates per request.
 */
final class Http1LoadConnection extends LoadConnection {
    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);
    /** Only the start of a header line matters here; the rest of a longer line is skipped. */
    private static final int LINE_BYTES = 128;

    private final byte[] request;
    /** A HEAD request's response has no body (its Content-Length is that of the GET). */
    private final boolean headRequest;
    private final ByteBuffer out;
    private final int window;
    /** Send times of the requests in flight, oldest at {@link #head}. */
    private final long[] startNanos;
    private int head;
    private int inFlight;

    private final byte[] line = new byte[LINE_BYTES];
    private int lineLength;
    private boolean statusLine = true;
    private boolean inBody;
    private int status;
    private long contentLength = -1;
    private long bodyLeft;

    Http1LoadConnection(EventLoop loop, LoadOptions options, LoadOptions.Endpoint endpoint) throws IOException {
        super(loop, options, endpoint);
        this.window = options.window;
        this.request = encode(options, endpoint);
        this.headRequest = "HEAD".equals(options.method);
        this.out = ByteBuffer.allocate(request.length * window);
        this.startNanos = new long[window];
    }

    /** The request's bytes: request line, headers, body. */
    static byte[] encode(LoadOptions options, LoadOptions.Endpoint endpoint) {
        byte[] body = options.body();
        StringBuilder head = new StringBuilder();
        head.append(options.method).append(' ').append(endpoint.path()).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(endpoint.host()).append(':').append(endpoint.port()).append("\r\n");
        if (body.length > 0) {
            head.append("Content-Type: ").append(options.contentType).append("\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\n");
        for (Map.Entry<String, String> h : options.headers.entrySet()) {
            head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    @Override
    void onConnected(long nowMillis) {
        ready = true; // no handshake: requests may go at once
        loop.onReady(this);
    }

    @Override
    boolean canSend() {
        return ready && !closed && inFlight < window;
    }

    @Override
    boolean send(long fromNanos) {
        if (!canSend() || out.remaining() < request.length) {
            return false;
        }
        out.put(request);
        startNanos[(head + inFlight) % window] = fromNanos;
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
            if (inBody) {
                int take = (int) Math.min(bodyLeft, end - i);
                i += take;
                bodyLeft -= take;
                if (bodyLeft == 0) {
                    responseEnded();
                }
                continue;
            }
            byte b = a[i++];
            if (b != '\n') {
                if (lineLength < LINE_BYTES) {
                    line[lineLength++] = b;
                }
                continue;
            }
            int n = lineLength > 0 && line[lineLength - 1] == '\r' ? lineLength - 1 : lineLength;
            lineLength = 0;
            if (statusLine) {
                statusLine = false;
                status = statusCode(line, n);
            } else if (n == 0) {
                headersEnded();
            } else if (startsWithIgnoringCase(line, n, CONTENT_LENGTH)) {
                contentLength = digits(line, CONTENT_LENGTH.length, n);
            }
        }
    }

    /** The status code of {@code HTTP/1.1 200 OK}; -1 for a line that is not a status line. */
    static int statusCode(byte[] b, int n) {
        if (n < 12 || b[0] != 'H' || b[8] != ' ') {
            return -1;
        }
        int code = 0;
        for (int k = 9; k < 12; k++) {
            if (b[k] < '0' || b[k] > '9') {
                return -1;
            }
            code = code * 10 + (b[k] - '0');
        }
        return code;
    }

    /** The decimal number after optional spaces from {@code from}; -1 when there is none. */
    static long digits(byte[] b, int from, int n) {
        int k = from;
        while (k < n && (b[k] == ' ' || b[k] == '\t')) {
            k++;
        }
        long v = -1;
        while (k < n && b[k] >= '0' && b[k] <= '9') {
            v = (v < 0 ? 0 : v * 10) + (b[k++] - '0');
        }
        return v;
    }

    static boolean startsWithIgnoringCase(byte[] b, int n, byte[] lowerPrefix) {
        if (n < lowerPrefix.length) {
            return false;
        }
        for (int k = 0; k < lowerPrefix.length; k++) {
            int c = b[k];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != lowerPrefix[k]) {
                return false;
            }
        }
        return true;
    }

    private void headersEnded() {
        // RFC 9112 §6.3: no body after a HEAD request or a 1xx, 204 or 304 response, whatever the headers say.
        if (status >= 0 && (headRequest || status == 204 || status == 304)) {
            contentLength = 0;
        }
        if (status < 0 || contentLength < 0) {
            onTransportClosed(status < 0 ? "malformed HTTP/1.1 status line"
                    : "HTTP/1.1 response without Content-Length (chunked is not supported)");
            return;
        }
        if (status >= 100 && status < 200) {
            statusLine = true; // an interim response: the final one follows
            contentLength = -1;
            return;
        }
        bodyLeft = contentLength;
        inBody = true;
        if (bodyLeft == 0) {
            responseEnded();
        }
    }

    private void responseEnded() {
        long now = System.nanoTime();
        inBody = false;
        statusLine = true;
        contentLength = -1;
        if (inFlight == 0) {
            onTransportClosed("HTTP/1.1 response without a request");
            return;
        }
        long start = startNanos[head];
        head = (head + 1) % window;
        inFlight--;
        loop.record(now - start, now);
        if (status < 200 || status > 299) {
            loop.error("status " + status, now);
        }
        loop.onSlotFreed(this, now);
    }

    @Override
    void onTransportClosed(String why) {
        if (!closed && !loop.stopping()) {
            loop.error(why);
        }
        if (!loop.stopping()) {
            for (int k = 0; k < inFlight; k++) {
                loop.error("request lost: connection closed");
            }
        }
        inFlight = 0;
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
        // HTTP/1.1 cannot skip a response that does not come: a timeout ends the connection.
        if (inFlight > 0 && !closed && nowNanos - startNanos[head] > timeoutNanos) {
            loop.error("timeout");
            inFlight--;
            onTransportClosed("connection closed after a timeout");
        }
    }

    @Override
    void flush() throws IOException {
        flushBuffer(out);
    }

    @Override
    void close() {
        closed = true; // nothing to say first: the event loop closes the socket
    }

    @Override
    int inFlight() {
        return inFlight;
    }
}
