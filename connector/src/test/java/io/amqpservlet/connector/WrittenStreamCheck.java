package io.amqpservlet.connector;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.FramingException;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.transport.EndingPerformative;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.sasl.SaslFrames;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * Collects everything an engine writes and checks it is a well-formed AMQP stream whatever the peer sent:
 * protocol headers and frames that split cleanly (AMQP 1.0 §2.3), every frame no larger than the limit that
 * applies to it, every performative and SASL frame decodable by our own reader, and every error condition in an
 * end, detach or close an {@code amqp:} one (a peer's bytes can only earn a protocol error, docs/connector.md).
 * Shared by the fuzz targets of both roles: the acceptor's here, the broker attachment's in the Jetty module.
 */
public final class WrittenStreamCheck {
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private final Performatives performatives = new Performatives();
    private final SaslFrames saslFrames = new SaslFrames();
    private final AmqpReader reader = new AmqpReader();

    /** Takes whatever {@code engine} has to write, as a transport would. */
    public void drain(Engine engine) {
        ByteBuffer out;
        while ((out = engine.beginFlush()) != null) {
            byte[] copy = new byte[out.remaining()];
            out.get(copy);
            written.writeBytes(copy);
            engine.endFlush();
        }
    }

    /** Splits and decodes all written bytes; throws AssertionError naming the first fault. */
    public void check() {
        byte[] b = written.toByteArray();
        // Frames the engine writes go to a peer whose max-frame-size we do not know here; 64 KiB bounds ours.
        FrameReader frames = new FrameReader(64 * 1024);
        frames.useNegotiatedLimit();
        int at = 0;
        while (at < b.length) {
            if (ProtocolHeader.isAmqpPrefix(b, at, b.length - at)) {
                if (b.length - at < ProtocolHeader.LENGTH) {
                    throw fault("a protocol header cut short", b, at, null);
                }
                at += ProtocolHeader.LENGTH;
                continue;
            }
            try {
                if (!frames.read(b, at, b.length - at)) {
                    throw fault("an incomplete frame at the end of the output", b, at, null);
                }
            } catch (FramingException e) {
                throw fault("a frame that breaks §2.3", b, at, e);
            }
            if (!frames.isEmpty()) {
                reader.wrap(b, frames.bodyOffset(), frames.bodyLength());
                try {
                    if (frames.type() == FrameHeader.TYPE_SASL) {
                        saslFrames.decode(reader);
                    } else {
                        checkError(performatives.decode(reader), b, at);
                    }
                } catch (DecodeException e) {
                    throw fault("a frame our own reader cannot decode", b, at, e);
                }
            }
            at += frames.frameSize();
        }
    }

    private void checkError(Performative p, byte[] b, int at) {
        if (p instanceof EndingPerformative ending) {
            ErrorCondition error = ending.error();
            if (!error.isNull() && !error.condition().toString().startsWith("amqp:")) {
                throw fault("an error condition outside amqp: (" + error + ")", b, at, null);
            }
        }
    }

    private static AssertionError fault(String what, byte[] b, int at, Throwable cause) {
        int end = Math.min(b.length, at + 64);
        return new AssertionError("the engine wrote " + what + " at offset " + at + " of its output: "
                + HexFormat.of().formatHex(b, at, end), cause);
    }
}
