package io.amqpservlet.bench.load;

import io.amqpservlet.client.RequestMessageEncoder;
import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.UUID;

/**
 * One AMQP connection of the load generator: our initiator {@link Engine} over a non-blocking socket, a dynamic
 * reply receiver (or a named one, {@link LoadOptions#replyNodePrefix(String)}), a sender to the endpoint's address, and a fixed window of request slots. A slot holds the time its
 * request's latency counts from (the scheduled send time in open loop) and the message-id it is waiting for; a
 * response is matched by its {@code correlation-id}. Nothing here allocates per request.
 */
final class AmqpLoadConnection extends LoadConnection implements EngineHandler {
    /** Low bits of a message-id: the slot. Above them a sequence number, so a late answer is never taken for new. */
    private static final int SLOT_BITS = 20;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    private static final long SEQUENCE_MASK = (1L << 36) - 1;

    private final Engine engine;
    private Link sender;
    private Link replies;
    /** This connection's request, encoded once; each send patches its message-id only. */
    private RequestMessageEncoder template;

    private final int window;
    private final long[] startNanos;
    /** The message-id a slot waits for; 0 when the slot is free. */
    private final long[] expectedId;
    private final Delivery[] deliveries;
    private final int[] deliveryGeneration;
    private final Integer[] slotKeys;
    private final int[] free;
    private int freeCount;
    private long sequence;

    private boolean writeInterest;

    private final MessageId correlation = new MessageId();
    private final MutableBytes subject = new MutableBytes();

    AmqpLoadConnection(EventLoop loop, LoadOptions options, LoadOptions.Endpoint endpoint) throws IOException {
        super(loop, options, endpoint);
        this.window = options.window;
        startNanos = new long[window];
        expectedId = new long[window];
        deliveries = new Delivery[window];
        deliveryGeneration = new int[window];
        slotKeys = new Integer[window];
        free = new int[window];
        for (int i = 0; i < window; i++) {
            slotKeys[i] = Integer.valueOf(i); // one box per slot, made once: a delivery's attachment
            free[i] = window - 1 - i;
        }
        freeCount = window;
        EngineConfig config = new EngineConfig().role(EngineConfig.Role.INITIATOR)
                .containerId("load-" + loop.index + "-" + System.identityHashCode(this))
                .hostname(endpoint.host())
                .maxBufferedMessagesPerLink(Math.max(1024, window));
        if (options.user != null) {
            config.saslPlain(options.user, options.password);
        } else {
            config.saslAnonymous();
        }
        engine = new Engine(config, this);
    }

    /** The socket connected: start the protocol (headers, SASL, open). */
    @Override
    void onConnected(long nowMillis) {
        engine.start(nowMillis);
        markDirty();
    }

    /** Feeds bytes read from the socket to the engine; the engine keeps a partial frame itself. */
    @Override
    void onInput(ByteBuffer buffer, int length, long nowMillis) {
        engine.ingest(buffer.array(), buffer.arrayOffset(), length, nowMillis);
        if (!ready) {
            advanceSetup();
        }
        markDirty();
    }

    /** Open, then a session and the two links; ready once the reply address and request credit have come. */
    private void advanceSetup() {
        if (engine.isDone()) {
            return;
        }
        if (sender == null && engine.isOpen()) {
            var session = engine.beginSession();
            if (options.replyNodePrefix == null) {
                replies = session.attachDynamicReceiver("replies", true); // pre-settled responses, as our client
            } else {
                // A peer without dynamic nodes (RabbitMQ 3.10): a named node of this connection's own, declared by
                // this attach; its responses come unsettled and are accepted one by one.
                String node = options.replyNodePrefix + UUID.randomUUID();
                replies = session.attachReceiver(node, node);
            }
            replies.autoCredit(Math.max(16, 2 * window));
            sender = session.attachSender("requests", endpoint.node());
        }
        if (sender != null && replies.isOpen() && !replies.source().address().isNull() && sender.canSend()) {
            byte[] body = options.body();
            template = new RequestMessageEncoder(256 + body.length).encode(RequestMessageEncoder.ID_MARK,
                    options.method, endpoint.path(), replies.source().address().toString(), options.contentType,
                    options.headers, body, 0, body.length);
            ready = true;
            loop.onReady(this);
        }
    }

    /** Whether a slot is free for another request. */
    @Override
    boolean canSend() {
        return ready && !closed && freeCount > 0;
    }

