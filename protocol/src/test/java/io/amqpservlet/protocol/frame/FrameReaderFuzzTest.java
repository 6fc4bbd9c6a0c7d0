package io.amqpservlet.protocol.frame;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.types.sasl.SaslFrame;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;

/**
 * Coverage-guided fuzzing of {@link FrameReader} and the performative and SASL decoders (docs/fuzzing.md): any
 * bytes split into frames as an engine splits its input (protocol headers are stepped over), each frame body
 * decoded as a performative or SASL frame, and each decoded one encoded again and decoded once more. Only a
 * {@link FramingException} may end the split and only a {@link DecodeException} may fail a decode; a frame the
 * reader returns lies inside the input and within the limit; whatever decoded must encode, and its encoding must
 * decode; memory follows the input ({@link AllocationBudget}).
 */
class FrameReaderFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void splitsAndDecodesAnyFrames(byte[] input) {
        AllocationBudget.check("FrameReader", input.length, () -> splitAndDecode(input));
    }

    private static void splitAndDecode(byte[] input) {
        // The first byte picks the limit: 512 bytes as before open, or a negotiated 4 KiB.
        FrameReader frames = new FrameReader(4096);
        if (input.length > 0 && (input[0] & 1) == 1) {
            frames.useNegotiatedLimit();
        }
        Performatives performatives = new Performatives();
        SaslFrames saslFrames = new SaslFrames();
        AmqpReader reader = new AmqpReader();
        AmqpWriter writer = new AmqpWriter(256);
        int at = 0;
        while (at < input.length) {
            if (ProtocolHeader.isAmqpPrefix(input, at, input.length - at) && input.length - at >= ProtocolHeader.LENGTH) {
                ProtocolHeader.parse(input, at);
                at += ProtocolHeader.LENGTH;
                continue;
            }
            try {
                if (!frames.read(input, at, input.length - at)) {
                    if (frames.bytesNeeded() < 1) {
                        throw new AssertionError("an incomplete frame needs " + frames.bytesNeeded() + " bytes");
                    }
                    return;
                }
            } catch (FramingException expected) {
                return;
            }
            checkBounds(frames, input, at);
            // An empty AMQP frame is a heartbeat (§2.4.5); an empty SASL frame is decoded, as the engine does.
            if (!frames.isEmpty() || frames.type() == FrameHeader.TYPE_SASL) {
                reader.wrap(input, frames.bodyOffset(), frames.bodyLength());
                try {
                    if (frames.type() == FrameHeader.TYPE_SASL) {
                        SaslFrame decoded = saslFrames.decode(reader);
                        writer.clear();
                        decoded.encode(writer);
                        reader.wrap(writer.array(), 0, writer.length());
                        saslFrames.decode(reader);
                    } else {
                        Performative decoded = performatives.decode(reader);
                        writer.clear();
                        decoded.encode(writer);
                        reader.wrap(writer.array(), 0, writer.length());
                        performatives.decode(reader);
                    }
                } catch (DecodeException expected) {
                    // the documented answer to a frame body that is not a performative
                }
            }
            at += frames.frameSize();
        }
    }

    private static void checkBounds(FrameReader frames, byte[] input, int at) {
        int size = frames.frameSize();
        if (size < FrameHeader.SIZE || size > frames.limitBytes() || at + size > input.length
                || frames.bodyOffset() < at + FrameHeader.SIZE
                || frames.bodyOffset() + frames.bodyLength() != at + size) {
            throw new AssertionError("frame at " + at + ": size " + size + ", body at " + frames.bodyOffset() + "+"
                    + frames.bodyLength() + ", limit " + frames.limitBytes() + ", input " + input.length);
        }
    }
}
