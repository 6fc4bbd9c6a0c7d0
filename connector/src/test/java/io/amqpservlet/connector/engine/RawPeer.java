package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.sasl.SaslFrame;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A peer made of hand-assembled bytes, for what a well-behaved client library will not send: frames are encoded
 * with the protocol module (performative + {@link FrameWriter}), handed to an acceptor {@link Engine} in one read
 * when {@link #flush()} is called, and whatever the engine writes back is split into headers and frames again,
 * each kept as bytes and decoded afresh on demand (the engine's performatives are reused, so they cannot be kept).
 */
final class RawPeer {
    final Engine engine;
    long now = 1_000;
    private final AmqpWriter out = new AmqpWriter(1024);
    private final Performatives scratch = new Performatives();
    private byte[] received = new byte[0];
    private int receivedLength;
    /** Protocol headers the engine wrote, in order. */
    final List<ProtocolHeader> headers = new ArrayList<>();
    /** Frames the engine wrote and the test has not taken yet. */
    final List<Frame> frames = new ArrayList<>();
    /** Every frame the engine ever wrote. */
    final List<Frame> all = new ArrayList<>();

    /** One frame the engine wrote: its type, channel and body bytes. */
    record Frame(int type, int channel, byte[] body) {
        boolean isEmpty() {
            return body.length == 0;
        }

        /** Decodes the performative into a new object (never the engine's). */
        Performative performative() {
            AmqpReader r = new AmqpReader();
            r.wrap(body, 0, body.length);
            return new Performatives().decode(r);
        }

        SaslFrame sasl() {
            AmqpReader r = new AmqpReader();
            r.wrap(body, 0, body.length);
            return new SaslFrames().decode(r);
        }

        /** The bytes after the performative: a transfer's payload. */
        byte[] payload() {
            AmqpReader r = new AmqpReader();
            r.wrap(body, 0, body.length);
            new Performatives().decode(r);
            return Arrays.copyOfRange(body, r.position(), body.length);
        }

        String name() {
            if (isEmpty()) {
                return "heartbeat";
            }
            return type == FrameHeader.TYPE_SASL ? sasl().typeName() : performative().typeName();
        }

        @Override
        public String toString() {
            if (isEmpty()) {
                return "[" + channel + "] heartbeat";
            }
            return "[" + channel + "] " + (type == FrameHeader.TYPE_SASL ? sasl() : performative());
        }
    }

    RawPeer(EngineConfig config, EngineHandler handler) {
        engine = new Engine(config.role(EngineConfig.Role.ACCEPTOR), handler);
        engine.start(now);
    }

    /** A config for an acceptor that takes the AMQP header without SASL. */
    static EngineConfig noSasl() {
        return new EngineConfig().containerId("server").saslRequired(false);
    }

    // ------------------------------------------------------------------------------------------ writing

    RawPeer bytes(byte[] bytes) {
        int at = out.reserve(bytes.length);
        System.arraycopy(bytes, 0, out.array(), at, bytes.length);
        return this;
    }

    RawPeer header(ProtocolHeader header) {
        return bytes(header.toByteArray());
    }

    RawPeer frame(int channel, Performative p) {
        int start = FrameWriter.begin(out, FrameHeader.TYPE_AMQP, channel);
        p.encode(out);
        FrameWriter.end(out, start);
        return this;
    }

    RawPeer transfer(int channel, Transfer t, byte[] payload) {
        int start = FrameWriter.begin(out, FrameHeader.TYPE_AMQP, channel);
        t.encode(out);
        FrameWriter.appendPayload(out, payload, 0, payload.length);
        FrameWriter.end(out, start);
        return this;
    }

    RawPeer sasl(SaslFrame f) {
        int start = FrameWriter.begin(out, FrameHeader.TYPE_SASL, 0);
        f.encode(out);
        FrameWriter.end(out, start);
        return this;
    }

    /** A frame whose body is exactly {@code body} (for malformed performatives). */
    RawPeer rawFrame(int type, int channel, byte[] body) {
        int start = FrameWriter.begin(out, type, channel);
        FrameWriter.appendPayload(out, body, 0, body.length);
        FrameWriter.end(out, start);
        return this;
    }

    RawPeer heartbeat() {
        FrameWriter.writeEmpty(out);
        return this;
    }

    /** Takes back the bytes written and not yet flushed. */
    byte[] written() {
        byte[] b = out.toByteArray();
        out.clear();
        return b;
    }

    /** Hands everything written so far to the engine in one read, then collects what it wrote back. */
    RawPeer flush() {
        if (out.length() > 0) {
            byte[] b = out.toByteArray();
            out.clear();
            engine.ingest(b, 0, b.length, now);
        }
        collect();
        return this;
    }

    /** Moves the clock and ticks the engine; returns what tick returned. */
    long advance(long millis) {
        now += millis;
        long next = engine.tick(now);
        collect();
        return next;
    }

    /** Reads the engine's output into {@link #headers} and {@link #frames}. */
    void collect() {
        ByteBuffer b;
        while ((b = engine.beginFlush()) != null) {
            int n = b.remaining();
            if (receivedLength + n > received.length) {
                received = Arrays.copyOf(received, Math.max(receivedLength + n, received.length * 2));
            }
            b.get(received, receivedLength, n);
            receivedLength += n;
            engine.endFlush();
        }
        int p = 0;
        FrameReader reader = new FrameReader(Integer.MAX_VALUE);
        reader.useNegotiatedLimit();
        while (p < receivedLength) {
            if (receivedLength - p >= 4 && ProtocolHeader.isAmqpPrefix(received, p, 4)) {
                if (receivedLength - p < ProtocolHeader.LENGTH) {
                    break;
                }
                headers.add(ProtocolHeader.parse(received, p));
                p += ProtocolHeader.LENGTH;
                continue;
            }
            if (!reader.read(received, p, receivedLength - p)) {
                break;
            }
            Frame f = new Frame(reader.type(), reader.channel(),
                    Arrays.copyOfRange(received, reader.bodyOffset(), reader.bodyOffset() + reader.bodyLength()));
            frames.add(f);
            all.add(f);
            p += reader.frameSize();
        }
        System.arraycopy(received, p, received, 0, receivedLength - p);
        receivedLength -= p;
    }

    // ------------------------------------------------------------------------------------------ reading

    /** Takes the frames received since the last take. */
    List<Frame> take() {
        List<Frame> copy = new ArrayList<>(frames);
        frames.clear();
        return copy;
    }

    /** Takes the next frame, which must be a {@code type} performative. */
    @SuppressWarnings("unchecked")
    <P extends Performative> P next(Class<P> type) {
        assertFalse(frames.isEmpty(), "expected a " + type.getSimpleName() + " but the engine sent nothing more");
        Frame f = frames.remove(0);
        Performative p = f.isEmpty() ? null : f.performative();
        if (!type.isInstance(p)) {
            throw new AssertionError("expected a " + type.getSimpleName() + " but got " + f + "; then " + frames);
        }
        return (P) p;
    }

    /** Takes the first pending frame that is a {@code type} performative, leaving the others pending. */
    <P extends Performative> P first(Class<P> type) {
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            if (!f.isEmpty() && f.type() == FrameHeader.TYPE_AMQP && type.isInstance(f.performative())) {
                frames.remove(i);
                return type.cast(f.performative());
            }
        }
        throw new AssertionError("expected a " + type.getSimpleName() + " among " + frames);
    }

    /** The last frame of this type received (taken or not), or null. */
    @SuppressWarnings("unchecked")
    <P extends Performative> P last(Class<P> type) {
        for (int i = all.size() - 1; i >= 0; i--) {
            Frame f = all.get(i);
            if (!f.isEmpty() && f.type() == FrameHeader.TYPE_AMQP) {
                Performative p = f.performative();
                if (type.isInstance(p)) {
                    return (P) p;
                }
            }
        }
        return null;
    }

    /** All frames of this type received so far. */
    <P extends Performative> List<P> allOf(Class<P> type) {
        List<P> list = new ArrayList<>();
        for (Frame f : all) {
            if (!f.isEmpty() && f.type() == FrameHeader.TYPE_AMQP) {
                Performative p = f.performative();
                if (type.isInstance(p)) {
                    list.add(type.cast(p));
                }
            }
        }
        return list;
    }

    // ------------------------------------------------------------------------------------------ scripts

    Performatives p() {
        return scratch;
    }

    /** AMQP header and open without SASL; checks the engine's header and open came back. */
    RawPeer open() {
        return open(scratch.open().clear().containerId("raw-peer"));
    }

    RawPeer open(Open open) {
        header(ProtocolHeader.AMQP).frame(0, open).flush();
        assertEquals(List.of(ProtocolHeader.AMQP), headers, "the engine answered with the AMQP header");
        next(Open.class);
        return this;
    }

    /** Begins a session on {@code channel}; returns the engine's begin. */
    Begin begin(int channel, int nextOutgoingId, int incomingWindow) {
        Begin b = scratch.begin().clear().nextOutgoingId(nextOutgoingId).incomingWindow(incomingWindow)
                .outgoingWindow(Integer.MAX_VALUE);
        frame(channel, b).flush();
        Begin answer = first(Begin.class);
        assertEquals(channel, answer.remoteChannel(), "the begin answers ours");
        return answer;
    }

    /** Attaches a link on which the peer sends (the engine receives) and returns the engine's attach. */
    Attach attachSender(int channel, int handle, String name, String address, int initialDeliveryCount) {
        Attach a = scratch.attach().clear().name(name).handle(handle).role(Role.SENDER)
                .initialDeliveryCount(initialDeliveryCount);
        a.source().clear().present(true).address(name);
        a.target().clear().present(true).address(address);
        frame(channel, a).flush();
        return first(Attach.class);
    }

    /** Attaches a link on which the engine sends (the peer receives) and returns the engine's attach. */
    Attach attachReceiver(int channel, int handle, String name, String address) {
        Attach a = scratch.attach().clear().name(name).handle(handle).role(Role.RECEIVER);
        a.source().clear().present(true).address(address);
        a.target().clear().present(true).address(name);
        frame(channel, a).flush();
        return first(Attach.class);
    }

    /** The first transfer frame of a one-frame message. */
    Transfer transfer(int handle, int deliveryId, boolean settled) {
        Transfer t = scratch.transfer().clear().handle(handle).deliveryId(deliveryId);
        byte[] tag = {(byte) (deliveryId >>> 24), (byte) (deliveryId >>> 16), (byte) (deliveryId >>> 8),
                (byte) deliveryId};
        t.deliveryTag(tag, 0, tag.length).messageFormat(0);
        if (settled) {
            t.settled(true);
        }
        return t;
    }

    /** A message with the given subject and a data body of {@code bodyBytes} bytes. */
    static byte[] message(String subject, int bodyBytes) {
        AmqpWriter w = new AmqpWriter();
        byte[] body = new byte[bodyBytes];
        for (int i = 0; i < bodyBytes; i++) {
            body[i] = (byte) (i % 251);
        }
        new MessageWriter().wrap(w).startProperties().subject(subject).endProperties().data(body, 0, body.length).end();
        return w.toByteArray();
    }

    // ------------------------------------------------------------------------------------------ assertions

    static void assertError(ErrorCondition error, Object condition) {
        assertNotNull(error, "an error was expected");
        assertFalse(error.isNull(), "an error condition was expected");
        assertEquals(condition.toString(), error.condition().toString(), "condition; description: " + error.description());
    }

    static void assertCloseError(Close close, Object condition) {
        assertNotNull(close, "a close was expected");
        assertError(close.error(), condition);
    }

    static void assertEndError(End end, Object condition) {
        assertNotNull(end, "an end was expected");
        assertError(end.error(), condition);
    }

    static void assertDetachError(Detach detach, Object condition) {
        assertNotNull(detach, "a detach was expected");
        assertError(detach.error(), condition);
    }
}
