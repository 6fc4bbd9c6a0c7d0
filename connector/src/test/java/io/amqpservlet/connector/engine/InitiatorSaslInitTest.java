package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrame;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslMechanisms;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sasl-init an initiator sends for each mechanism (AMQP 1.0 §5.3.3.2), seen on the wire. */
class InitiatorSaslInitTest {
    /** The sasl-init the initiator answers a server offering {@code mechanism} with. */
    private static SaslInit initAfterOffering(EngineConfig config, String mechanism) {
        Engine engine = new Engine(config.containerId("client").role(EngineConfig.Role.INITIATOR).saslRequired(true),
                new ClientRecorder());
        engine.start(0);
        drain(engine); // the SASL header
        AmqpWriter in = new AmqpWriter(256);
        byte[] header = ProtocolHeader.SASL.toByteArray();
        int at = in.reserve(header.length);
        System.arraycopy(header, 0, in.array(), at, header.length);
        SaslMechanisms offer = new SaslFrames().mechanisms().clear();
        offer.mechanisms().add(Symbol.of(mechanism));
        int start = FrameWriter.begin(in, FrameHeader.TYPE_SASL, 0);
        offer.encode(in);
        FrameWriter.end(in, start);
        byte[] bytes = in.toByteArray();
        engine.ingest(bytes, 0, bytes.length, 0);
        byte[] out = drain(engine);
        FrameReader frames = new FrameReader(Integer.MAX_VALUE);
        frames.useNegotiatedLimit();
        assertTrue(frames.read(out, 0, out.length), "no frame after sasl-mechanisms");
        assertEquals(FrameHeader.TYPE_SASL, frames.type());
        AmqpReader r = new AmqpReader();
        r.wrap(out, frames.bodyOffset(), frames.bodyLength());
        SaslFrame f = new SaslFrames().decode(r);
        return assertInstanceOf(SaslInit.class, f);
    }

    private static byte[] drain(Engine engine) {
        byte[] all = new byte[0];
        ByteBuffer b;
        while ((b = engine.beginFlush()) != null) {
            int at = all.length;
            all = Arrays.copyOf(all, at + b.remaining());
            b.get(all, at, all.length - at);
            engine.endFlush();
        }
        return all;
    }

    @Test
    void externalSendsAnEmptyInitialResponseSoTheServerNeedNotAskForOne() {
        // RFC 4422 appendix A: empty means "the identity the transport established". Artemis answers a sasl-init
        // without one with a challenge.
        SaslInit init = initAfterOffering(new EngineConfig().saslExternal(), "EXTERNAL");
        assertEquals("EXTERNAL", init.mechanism().toString());
        assertFalse(init.initialResponse().isNull(), "the initial response is present");
        assertEquals(0, init.initialResponse().length());
    }

    @Test
    void plainSendsItsCredentialsAsTheInitialResponse() {
        SaslInit init = initAfterOffering(new EngineConfig().saslPlain("alice", "secret"), "PLAIN");
        assertEquals("PLAIN", init.mechanism().toString());
        assertEquals("\0alice\0secret", new String(init.initialResponse().array(), 0, init.initialResponse().length(),
                java.nio.charset.StandardCharsets.UTF_8));
    }
}
