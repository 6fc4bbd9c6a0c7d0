package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.decode;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.hex;
import static io.amqpservlet.protocol.types.RoundTrip.through;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DispositionTest {
    static Disposition full() {
        Disposition d = new Disposition().role(Role.RECEIVER).first(10).last(20).settled(true).batchable(true);
        d.state().rejected().error().condition(ErrorConditions.DECODE_ERROR).description("bad");
        return d;
    }

    @Test
    void roundTripsEveryField() {
        Disposition out = through(full(), new Disposition());
        assertEquals(Role.RECEIVER, out.role());
        assertEquals(10, out.first());
        assertEquals(20, out.last());
        assertTrue(out.settled());
        assertEquals(DeliveryState.Kind.REJECTED, out.state().kind());
        assertTrue(out.state().error().is(ErrorConditions.DECODE_ERROR));
        assertEquals("bad", out.state().error().description().toString());
        assertTrue(out.batchable());
    }

    @Test
    void settledAcceptedOfOneDeliveryIsCompact() {
        // role receiver, first 3, last null, settled true, accepted (list0).
        byte[] expected = hex("00 53 15 c0 0a 05 41 52 03 40 41 00 53 24 45");
        Disposition d = new Disposition().role(Role.RECEIVER).first(3).settled(true);
        d.state().accepted();
        assertArrayEquals(expected, encode(d));
        Disposition out = decode(expected, new Disposition());
        assertFalse(out.hasLast());
        assertEquals(3, out.last(), "an absent last means first (AMQP 1.0 §2.7.6)");
        assertEquals(DeliveryState.Kind.ACCEPTED, out.state().kind());
    }

    @Test
    void reusedInstanceDoesNotKeepOldValues() {
        Disposition reused = decode(encode(full()), new Disposition());
        decode(encode(new Disposition().role(Role.SENDER).first(1)), reused);
        assertEquals(Role.SENDER, reused.role());
        assertFalse(reused.hasLast());
        assertEquals(1, reused.last());
        assertFalse(reused.settled());
        assertTrue(reused.state().isNull());
        assertTrue(reused.state().error().isNull());
        assertFalse(reused.batchable());
    }

    @Test
    void rejectsMissingFirst() {
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class,
                () -> decode(hex("00 53 15 c0 02 01 41"), new Disposition()));
        assertTrue(e.getMessage().contains("disposition: mandatory field first is null"), e.getMessage());
    }
}
