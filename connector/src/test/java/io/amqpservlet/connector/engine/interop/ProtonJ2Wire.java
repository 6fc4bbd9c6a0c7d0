package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Engine;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
import org.apache.qpid.protonj2.codec.CodecFactory;
import org.apache.qpid.protonj2.codec.Decoder;
import org.apache.qpid.protonj2.codec.DecoderState;
import org.apache.qpid.protonj2.codec.DecodeException;
import org.apache.qpid.protonj2.codec.Encoder;
import org.apache.qpid.protonj2.codec.EncoderState;
import org.apache.qpid.protonj2.types.messaging.Data;
import org.apache.qpid.protonj2.types.messaging.Properties;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Our engine joined in memory to a protonj2 1.1.0 engine: what protonj2 writes (through its output handler) our
 * engine ingests, and what ours flushes protonj2 ingests, until both are quiet. Messages on the protonj2 side are
 * encoded and decoded with protonj2's own codec, so the bytes we read come from an independent encoder.
 */
final class ProtonJ2Wire {
    static final ProtonBufferAllocator ALLOCATOR = ProtonBufferAllocator.defaultAllocator();

    final Engine ours;
    final org.apache.qpid.protonj2.engine.Engine peer;
    private final ArrayDeque<byte[]> toOurs = new ArrayDeque<>();
    long now = 1_000;
    long bytesToPeer;
    long bytesToOurs;

    ProtonJ2Wire(Engine ours, org.apache.qpid.protonj2.engine.Engine peer) {
        this.ours = ours;
        this.peer = peer;
        peer.outputConsumer(buffer -> {
            byte[] b = new byte[buffer.getReadableBytes()];
            buffer.readBytes(b, 0, b.length);
            toOurs.add(b);
        });
        ours.start(now);
    }

    /** Moves bytes both ways until neither side has anything to say; returns the number of rounds. */
    int pump() {
        int rounds = 0;
        boolean moved = true;
        while (moved) {
            moved = false;
            byte[] b;
            while ((b = toOurs.poll()) != null) {
                bytesToOurs += b.length;
                if (!ours.isDone()) {
                    ours.ingest(b, 0, b.length, now);
                }
                moved = true;
            }
            ByteBuffer out = ours.beginFlush();
            if (out != null) {
                byte[] copy = new byte[out.remaining()];
                out.get(copy);
                ours.endFlush();
                bytesToPeer += copy.length;
                if (peer.isRunning()) {
                    peer.ingest(ALLOCATOR.copy(copy));
                }
                moved = true;
            }
            if (moved && ++rounds > 100_000) {
                throw new IllegalStateException("the engines never went quiet");
            }
        }
        return rounds;
    }

    // ------------------------------------------------------------------------------------------ messages

    /** A message encoded by protonj2: properties (message-id, to, subject, reply-to) and one data section. */
    static ProtonBuffer message(Object messageId, String to, String subject, String replyTo, byte[] body) {
        Encoder encoder = CodecFactory.getDefaultEncoder();
        EncoderState state = encoder.newEncoderState();
        ProtonBuffer buffer = ALLOCATOR.allocate(body.length + 256);
        Properties p = new Properties();
        p.setMessageId(messageId);
        p.setTo(to);
        p.setSubject(subject);
        p.setReplyTo(replyTo);
        encoder.writeObject(buffer, state, p);
        encoder.writeObject(buffer, state, new Data(body));
        return buffer;
    }

    /** A response encoded by protonj2: to, subject "200", the given correlation-id, one data section. */
    static ProtonBuffer response(Object correlationId, String to, byte[] body) {
        Encoder encoder = CodecFactory.getDefaultEncoder();
        EncoderState state = encoder.newEncoderState();
        ProtonBuffer buffer = ALLOCATOR.allocate(body.length + 256);
        Properties p = new Properties();
        p.setTo(to);
        p.setSubject("200");
        p.setCorrelationId(correlationId);
        encoder.writeObject(buffer, state, p);
        encoder.writeObject(buffer, state, new Data(body));
        return buffer;
    }

    /** A message protonj2 decoded: its properties and its data sections concatenated. */
    record Decoded(Properties properties, byte[] body) {
    }

    static Decoded decode(ProtonBuffer buffer) {
        Decoder decoder = CodecFactory.getDefaultDecoder();
        DecoderState state = decoder.newDecoderState();
        Properties properties = null;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<Object> sections = new ArrayList<>();
        try {
            while (buffer.isReadable()) {
                Object section = decoder.readObject(buffer, state);
                sections.add(section);
                if (section instanceof Properties p) {
                    properties = p;
                } else if (section instanceof Data d) {
                    body.writeBytes(d.getValue());
                }
            }
        } catch (DecodeException e) {
            throw new AssertionError("protonj2 could not decode our message after " + sections, e);
        }
        return new Decoded(properties, body.toByteArray());
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ((i * 31 + seed) % 251);
        }
        return b;
    }
}
