package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MapCursor;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A blocking AMQP client for tests: our initiator {@link Engine} pumped over a real TCP socket on the test thread.
 * It opens a connection (SASL ANONYMOUS), a session, a dynamic receiver for replies and a sender for requests,
 * then records every response message and every outcome the server reports for the requests it sent. Every wait is
 * bounded: {@link #pumpUntil} fails the test with the client's state when its deadline passes.
 */
final class AmqpSocketClient implements AutoCloseable, EngineHandler {
    /** A response message as received. */
    static final class Response {
        String subject;
        String to;
        final MessageId correlationId = new MessageId();
        String contentType;
        String contentEncoding;
        final Map<String, String> properties = new LinkedHashMap<>();
        byte[] body;
        int dataSections;

        String bodyText() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "Response[" + subject + ", correlation-id=" + correlationId + ", " + properties + ", "
                    + body.length + " bytes]";
        }
    }

    /** What the server said about one request delivery. */
    static final class Outcome {
        DeliveryState.Kind kind = DeliveryState.Kind.NONE;
        String typeName = "none";
        String condition;
        String description;
        boolean deliveryFailed;
        boolean settled;

        @Override
        public String toString() {
            return typeName + (condition == null ? "" : " " + condition + ": " + description)
                    + (deliveryFailed ? " delivery-failed" : "") + (settled ? " settled" : "");
        }
    }

    private static final long DEADLINE_MILLIS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] readBuffer = new byte[64 * 1024];
    private final Engine engine;
    private Session session;
    private Link sender;
    private Link replies;
    private boolean socketClosed;
    /** Whether responses are accepted as they come; false for a client that keeps them unsettled. */
    boolean settlesResponses = true;
    /** Responses received and not settled, while {@link #settlesResponses} is false. */
    private final java.util.List<Delivery> unsettledResponses = new java.util.ArrayList<>();
    final List<Response> responses = new ArrayList<>();
    /** Bytes this client wrote to and read from its socket. */
    long bytesWritten;
    long bytesRead;
    ErrorCondition closedWith;

    private AmqpSocketClient(int port, EngineConfig config) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(20); // a read waits at most this long, so pumping can also write and check deadlines
        in = socket.getInputStream();
        out = socket.getOutputStream();
        engine = new Engine(config.role(EngineConfig.Role.INITIATOR), this);
        engine.start(now());
    }

    /** Connects to {@code 127.0.0.1:port} and attaches a reply receiver and a request sender to {@code target}. */
    static AmqpSocketClient connect(int port, String target) throws IOException {
        return connect(port, target, defaultConfig());
    }

    /** The client configuration {@link #connect(int, String)} uses: SASL ANONYMOUS, hostname {@code amqp.test}. */
    static EngineConfig defaultConfig() {
        return new EngineConfig().containerId("test-client").hostname("amqp.test").saslAnonymous();
    }

    /** As {@link #connect(int, String)}, with a client configuration of the caller's (SASL, limits). */
    static AmqpSocketClient connect(int port, String target, EngineConfig config) throws IOException {
        return connect(port, target, config, 100);
    }

    /**
     * As {@link #connect(int, String, EngineConfig)}, keeping {@code replyCredit} open on the reply receiver; 0
     * grants none until {@link #grantReplyCredit} (a client that does not read its replies).
     */
    static AmqpSocketClient connect(int port, String target, EngineConfig config, int replyCredit)
            throws IOException {
        AmqpSocketClient c = new AmqpSocketClient(port, config);
        try {
            c.pumpUntil(c.engine::isOpen, "the connection to open");
            c.session = c.engine.beginSession();
            c.replies = c.session.attachDynamicReceiver("replies");
            if (replyCredit > 0) {
                c.replies.autoCredit(replyCredit);
            }
            c.sender = c.session.attachSender("requests", target);
            c.pumpUntil(() -> !c.replies.source().address().isNull() && c.sender.canSend(),
                    "the reply node and request credit");
            return c;
        } catch (IOException | RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    /** Grants {@code credit} on the reply receiver once (no automatic top-up). */
    void grantReplyCredit(int credit) {
        replies.flow(credit);
    }

    /** The client's own port, as the server sees it in the peer's address. */
    int localPort() {
        return socket.getLocalPort();
    }

    /** The address of the dynamic reply node the server generated. */
    String replyAddress() {
        return replies.source().address().toString();
    }

    /** Accepts the responses kept unsettled so far, and the ones to come. */
    void settleResponses() {
        settlesResponses = true;
        for (Delivery d : unsettledResponses) {
            engine.accept(d);
        }
        unsettledResponses.clear();
    }

    /** Sends an encoded request message unsettled; its outcome is recorded in the returned object. */
    Outcome send(AmqpWriter message) {
        return send(message, false);
    }

    /** Sends a request message, pre-settled (at-most-once) when {@code settled}. */
    Outcome send(AmqpWriter message, boolean settled) {
        Delivery d = sender.send(message.array(), message.start(), message.length(), settled);
        if (d == null) {
            throw new AssertionError("the request link refused the message (no room)");
        }
        Outcome outcome = new Outcome();
        d.attachment(outcome);
        return outcome;
    }

    /**
     * Sends the first {@code firstBytes} of a request message as the first transfer of an unsettled delivery, the
     * rest to follow with {@link #finish}: a message the server receives in several frames, with a pause between.
     */
    Delivery begin(AmqpWriter message, int firstBytes) {
        Delivery d = sender.beginMessage(message.array(), message.start(), firstBytes, false);
        if (d == null) {
            throw new AssertionError("the request link refused the message (no credit)");
        }
        d.attachment(new Outcome());
        return d;
    }

    /** Sends the rest of a message {@link #begin} started, from byte {@code from}; its outcome is recorded. */
    Outcome finish(Delivery d, AmqpWriter message, int from) {
        if (!sender.appendMessage(d, message.array(), message.start() + from, message.length() - from)) {
            throw new AssertionError("the request link ended before the message did");
        }
        sender.endMessage(d);
        return (Outcome) d.attachment();
    }

    /** Pumps for {@code millis}, whatever arrives. */
    void pumpFor(long millis) throws IOException {
        long end = now() + millis;
        while (now() < end && !socketClosed) {
            pumpOnce();
        }
    }

    /** Pumps until {@code condition} holds, failing after a deadline so a broken server never hangs the build. */
    void pumpUntil(BooleanSupplier condition, String what) throws IOException {
        long deadline = now() + DEADLINE_MILLIS;
        while (!condition.getAsBoolean()) {
            if (now() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; responses=" + responses
                        + ", engine=" + engine + ", closedWith=" + closedWith);
            }
            if (socketClosed) {
                throw new AssertionError("the server closed the socket while waiting for " + what
                        + "; closedWith=" + closedWith);
            }
            pumpOnce();
        }
    }

    /** The connection's engine, for assertions (identity, state). */
    Engine engine() {
        return engine;
    }

    /** Pumps until the server ends the connection (its close arrives or it closes the socket). */
    void awaitClosedByServer() throws IOException {
        long deadline = now() + DEADLINE_MILLIS;
        while (!engine.isDone() && !socketClosed) {
            if (now() > deadline) {
                throw new AssertionError("the server did not close the connection; engine=" + engine);
            }
            pumpOnce();
        }
    }

    /** Waits until {@code n} responses have arrived. */
    void awaitResponses(int n) throws IOException {
        pumpUntil(() -> responses.size() >= n, n + " responses");
    }

    private void pumpOnce() throws IOException {
        ByteBuffer output;
        try {
            while ((output = engine.beginFlush()) != null) {
                out.write(output.array(), output.arrayOffset() + output.position(), output.remaining());
                bytesWritten += output.remaining();
                output.position(output.limit());
                engine.endFlush();
            }
            out.flush();
        } catch (IOException e) {
            if (!socketClosed && !engine.isDone()) {
                throw e;
            }
            // The server closed first; what we still had to say (our close) no longer matters.
        }
        int n;
        try {
            n = in.read(readBuffer);
        } catch (SocketTimeoutException quiet) {
            n = 0;
        } catch (IOException reset) {
            n = -1; // connection reset by the server
        }
        if (n < 0) {
            socketClosed = true;
            return;
        }
        if (n > 0) {
            bytesRead += n;
            engine.ingest(readBuffer, 0, n, now());
        }
        engine.tick(now());
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        Response r = new Response();
        r.subject = message.subjectAsString();
        r.to = message.toAsString();
        message.correlationId(r.correlationId);
        r.contentType = message.contentTypeAsString();
        r.contentEncoding = message.contentEncodingAsString();
        MapCursor entries = new MapCursor();
        if (message.openApplicationProperties(entries)) {
            while (entries.next()) {
                r.properties.put(entries.keyString(), entries.value().getString());
            }
        }
        r.body = new byte[(int) message.body().dataLength()];
        message.body().copyData(r.body, 0);
        r.dataSections = message.body().dataSectionCount();
        responses.add(r);
        if (!delivery.remotelySettled()) {
            if (settlesResponses) {
                engine.accept(delivery);
            } else {
                unsettledResponses.add(delivery);
            }
        }
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        if (delivery.attachment() instanceof Outcome) {
            Outcome o = (Outcome) delivery.attachment();
            DeliveryState state = delivery.remoteState();
            o.kind = state.kind();
            o.typeName = state.typeName();
            if (state.kind() == DeliveryState.Kind.REJECTED && !state.error().isNull()) {
                o.condition = state.error().condition().toString();
                o.description = state.error().description().toString();
            }
            if (state.kind() == DeliveryState.Kind.MODIFIED) {
                o.deliveryFailed = state.deliveryFailed();
            }
            o.settled = delivery.remotelySettled();
        }
    }

    @Override
    public void onClosed(Engine e, ErrorCondition error) {
        closedWith = error == null ? null : new ErrorCondition().set(error);
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

    private static long now() {
        return System.nanoTime() / 1_000_000L;
    }
}
