package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Engine;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.message.Message;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Our engine joined in memory to a proton-j 0.35.0 transport: proton-j's head (output) is ingested by our engine,
 * our flushed bytes are pushed into proton-j's tail (input), and the events proton-j's collector gathers are handed
 * to {@link #onEvent} between moves, until both sides are quiet. Messages on the proton-j side are encoded and
 * decoded with proton-j's own {@link Message}.
 */
final class ProtonJWire {
    final Engine ours;
    final Transport transport = Proton.transport();
    final Connection connection = Proton.connection();
    final Collector collector = Proton.collector();
    Consumer<Event> onEvent = e -> { };
    long now = 1_000;
    private int tags;

    ProtonJWire(Engine ours) {
        this.ours = ours;
        connection.collect(collector);
    }

    /** Binds the transport (after SASL is set up on it) and starts our engine. */
    ProtonJWire start() {
        transport.bind(connection);
        ours.start(now);
        return this;
    }

    /** Moves bytes and events until nothing happens; returns the number of rounds. */
    int pump() {
        int rounds = 0;
        boolean moved = true;
        while (moved) {
            moved = false;
            Event e;
            while ((e = collector.peek()) != null) {
                onEvent.accept(e);
                collector.pop();
                moved = true;
            }
            int pending = transport.pending();
            if (pending > 0) {
                ByteBuffer head = transport.head();
                byte[] b = new byte[pending];
                head.get(b);
                transport.pop(pending);
                if (!ours.isDone()) {
                    ours.ingest(b, 0, b.length, now);
                }
                moved = true;
            }
            ByteBuffer out = ours.beginFlush();
            if (out != null) {
                while (out.hasRemaining()) {
                    int capacity = transport.capacity();
                    if (capacity <= 0) {
                        out.position(out.limit()); // proton-j closed its input: the bytes go nowhere
                        break;
                    }
                    ByteBuffer tail = transport.tail();
                    int n = Math.min(capacity, out.remaining());
                    ByteBuffer slice = out.slice();
                    slice.limit(n);
                    tail.put(slice);
                    out.position(out.position() + n);
                    transport.process();
                }
                ours.endFlush();
                moved = true;
            }
            if (moved && ++rounds > 100_000) {
                throw new IllegalStateException("the engines never went quiet");
            }
        }
        return rounds;
    }

    // ------------------------------------------------------------------------------------------ messages

    static byte[] encode(Message m) {
        byte[] buf = new byte[256 * 1024];
        int n = m.encode(buf, 0, buf.length);
        return Arrays.copyOf(buf, n);
    }

    static Message message(Object messageId, String to, String subject, String replyTo, byte[] body) {
        Message m = Message.Factory.create();
        m.setMessageId(messageId);
        m.setAddress(to);
        m.setSubject(subject);
        m.setReplyTo(replyTo);
        m.setBody(new Data(new Binary(body)));
        return m;
    }

    /** Sends a whole message on a proton-j sender; {@code settled} sends it pre-settled. */
    Delivery send(Sender sender, Message m, boolean settled) {
        byte[] bytes = encode(m);
        Delivery d = sender.delivery(("t" + (tags++)).getBytes());
        sender.send(bytes, 0, bytes.length);
        sender.advance();
        if (settled) {
            d.settle();
        }
        return d;
    }

    /** Reads a complete delivery off a proton-j receiver and decodes it; null while it is partial. */
    static Message read(Delivery d) {
        if (!d.isReadable() || d.isPartial()) {
            return null;
        }
        Receiver r = (Receiver) d.getLink();
        byte[] b = new byte[d.pending()];
        int n = r.recv(b, 0, b.length);
        r.advance();
        Message m = Message.Factory.create();
        m.decode(b, 0, n);
        return m;
    }

    static byte[] body(Message m) {
        Binary b = ((Data) m.getBody()).getValue();
        return Arrays.copyOfRange(b.getArray(), b.getArrayOffset(), b.getArrayOffset() + b.getLength());
    }
}
