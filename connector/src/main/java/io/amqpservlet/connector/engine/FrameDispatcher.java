package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.FramingException;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;

/**
 * The input side of an {@link Engine}: splits the byte stream into protocol headers and frames (AMQP 1.0 §2.2,
 * §2.3), decodes each frame's performative in place, and hands it to the session it belongs to, or to the
 * connection (the handshake, open, begin, close) when it belongs to none.
 */
final class FrameDispatcher {
    private final Engine engine;
    private final SessionTable sessions;
    private final FrameReader frames;
    private final FrameTracer tracer;

    /**
     * Made by the engine; the engine's state is read and changed only through its methods (its handshake, which it
     * drops at open, its scratch, which it holds only while working). {@code tracer} is null when tracing is off.
     */
    FrameDispatcher(Engine engine, SessionTable sessions, FrameTracer tracer, int maxFrameSizeBytes) {
        this.engine = engine;
        this.sessions = sessions;
        this.frames = new FrameReader(maxFrameSizeBytes);
        this.tracer = tracer;
    }

    /** {@return the largest frame the peer may send now: 512 bytes until our open is out, then our max-frame-size} */
    int frameLimitBytes() {
        return frames.limitBytes();
    }

    /** Our open is out: from now on frames are limited to our max-frame-size, no longer to 512 bytes. */
    void useNegotiatedLimit() {
        frames.useNegotiatedLimit();
    }

    /**
     * Consumes whole protocol headers and frames from {@code bytes[offset, offset + length)} and returns how many
     * bytes it used (see {@link Engine#process}).
     */
    int process(byte[] bytes, int offset, int length) {
        int p = offset;
        int end = offset + length;
        try {
            while (p < end && engine.lifecycle.phase() != ConnectionPhase.DONE) {
                ConnectionPhase phase = engine.lifecycle.phase();
                if (phase.readsHeader()) {
                    int used = onHeaderBytes(bytes, p, end - p);
                    if (used < 0) {
                        return length;
                    }
                    if (used == 0) {
                        break;
                    }
                    p += used;
                    continue;
                }
                if (!frames.read(bytes, p, end - p)) {
                    break;
                }
                int frameEnd = p + frames.frameSize();
                int type = frames.type();
                if (phase == ConnectionPhase.SASL) {
                    if (type != FrameHeader.TYPE_SASL) {
                        engine.handshake().fail(ErrorConditions.UNAUTHORIZED_ACCESS,
                                "AMQP frame during SASL negotiation");
                        return length;
                    }
                    engine.handshake().onSaslFrame(bytes, frames.bodyOffset(), frames.bodyLength());
                } else if (type != FrameHeader.TYPE_AMQP) {
                    engine.lifecycle.connectionError(ErrorConditions.CONNECTION_FRAMING_ERROR,
                            "SASL frame after SASL negotiation");
                } else {
                    onAmqpFrame(frames.channel(), bytes, frames.bodyOffset(), frames.bodyLength());
                }
                p = frameEnd;
            }
        } catch (FramingException e) {
            engine.lifecycle.fatal(ErrorConditions.CONNECTION_FRAMING_ERROR, e.getMessage());
            return length;
        } catch (DecodeException e) {
            engine.lifecycle.fatal(ErrorConditions.DECODE_ERROR, e.getMessage());
            return length;
        }
        // Settlements made while processing this input leave as ranges, one frame per range.
        engine.flushDispositions();
        return engine.lifecycle.phase() == ConnectionPhase.DONE ? length : p - offset;
    }

    /**
     * Reads a protocol header where one is due: returns the bytes used, 0 when more are needed, -1 when the bytes
     * are not an AMQP header (the transport is then being closed).
     */
    private int onHeaderBytes(byte[] bytes, int p, int available) {
        if (!ProtocolHeader.isAmqpPrefix(bytes, p, Math.min(4, available))) {
            engine.handshake().rejectHeader(ErrorConditions.CONNECTION_FRAMING_ERROR, "not an AMQP protocol header");
            return -1;
        }
        if (available < ProtocolHeader.LENGTH) {
            return 0;
        }
        ProtocolHeader header = ProtocolHeader.parse(bytes, p);
        if (tracer != null) {
            tracer.header(true, header.toString());
        }
        engine.handshake().onHeader(header, engine.lifecycle.phase() == ConnectionPhase.AWAITING_AMQP_HEADER);
        return ProtocolHeader.LENGTH;
    }

    private void onAmqpFrame(int channel, byte[] bytes, int bodyOffset, int bodyLength) {
        if (bodyLength == 0) {
            if (tracer != null) {
                tracer.heartbeat(true);
            }
            return; // AMQP 1.0 §2.4.5: an empty frame only keeps the connection alive
        }
        EngineScratch scratch = engine.scratch();
        Performatives in = scratch.in;
        Performative p;
        int payloadOffset = scratch.transferReader.read(bytes, bodyOffset, bodyOffset + bodyLength, in.transfer());
        if (payloadOffset >= 0) {
            p = in.transfer(); // the common transfer shape, read without the generic decoder
        } else {
            AmqpReader reader = scratch.reader;
            reader.wrap(bytes, bodyOffset, bodyLength);
            p = in.decode(reader);
            payloadOffset = reader.position();
        }
        int payloadLength = bodyOffset + bodyLength - payloadOffset;
        if (tracer != null) {
            tracer.received(channel, p, payloadLength);
        }
        if (engine.isOpen() && p != in.close() && p != in.begin() && p != in.open()) {
            // The common case, a frame of an established session, kept short so that the JIT inlines it.
            Session s = sessions.byRemoteChannel(channel);
            if (s != null) {
                s.onFrame(p, bytes, payloadOffset, payloadLength);
                return;
            }
        }
        onConnectionFrame(channel, p, bytes, payloadOffset, payloadLength);
    }

    /** Every frame but one for an established session: the handshake, begin, close, and protocol violations. */
    private void onConnectionFrame(int channel, Performative p, byte[] bytes, int payloadOffset, int payloadLength) {
        Performatives in = engine.in();
        if (engine.closeSent()) {
            // AMQP 1.0 §2.4.3: after sending close, read and discard everything up to the peer's close.
            if (p == in.close()) {
                engine.remoteError().set(in.close().error());
                engine.lifecycle.finish();
            }
            return;
        }
        if (engine.lifecycle.phase() == ConnectionPhase.AWAITING_OPEN) {
            if (p != in.open()) {
                engine.lifecycle.fatal(ErrorConditions.ILLEGAL_STATE, "expected open but received " + p.typeName());
                return;
            }
            engine.lifecycle.onRemoteOpen(in.open());
            return;
        }
        if (p == in.close()) {
            engine.lifecycle.onRemoteClose(in.close());
        } else if (p == in.begin()) {
            sessions.onBegin(channel, in.begin());
        } else if (p == in.open()) {
            engine.lifecycle.connectionError(ErrorConditions.ILLEGAL_STATE, "second open");
        } else {
            Session s = sessions.byRemoteChannel(channel);
            if (s == null) {
                engine.lifecycle.connectionError(ErrorConditions.CONNECTION_FRAMING_ERROR,
                        p.typeName() + " on channel " + channel + ", which has no session");
                return;
            }
            s.onFrame(p, bytes, payloadOffset, payloadLength);
        }
    }
}
