package io.amqpservlet.client;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MapCursor;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A blocking HTTP-over-AMQP client: our initiator {@link Engine} pumped over a TCP socket on the calling thread.
 * {@link #connect} opens the connection (SASL as configured), a session, a dynamic receiver for replies and a
 * sender to the request address; {@link #exchange} sends one request message with {@code reply-to} set to the
 * dynamic node and waits for its response, whole or (with a {@link ResponseListener}) streamed as its frames
 * arrive. The request is encoded by {@link RequestMessageEncoder}. One thread at a time; every wait is bounded by
 * the deadline given.
 */
public final class AmqpRequestClient implements AutoCloseable {
    private static final String REPLY_LINK = "replies";

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    /** Input not yet consumed by the engine is {@code [readStart, readEnd)}; it always has room for a whole frame. */
    private final byte[] readBuffer;
    private int readStart;
    private int readEnd;
    private final Engine engine;
    private Session session;
    private Link sender;
    private Link replies;
    private boolean socketClosed;
    private ErrorCondition closedWith;
    private final RequestMessageEncoder encoder = new RequestMessageEncoder(512);
    private long nextMessageId = 1;
    private Delivery pending;
    /** The exchange in progress: where its response goes, and whether all of it has arrived. */
    private ResponseListener responseListener;
    private StreamedResponse streamed;
    private boolean responseDone;
    private IOException listenerFailure;
    /** The first bytes the server sent (a protocol header if it speaks AMQP), to tell what answered otherwise. */
    private final byte[] firstBytes = new byte[8];
    private int firstBytesRead;
    private final String peer;

    private AmqpRequestClient(Socket socket, EngineConfig config, String peer) throws IOException {
        this.socket = socket;
        this.peer = peer;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(20); // a read waits at most this long, so pumping also writes and checks deadlines
        in = socket.getInputStream();
        out = socket.getOutputStream();
        // Our max-frame-size bounds what one frame can need; twice that leaves room to read while a frame is partial.
        readBuffer = new byte[2 * config.maxFrameSizeBytes() + 16 * 1024];
        engine = new Engine(config.role(EngineConfig.Role.INITIATOR), new Events());
        engine.start(now());
    }

    /**
     * Connects and attaches a reply receiver and a request sender to {@code targetAddress}.
     *
     * @param host the server's host name or address
     * @param port the server's AMQP port
     * @param targetAddress the address requests are sent to (the request sender's target; {@link AmqpAddress#node()}
     *                      reads it from a URL), or null for the anonymous relay, where each message's {@code to}
     *                      alone routes it
     * @param config SASL mechanism, hostname, limits and tracing; its role is set to initiator
     * @param deadlineMillis the {@link System#nanoTime()} based instant (in milliseconds) everything must be done by
     * @return a client with both links attached, ready for {@link #exchange}
     * @throws AmqpClientException when the connection, SASL or the attaches fail, or the deadline passes
     * @throws IOException when the socket fails
     */
    public static AmqpRequestClient connect(String host, int port, String targetAddress, EngineConfig config,
                                            long deadlineMillis) throws IOException {
        return connect(host, port, targetAddress, config, deadlineMillis, null);
    }

    /**
     * Connects as {@link #connect(String, int, String, EngineConfig, long)}, over TLS (AMQPS) when {@code tls} is
     * not null: the TLS handshake comes first, then the AMQP protocol headers (AMQP 1.0 §5.2.1, "pure TLS").
     *
     * @param host the server's host name or address (also the name its certificate is checked against)
     * @param port the server's AMQP (or AMQPS) port
     * @param targetAddress the address requests are sent to (the request sender's target), or null for the
     *                      anonymous relay
     * @param config SASL mechanism, hostname, limits and tracing; its role is set to initiator
     * @param deadlineMillis the {@link #now()} instant everything must be done by
     * @param tls the TLS settings, or null for clear-text AMQP
     * @return a client with both links attached, ready for {@link #exchange}
     * @throws AmqpClientException when the connection, TLS, SASL or the attaches fail, or the deadline passes
     * @throws IOException when the socket fails
     */
    public static AmqpRequestClient connect(String host, int port, String targetAddress, EngineConfig config,
                                            long deadlineMillis, ClientTls tls) throws IOException {
        Socket socket = open(host, port, deadlineMillis);
        if (tls != null) {
            try {
                socket = tls.wrap(socket, host, port, deadlineMillis - now());
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
        }
        AmqpRequestClient c;
        try {
            c = new AmqpRequestClient(socket, config, host + ":" + port);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
        try {
            c.pumpUntil(c.engine::isOpen, "the connection to open", deadlineMillis);
            c.session = c.engine.beginSession();
            // Pre-settled responses (at-most-once): one frame less per request each way (Session#attachDynamicReceiver).
            c.replies = c.session.attachDynamicReceiver(REPLY_LINK, true);
            // Streaming: a response of many frames reaches us frame by frame (StreamedResponse), never whole.
            c.replies.streaming(true).autoCredit(16);
            c.sender = c.session.attachSender("requests", targetAddress);
            c.pumpUntil(() -> !c.replies.source().address().isNull() && c.sender.canSend(),
                    "the reply node and request credit", deadlineMillis);
            return c;
        } catch (IOException | RuntimeException | Error e) {
            c.closeQuietly();
            throw e;
        }
    }

    /**
     * Connects to the first of the host's addresses that accepts, as curl does ({@code localhost} may resolve to
     * {@code ::1} first while the gateway listens on 127.0.0.1 only).
     */
    private static Socket open(String host, int port, long deadlineMillis) throws IOException {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new AmqpClientException(AmqpClientException.UNKNOWN_HOST, "could not resolve host " + host, e);
        }
        IOException last = null;
        for (InetAddress address : addresses) {
            long left = deadlineMillis - now();
            if (left <= 0) {
                throw new AmqpClientException(AmqpClientException.TIMEOUT, "connect to " + host + ":" + port
                        + " timed out", last);
            }
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(address, port), (int) Math.min(Integer.MAX_VALUE, left));
                return socket;
            } catch (SocketTimeoutException e) {
                socket.close();
                throw new AmqpClientException(AmqpClientException.TIMEOUT, "connect to " + host + ":" + port
                        + " timed out", e);
            } catch (IOException e) {
                socket.close();
                last = e;
            }
        }
        throw new AmqpClientException(AmqpClientException.CONNECT_FAILED, "failed to connect to " + host + ":" + port
                + ": " + (last == null ? "no address" : last.getMessage()), last);
    }

    /**
     * Sends one request and waits for its response, body and all. The request expires at the deadline
     * ({@link RequestMessageEncoder}: {@code ttl}, {@code absolute-expiry-time}), so a server that gets it after the
     * client has given up does not run it.
     *
     * @param method the HTTP method ({@code subject})
     * @param target the request-target, path and query ({@code to})
     * @param headers header names and values, sent as application-properties (names lowercased); a
     *                {@code Content-Encoding} as the {@code content-encoding} property
     * @param contentType the {@code content-type} property, or null
     * @param body the body as one data section, or null for none
     * @param deadlineMillis the {@link #now()} instant the response must have arrived by
     * @return the response
     * @throws AmqpClientException when the server settles the request without a response, closes the connection,
     *                             or the deadline passes
     */
    public AmqpResponse exchange(String method, String target, Map<String, String> headers, String contentType,
                                 byte[] body, long deadlineMillis) throws IOException {
        WholeResponse whole = new WholeResponse();
        exchange(method, target, headers, contentType, body, whole, deadlineMillis);
        return whole.response();
    }

    /**
     * Sends one request and hands its response to {@code listener} as the transfer frames arrive: the head, then
     * the body in pieces, so a large body is never held whole. Returns once the last frame was handed over. As with
     * the other {@code exchange}, the request expires at the deadline.
     *
     * @param method the HTTP method ({@code subject})
     * @param target the request-target, path and query ({@code to})
     * @param headers header names and values, sent as application-properties (names lowercased); a
     *                {@code Content-Encoding} as the {@code content-encoding} property
     * @param contentType the {@code content-type} property, or null
     * @param body the body as one data section, or null for none
     * @param listener receives the response's head, then its body piece by piece
     * @param deadlineMillis the {@link #now()} based instant the whole response must have arrived by
     * @throws AmqpClientException as {@link #exchange(String, String, Map, String, byte[], long)}; what the
     *                             listener throws ends the exchange and is rethrown
     */
    public void exchange(String method, String target, Map<String, String> headers, String contentType,
                         byte[] body, ResponseListener listener, long deadlineMillis) throws IOException {
        // A request still queued (at a broker) or arriving after the deadline is one nobody waits for any more.
        long ttlMillis = Math.max(1, deadlineMillis - now());
        encoder.encode(nextMessageId++, method, target, replies.source().address().toString(), contentType, headers,
                body, 0, body == null ? 0 : body.length, System.currentTimeMillis(), ttlMillis);
        responseListener = listener;
        streamed = null;
        responseDone = false;
        listenerFailure = null;
        try {
            pending = sender.send(encoder.array(), encoder.offset(), encoder.length(), false);
            if (pending == null) {
                throw new AmqpClientException(AmqpClientException.PEER_FAILURE, "the request link refused the message");
            }
            pumpUntil(() -> responseDone || listenerFailure != null || refused(pending), "the response",
                    deadlineMillis);
            if (listenerFailure != null) {
                throw listenerFailure;
            }
            if (!responseDone) {
                DeliveryState s = pending.remoteState();
                String why = s.kind() == DeliveryState.Kind.REJECTED && !s.error().isNull()
                        ? s.error().condition() + ": " + s.error().description() : "";
                throw new AmqpClientException(AmqpClientException.PEER_FAILURE,
                        "the server settled the request as " + s.typeName() + " without a response " + why);
            }
        } finally {
            responseListener = null;
            streamed = null;
        }
    }

    /** A settled request that was not accepted gets no response (docs/design.md §3: rejected, released, modified). */
    private static boolean refused(Delivery d) {
        return d.remotelySettled() && d.remoteState().kind() != DeliveryState.Kind.ACCEPTED;
    }

    private void pumpUntil(BooleanSupplier condition, String what, long deadlineMillis) throws IOException {
        while (!condition.getAsBoolean()) {
            if (closedWith != null || engine.isDone() || socketClosed) {
                throw closedError(what);
            }
            if (now() > deadlineMillis) {
                throw new AmqpClientException(AmqpClientException.TIMEOUT, "timed out waiting for " + what);
            }
            pumpOnce();
        }
    }

    private AmqpClientException closedError(String what) {
        String notAmqp = notAmqp();
        if (notAmqp != null) {
            return new AmqpClientException(AmqpClientException.NOT_AMQP, notAmqp);
        }
        if (closedWith != null && "amqp:unauthorized-access".equals(closedWith.condition().toString())) {
            return new AmqpClientException(AmqpClientException.LOGIN_DENIED, "authentication failed"
                    + loginFailure(String.valueOf(closedWith.description())));
        }
        String why = closedWith == null ? "closed the connection" : "closed the connection with "
                + closedWith.condition() + ": " + closedWith.description();
        return new AmqpClientException(AmqpClientException.PEER_FAILURE, "the server " + why + " while waiting for "
                + what);
    }

    /**
     * What answered, when the server's first bytes are not an AMQP 1.0 protocol header (AMQP 1.0 §2.2: the server
     * answers with a header of its own, or with the one it speaks); null when they are, or nothing came yet.
     */
    private String notAmqp() {
        if (firstBytesRead == 0 || (firstBytesRead < 4 && startsWith("AMQP", firstBytesRead))) {
            return null;
        }
        if (startsWith("AMQP", 4)) {
            if (firstBytesRead < 8 || (firstBytes[5] == 1 && firstBytes[6] == 0 && firstBytes[7] == 0)) {
                return null; // AMQP 1.0 (or not all of the header yet): the engine says what went wrong
            }
            return peer + " speaks AMQP " + firstBytes[5] + "-" + firstBytes[6] + "-" + firstBytes[7]
                    + ", not AMQP 1.0 (is it a broker's AMQP 0-9-1 port?)";
        }
        String kind;
        if (startsWith("HTTP/", Math.min(5, firstBytesRead))) {
            kind = ": it answered in HTTP (is it an HTTP port?)";
        } else if (firstBytes[0] == 0x15 && (firstBytesRead < 2 || firstBytes[1] == 3)) {
            kind = ": it answered with a TLS alert (for AMQP over TLS, use amqps://)";
        } else {
            kind = "";
        }
        return peer + " is not an AMQP server" + kind;
    }

    private boolean startsWith(String ascii, int length) {
        if (firstBytesRead < length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (firstBytes[i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The reason of a failed SASL exchange in a person's words: the outcome codes of AMQP 1.0 §5.3.3.6 (1 auth,
     * 2 sys, 3 sys-perm, 4 sys-temp) as the engine reports them, or the engine's own text.
     */
    private static String loginFailure(String description) {
        if (description.endsWith("code 1")) {
            return " (wrong user or password)";
        }
        if (description.endsWith("code 2") || description.endsWith("code 3")) {
            return " (the server could not check the login)";
        }
        if (description.endsWith("code 4")) {
            return " (the server could not check the login now; try again later)";
        }
        if (description.startsWith("server does not offer ")) {
            // "server does not offer WANTED: [OFFERED, ...]", as the engine's handshake reports it
            int colon = description.indexOf(':');
            String wanted = colon < 0 ? "" : description.substring("server does not offer ".length(), colon);
            String offered = colon < 0 ? "" : description.substring(colon + 1).trim();
            if (wanted.equals("ANONYMOUS")) {
                return ": the " + description + " (give a user with -u NAME:PASSWORD)";
            }
            if (offered.equals("[ANONYMOUS]")) {
                return ": the server takes no user and password, it offers ANONYMOUS only (leave out -u"
                        + (wanted.equals("EXTERNAL") ? " and the client certificate)" : ")");
            }
            return ": the " + description;
        }
        return ": " + description;
    }

    private void pumpOnce() throws IOException {
        ByteBuffer output;
        try {
            while ((output = engine.beginFlush()) != null) {
                out.write(output.array(), output.arrayOffset() + output.position(), output.remaining());
                output.position(output.limit());
                engine.endFlush();
            }
            out.flush();
        } catch (IOException e) {
            if (!socketClosed && !engine.isDone()) {
                throw new AmqpClientException(AmqpClientException.PEER_FAILURE, "write failed: " + e.getMessage(), e);
            }
        }
        if (readStart > 0 && readBuffer.length - readEnd < readBuffer.length / 2) {
            System.arraycopy(readBuffer, readStart, readBuffer, 0, readEnd - readStart);
            readEnd -= readStart;
            readStart = 0;
        }
        int n;
        try {
            n = in.read(readBuffer, readEnd, readBuffer.length - readEnd);
        } catch (SocketTimeoutException quiet) {
            n = 0;
        } catch (IOException reset) {
            n = -1; // connection reset by the server
        }
        if (n < 0) {
            socketClosed = true;
            return;
        }
        if (n > 0 && firstBytesRead < firstBytes.length) {
            int copied = Math.min(n, firstBytes.length - firstBytesRead);
            System.arraycopy(readBuffer, readEnd, firstBytes, firstBytesRead, copied);
            firstBytesRead += copied;
        }
        if (n > 0) {
            // process() takes whole frames and leaves a partial one to us (Engine.ingest would copy it).
            readEnd += n;
            readStart += engine.process(readBuffer, readStart, readEnd - readStart, now());
            if (readStart == readEnd) {
                readStart = 0;
                readEnd = 0;
            }
        }
        engine.tick(now());
    }

    private void onMessage(Link link, Delivery delivery, MessageView message) {
        if (link != replies) {
            return;
        }
        if (responseListener != null && listenerFailure == null) {
            try {
                AmqpResponse whole = response(message, true);
                if (responseListener instanceof WholeResponse) {
                    ((WholeResponse) responseListener).whole(whole); // one copy of the body, not three
                } else {
                    responseListener.onHead(whole.withoutBody());
                    responseListener.onBody(whole.body(), 0, whole.body().length);
                }
                responseDone = true;
            } catch (IOException e) {
                listenerFailure = e;
            }
        }
        if (!delivery.remotelySettled()) {
            engine.accept(delivery);
        }
    }

    private void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length, boolean last) {
        if (link != replies) {
            return;
        }
        if (responseListener != null && listenerFailure == null) {
            if (streamed == null) {
                streamed = new StreamedResponse(responseListener);
            }
            try {
                streamed.chunk(payload, offset, length, last);
                responseDone = last;
            } catch (IOException e) {
                listenerFailure = e;
            }
        }
        if (last) {
            streamed = null;
            if (!delivery.remotelySettled()) {
                engine.accept(delivery);
            }
        }
    }

    private void onMessageAborted(Link link, Delivery delivery) {
        if (link == replies && responseListener != null && listenerFailure == null) {
            listenerFailure = new AmqpClientException(AmqpClientException.PEER_FAILURE,
                    "the server aborted the response message");
        }
    }

    /** The response a message carries (docs/design.md §3); with {@code withBody} its data sections too. */
    static AmqpResponse response(MessageView message, boolean withBody) {
        Map<String, String> headers = new LinkedHashMap<>();
        MapCursor entries = new MapCursor();
        if (message.openApplicationProperties(entries)) {
            while (entries.next()) {
                headers.put(entries.keyString(), valueText(entries));
            }
        }
        byte[] body;
        if (withBody) {
            body = new byte[(int) message.body().dataLength()];
            message.body().copyData(body, 0);
        } else {
            body = new byte[0];
        }
        int status;
        try {
            status = Integer.parseInt(String.valueOf(message.subjectAsString()));
        } catch (NumberFormatException e) {
            status = -1;
        }
        return new AmqpResponse(status, message.contentTypeAsString(), message.contentEncodingAsString(),
                headers, body);
    }

    /** Strings as they are; other scalars (numbers, booleans) by their text form, as the server maps them. */
    private static String valueText(MapCursor entries) {
        try {
            return entries.value().getString();
        } catch (DecodeException notText) {
            return entries.value().toString();
        }
    }

    private void onClosed(ErrorCondition error) {
        closedWith = error == null ? new ErrorCondition() : new ErrorCondition().set(error);
    }

    /**
     * The engine's callbacks, kept off this class's API: they run on the caller's thread while it pumps the
     * connection, and reach the client's state through the methods above.
     */
    private final class Events implements EngineHandler {
        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            AmqpRequestClient.this.onMessage(link, delivery, message);
        }

        @Override
        public void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length,
                                   boolean last) {
            AmqpRequestClient.this.onMessageChunk(link, delivery, payload, offset, length, last);
        }

        @Override
        public void onMessageAborted(Link link, Delivery delivery) {
            AmqpRequestClient.this.onMessageAborted(link, delivery);
        }

        @Override
        public void onClosed(Engine e, ErrorCondition error) {
            AmqpRequestClient.this.onClosed(error);
        }
    }

    /** Closes the AMQP connection (waiting briefly for the server's close) and the socket. */
    @Override
    public void close() throws IOException {
        try {
            if (engine.isOpen()) {
                engine.close();
                long deadline = now() + 2_000;
                while (!engine.isDone() && !socketClosed && now() < deadline) {
                    pumpOnce();
                }
            }
        } finally {
            socket.close();
        }
    }

    private void closeQuietly() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the failure being reported matters more than a failed close
        }
    }

    /** {@return the clock the deadlines use: {@link System#nanoTime()} in milliseconds} */
    public static long now() {
        return System.nanoTime() / 1_000_000L;
    }
}
