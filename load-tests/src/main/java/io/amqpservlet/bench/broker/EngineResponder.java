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
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/**
 * The service behind the broker: one connection (our initiator engine over a socket, one thread) that consumes the
 * request queue with a window of credit and answers each request through an anonymous-relay sender to its
 * {@code reply-to}, with {@code correlation-id} = the request's {@code message-id}, subject {@code 200} and the
 * request body echoed, the same answer the gateway's {@code /echo} gives. Our engine rather than protonj2-client:
 * it pipelines (credit for many requests, many answers per write) without a thread per message, so the broker, not
 * the responder, is what the run measures; and it allocates nothing per message.
 */
public final class EngineResponder implements Runnable, EngineHandler {
    private final String host;
    private final int port;
    private final String queue;
    private final int credit;
    private final Engine engine;
    private final MutableBytes replyTo = new MutableBytes();
    private final MessageId messageId = new MessageId();
    private final AmqpWriter response = new AmqpWriter(512);
    private final MessageWriter messages = new MessageWriter();
    private byte[] body = new byte[256];
    private Link requests;
    private Link replies;
    private volatile boolean ready;
    private volatile boolean stopped;
    private volatile String failure;

    EngineResponder(String host, int port, String queue, int credit) {
        this.host = host;
        this.port = port;
        this.queue = queue;
        this.credit = credit;
        engine = new Engine(new EngineConfig().role(EngineConfig.Role.INITIATOR).containerId("responder")
                .hostname(host).saslAnonymous(), this);
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
                    replies = s.attachSender("replies", null); // anonymous relay: each answer names its address
                    requests = s.attachReceiver("requests", queue);
                    requests.autoCredit(credit);
                }
                if (!ready && requests != null && requests.isOpen() && replies.isOpen()) {
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
        messages.wrap(response).startProperties().to(replyTo).subject("200").correlationId(messageId)
                .endProperties().data(body, 0, length).end();
        if (replies.send(response.array(), response.start(), response.length(), false) == null) {
            engine.release(delivery); // the reply queue is full: let the broker redeliver
            return;
        }
        engine.accept(delivery);
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

    private static long now() {
        return System.nanoTime() / 1_000_000L;
    }
}
