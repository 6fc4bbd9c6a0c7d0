package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static io.amqpservlet.protocol.types.RoundTrip.bytes;
import static io.amqpservlet.protocol.types.RoundTrip.decode;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.hex;
import static io.amqpservlet.protocol.types.RoundTrip.through;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaslFramesTest {
    private static final byte[] PLAIN_RESPONSE = "\0user\0secret".getBytes(StandardCharsets.US_ASCII);

    @Test
    void mechanismsAcceptSingleSymbolOrArray() {
        SaslMechanisms m = new SaslMechanisms();
        m.mechanisms().set(SaslMechanismNames.PLAIN, SaslMechanismNames.ANONYMOUS);
        SaslMechanisms out = through(m, new SaslMechanisms());
        assertEquals("[PLAIN, ANONYMOUS]", out.mechanisms().toString());
        byte[] single = hex("00 53 40 c0 0b 01 a3 08 45 58 54 45 52 4e 41 4c");
        SaslMechanisms one = decode(single, new SaslMechanisms());
        assertEquals(1, one.mechanisms().size());
        assertTrue(one.mechanisms().contains(SaslMechanismNames.EXTERNAL));
    }

    @Test
    void initRoundTripsEveryFieldAndMandatoryOnly() {
        SaslInit init = new SaslInit().mechanism(SaslMechanismNames.PLAIN);
        init.initialResponse().set(PLAIN_RESPONSE, 0, PLAIN_RESPONSE.length);
        init.hostname().set("broker.example");
        SaslInit out = through(init, new SaslInit());
        assertTrue(out.mechanism().contentEquals(SaslMechanismNames.PLAIN));
        assertArrayEquals(PLAIN_RESPONSE, out.initialResponse().toByteArray());
        assertEquals("broker.example", out.hostname().toString());
        assertFalse(out.toString().contains("secret"), "the trace hides credentials");

        SaslInit anonymous = through(new SaslInit().mechanism(SaslMechanismNames.ANONYMOUS), out);
        assertTrue(anonymous.initialResponse().isNull(), "reuse forgets the old response");
        assertTrue(anonymous.hostname().isNull());
    }

    @Test
    void challengeAndResponseRoundTrip() {
        SaslChallenge c = new SaslChallenge();
        c.challenge().set(new byte[] {1, 2}, 0, 2);
        assertArrayEquals(new byte[] {1, 2}, through(c, new SaslChallenge()).challenge().toByteArray());
        SaslResponse r = new SaslResponse();
        r.response().set(new byte[0], 0, 0);
        SaslResponse out = through(r, new SaslResponse());
        assertFalse(out.response().isNull(), "an empty response is not a null one");
        assertEquals(0, out.response().length());
    }

    @Test
    void outcomeRoundTripsCodeAndData() {
        assertArrayEquals(hex("00 53 44 c0 03 01 50 00"), encode(new SaslOutcome().code(SaslOutcome.OK)));
        SaslOutcome o = new SaslOutcome().code(SaslOutcome.AUTH);
        o.additionalData().set(new byte[] {7}, 0, 1);
        SaslOutcome out = through(o, new SaslOutcome());
        assertEquals(SaslOutcome.AUTH, out.code());
        assertArrayEquals(new byte[] {7}, out.additionalData().toByteArray());
        decode(hex("00 53 44 c0 03 01 50 04"), out);
        assertEquals(SaslOutcome.SYS_TEMP, out.code());
        assertTrue(out.additionalData().isNull());
    }

    @Test
    void dispatchesToReusableInstances() {
        SaslFrames frames = new SaslFrames();
        AmqpReader reader = new AmqpReader();
        byte[] b = encode(new SaslInit().mechanism(SaslMechanismNames.ANONYMOUS));
        assertSame(frames.init(), frames.decode(reader.wrap(b, 0, b.length)));
        byte[] s = bytes(w -> {
            w.writeDescriptor(Symbol.of("amqp:sasl-outcome:list"));
            w.startList();
            w.writeUByte(1);
            w.endList();
        });
        assertSame(frames.outcome(), frames.decode(reader.wrap(s, 0, s.length)));
        assertEquals(SaslOutcome.AUTH, frames.outcome().code());
        byte[] open = hex("00 53 10 c0 04 01 a1 01 78");
        assertThrows(UnexpectedTypeException.class, () -> frames.decode(reader.wrap(open, 0, open.length)));
    }

    @Test
    void rejectsMissingMandatoryFields() {
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 40 45"), new SaslMechanisms()));
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 41 45"), new SaslInit()));
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 42 45"), new SaslChallenge()));
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 43 45"), new SaslResponse()));
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 44 45"), new SaslOutcome()));
        byte[] wrongType = bytes(w -> {
            w.writeDescriptor(Descriptors.SASL_OUTCOME);
            w.startList();
            w.writeString("ok");
            w.endList();
        });
        assertThrows(UnexpectedTypeException.class, () -> decode(wrongType, new SaslOutcome()));
        assertThrows(IllegalStateException.class, () -> encode(new SaslInit()));
    }
}
