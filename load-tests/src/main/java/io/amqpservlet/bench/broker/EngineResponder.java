package io.amqpservlet.bench.broker;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Open;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The service behind the broker: one connection (our initiator engine over a socket, one thread) that consumes the
 * request queue with a window of credit and answers each request to its {@code reply-to}, through the anonymous
 * relay when the broker offers it (Artemis), else on a sender per reply address, a few kept at a time
 * ({@link ReplySenders}; RabbitMQ 3.10). Each answer is the message the gateway's {@code /echo} answers a request
 * without {@code x-} headers with, field for field, so that the broker carries the same bytes whichever consumer it
 * serves: {@code correlation-id} = the request's {@code message-id}, subject {@code 200}, the request's
 * content-type, application-properties {@code http:response}, {@code date}, {@code x-echo-method} (the request's
 * subject), {@code x-echo-path} (its {@code to}) and {@code content-length}, and the request body. Our engine rather
 * than protonj2-client: it pipelines (credit for many requests, many answers per write) without a thread per
 * message, so the broker, not the responder, is what the run measures; and it allocates nothing per message. Run as
 * a process of its own ({@link #main}) so that the broker's CPU time and the responder's are measured apart.
 */
public final class EngineResponder implements Runnable, EngineHandler {
    /** Reply senders kept at once without the relay: the generator's connections each have one reply address. */
    private static final int REPLY_SENDERS = 64;
    /** The form of Jetty's {@code Date} header (IMF-fixdate). */
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'",
            Locale.US);

    private final String host;
    private final int port;
    private final String queue;
    private final int credit;
    private final Engine engine;
    private final MutableBytes replyTo = new MutableBytes();
    private final MutableBytes method = new MutableBytes();
    private final MutableBytes path = new MutableBytes();
    private final MutableBytes contentTypeBytes = new MutableBytes();
    /** The last content-type, content-length and date written, as Strings: made again only when they change. */
    private String contentType;
    private int contentLength = -1;
    private String contentLengthText;
    private long dateSecond = -1;
    private String dateText;
    private final MessageId messageId = new MessageId();
    private final AmqpWriter response = new AmqpWriter(512);
    private final MessageWriter messages = new MessageWriter();
    private byte[] body = new byte[256];
    private Link requests;
    /** The anonymous-relay sender, when the broker offers the relay; else null and {@link #senders} is used. */
    private Link replies;
    private boolean relayOffered;
    private ReplySenders senders;
    private volatile boolean ready;
    private volatile boolean stopped;
    private volatile String failure;

    EngineResponder(String host, int port, String queue, int credit) {
        this(host, port, queue, credit, null, null);
    }

    /**
     * A responder that logs in with SASL PLAIN as {@code user} (ANONYMOUS when null) and consumes {@code queue} (the
     * broker's address of the request queue) with {@code credit} messages of credit.
     */
    public EngineResponder(String host, int port, String queue, int credit, String user, String password) {
        this.host = host;
        this.port = port;
        this.queue = queue;
        this.credit = credit;
        EngineConfig config = new EngineConfig().role(EngineConfig.Role.INITIATOR).containerId("responder")
                .hostname(host);
        if (user == null) {
            config.saslAnonymous();
        } else {
            config.saslPlain(user, password);
        }
        engine = new Engine(config, this);
    }

    /**
     * Runs a responder as a process of its own until it is ended: {@code --port P --queue ADDRESS [--host H]
     * [--credit N] [--user NAME:PASS]}. Prints {@code responder ready} once both its links are attached.
     */
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = -1;
        String queue = ArtemisBroker.QUEUE;
        int credit = 256;
        String user = null;
        String password = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--queue" -> queue = args[++i];
                case "--credit" -> credit = Integer.parseInt(args[++i]);
                case "--user" -> {
                    String[] u = args[++i].split(":", 2);
                    user = u[0];
                    password = u.length > 1 ? u[1] : "";
                }
                default -> throw new IllegalArgumentException("responder: unknown argument " + args[i]);
            }
        }
        if (port <= 0) {
            throw new IllegalArgumentException("responder: --port is required");
        }
        EngineResponder responder = new EngineResponder(host, port, queue, credit, user, password);
        Thread t = new Thread(responder, "responder");
        t.start();
        Runtime.getRuntime().addShutdownHook(new Thread(responder::stop, "responder-shutdown"));
        responder.awaitReady(30_000);
        System.out.println("responder ready queue=" + queue + " replies="
                + (responder.relayOffered ? "anonymous-relay" : "sender-per-address"));
        System.out.flush();
        t.join();
        if (responder.failure != null && !responder.stopped) {
            System.exit(1);
        }
    }

    void awaitReady(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!ready && failure == null && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        if (!ready) {
            throw new IllegalStateException("the responder did not attach: " + failure);
        }
    }

    /** Ends the responder's loop (its connection is dropped with the broker). */
    public void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        byte[] in = new byte[256 * 1024];
        try (Socket socket = new Socket(host, port)) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(100);
            InputStream input = socket.getInputStream();
            OutputStream output = socket.getOutputStream();
            engine.start(now());
            while (!stopped && !engine.isDone()) {
                ByteBuffer out;
                while ((out = engine.beginFlush()) != null) {
                    output.write(out.array(), out.arrayOffset() + out.position(), out.remaining());
                    out.position(out.limit());
                    engine.endFlush();
                }
                int n;
                try {
                    n = input.read(in);
                } catch (SocketTimeoutException quiet) {
                    n = 0;
                }
                if (n < 0) {
                    break;
                }
                if (n > 0) {
                    engine.ingest(in, 0, n, now());
                }
                if (requests == null && engine.isOpen()) {
                    Session s = engine.beginSession();
                    if (relayOffered) {
                        replies = s.attachSender("replies", null); // anonymous relay: each answer names its address
                    } else {
                        senders = new ReplySenders(s, REPLY_SENDERS);
                    }
                    requests = s.attachReceiver("requests", queue);
                    requests.autoCredit(credit);
                }
                if (!ready && requests != null && requests.isOpen() && (replies == null || replies.isOpen())) {
                    ready = true;
                }
                engine.tick(now());
            }
        } catch (IOException | RuntimeException e) {
            failure = e.toString();
            if (!stopped) {
                System.err.println("responder failed: " + e);
            }
        }
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView request) {
        if (link != requests) {
            if (!delivery.remotelySettled()) {
                engine.accept(delivery);
            }
            return;
        }
        if (!request.replyTo(replyTo)) {
            engine.accept(delivery); // one-way: nothing to answer
            return;
        }
        request.messageId(messageId);
        int length = (int) request.body().dataLength();
        if (body.length < length) {
            body = new byte[length];
        }
        request.body().copyData(body, 0);
        response.clear();
        messages.wrap(response).startProperties().to(replyTo).subject("200").correlationId(messageId);
        if (request.contentType(contentTypeBytes)) {
            if (contentType == null || !contentTypeBytes.contentEquals(contentType)) {
                contentType = contentTypeBytes.toString();
            }
            messages.contentType(contentType);
        }
        messages.endProperties().startApplicationProperties().put("http:response", "1.1").put("date", date());
        if (request.subject(method)) {
            messages.put("x-echo-method", method);
        }
        if (request.to(path)) {
            messages.put("x-echo-path", path);
        }
        if (length != contentLength) {
            contentLength = length;
            contentLengthText = Integer.toString(length);
        }
        messages.put("content-length", contentLengthText).endApplicationProperties().data(body, 0, length).end();
        Link to = replies != null ? replies : senders.to(replyTo);
        if (to.send(response.array(), response.start(), response.length(), false) == null) {
            engine.release(delivery); // the reply queue is full: let the broker redeliver
            return;
        }
        engine.accept(delivery);
    }

    @Override
    public ErrorCondition onOpen(Engine e, Open remoteOpen) {
        relayOffered = remoteOpen.offeredCapabilities().contains(Capabilities.ANONYMOUS_RELAY);
        return null;
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        // The broker accepts each answer; nothing to do.
    }

    @Override
    public void onClosed(Engine e, ErrorCondition error) {
        if (!stopped) {
            failure = "connection closed" + (error == null || error.isNull() ? "" : ": " + error.condition() + " "
                    + error.description());
            System.err.println("responder: " + failure);
        }
    }

    /** The HTTP date of this second, as Jetty's {@code Date} header gives it. */
    private String date() {
        long second = System.currentTimeMillis() / 1000;
        if (second != dateSecond) {
            dateSecond = second;
            dateText = HTTP_DATE.format(ZonedDateTime.ofInstant(Instant.ofEpochSecond(second), ZoneOffset.UTC));
        }
        return dateText;
    }

    private static long now() {
        return System.nanoTime() / 1_000_000L;
    }
}