    /**
     * Sends one request whose latency counts from {@code fromNanos}; false when the window is full or the link
     * refused it.
     */
    @Override
    boolean send(long fromNanos) {
        if (freeCount == 0 || closed) {
            return false;
        }
        int slot = free[--freeCount];
        long id = RequestMessageEncoder.ID_MARK | ((++sequence & SEQUENCE_MASK) << SLOT_BITS) | slot;
        expectedId[slot] = id;
        startNanos[slot] = fromNanos;
        Delivery d = sender.send(template.messageId(id).array(), template.offset(), template.length(), false);
        if (d == null) {
            release(slot);
            loop.error("request refused by the link (not open or queue full)");
            return false;
        }
        d.attachment(slotKeys[slot]);
        deliveries[slot] = d;
        deliveryGeneration[slot] = d.generation();
        markDirty();
        return true;
    }

    private void release(int slot) {
        expectedId[slot] = 0;
        deliveries[slot] = null;
        free[freeCount++] = slot;
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        if (!delivery.remotelySettled()) {
            engine.accept(delivery);
        }
        if (link != replies) {
            return;
        }
        long now = System.nanoTime();
        if (!message.correlationId(correlation) || correlation.kind() != MessageId.Kind.ULONG) {
            loop.error("response without our correlation-id");
            return;
        }
        long id = correlation.ulongValue();
        int slot = (int) (id & SLOT_MASK);
        if (slot >= window || expectedId[slot] != id) {
            loop.error("late response (its request had timed out)");
            return;
        }
        loop.record(now - startNanos[slot], now);
        if (!message.subject(subject) || subject.length() != 3 || subject.array()[0] != '2') {
            loop.error("status " + (subject.isNull() ? "missing" : subject.toString()), now);
        }
        release(slot);
        loop.onSlotFreed(this, now);
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        if (link != sender || !delivery.remotelySettled() || !(delivery.attachment() instanceof Integer)) {
            return;
        }
        int slot = (Integer) delivery.attachment();
        if (deliveries[slot] != delivery || deliveryGeneration[slot] != delivery.generation()) {
            return;
        }
        deliveries[slot] = null;
        if (delivery.remoteState().kind() != DeliveryState.Kind.ACCEPTED) {
            // docs/design.md §3: a request settled other than accepted gets no response.
            loop.error("request " + delivery.remoteState().typeName() + " without a response");
            release(slot);
            loop.onSlotFreed(this, System.nanoTime());
        }
    }

    @Override
    public void onClosed(Engine e, ErrorCondition error) {
        if (!closed && !loop.stopping()) {
            loop.error("connection closed by the server"
                    + (error == null || error.isNull() ? "" : ": " + error.condition()));
        }
        failOutstanding("request lost: connection closed");
        closed = true;
    }

    /** The socket ended or failed: everything in flight is lost. */
    @Override
    void onTransportClosed(String why) {
        if (!closed && !loop.stopping()) {
            loop.error(why);
        }
        failOutstanding("request lost: connection closed");
        closed = true;
        ready = false;
        try {
            channel.close();
        } catch (IOException ignored) {
            // already failed; the error is recorded
        }
    }

    private void failOutstanding(String kind) {
        if (loop.stopping()) {
            return;
        }
        for (int slot = 0; slot < window; slot++) {
            if (expectedId[slot] != 0) {
                loop.error(kind);
                release(slot);
            }
        }
    }

    /** Counts and frees requests waiting longer than the timeout; lets the engine send heartbeats. */
    @Override
    void tick(long nowNanos, long timeoutNanos) {
        for (int slot = 0; slot < window; slot++) {
            if (expectedId[slot] != 0 && nowNanos - startNanos[slot] > timeoutNanos) {
                loop.error("timeout");
                release(slot);
                loop.onSlotFreed(this, nowNanos);
            }
        }
        if (!closed) {
            engine.tick(nowNanos / 1_000_000L);
            markDirty();
        }
    }

    /** Writes what the engine produced; on a partial write, waits for the socket to be writable. */
    @Override
    void flush() throws IOException {
        dirty = false;
        if (closed && engine.isDone() && !engine.hasOutput()) {
            return;
        }
        ByteBuffer out;
        while ((out = engine.beginFlush()) != null) {
            channel.write(out);
            if (out.hasRemaining()) {
                if (!writeInterest) {
                    writeInterest = true;
                    key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
                return;
            }
            engine.endFlush();
        }
        if (writeInterest) {
            writeInterest = false;
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    /** Starts a clean close (the engine sends close); the caller flushes. */
    @Override
    void close() {
        if (!engine.isDone()) {
            engine.close();
        }
        markDirty();
    }

    /** Requests in flight now. */
    @Override
    int inFlight() {
        return window - freeCount;
    }
}
