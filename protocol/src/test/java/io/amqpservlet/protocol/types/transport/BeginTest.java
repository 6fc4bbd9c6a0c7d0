package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.bytes;
import static io.amqpservlet.protocol.types.RoundTrip.decode;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.hex;
import static io.amqpservlet.protocol.types.RoundTrip.through;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BeginTest {
    static Begin full() {
        Begin begin = new Begin().remoteChannel(7).nextOutgoingId(-2).incomingWindow(2048).outgoingWindow(-1)
                .handleMax(1023);
        begin.offeredCapabilities().set(Symbol.of("a"));
        begin.desiredCapabilities().set(Symbol.of("b"), Symbol.of("c"));
        byte[] props = bytes(w -> {
            w.startMap();
            w.writeSymbol("k");
            w.writeInt(1);
            w.endMap();
        });
        begin.properties().set(props, 0, props.length);
        return begin;
    }

    @Test
    void roundTripsEveryField() {
        Begin out = through(full(), new Begin());
        assertTrue(out.hasRemoteChannel());
        assertEquals(7, out.remoteChannel());
        assertEquals(0xFFFFFFFEL, Integer.toUnsignedLong(out.nextOutgoingId()), "unsigned bits survive");
        assertEquals(2048, out.incomingWindow());
        assertEquals(-1, out.outgoingWindow());
        assertEquals(1023, out.handleMax());
        assertTrue(out.offeredCapabilities().contains(Symbol.of("a")));
        assertEquals("[b, c]", out.desiredCapabilities().toString());
        assertFalse(out.properties().isNull());
    }

    @Test
    void mandatoryOnlyOmitsRemoteChannelAsNullAndTrailingFields() {
        // remote-channel null, next-outgoing-id uint0, incoming-window smalluint 100, outgoing-window uint0.
        byte[] expected = hex("00 53 11 c0 06 04 40 43 52 64 43");
        Begin begin = new Begin().nextOutgoingId(0).incomingWindow(100).outgoingWindow(0);
        assertArrayEquals(expected, encode(begin));
        Begin out = decode(expected, new Begin());
        assertFalse(out.hasRemoteChannel());
        assertEquals(-1, out.handleMax(), "handle-max defaults to 4294967295");
        assertEquals(100, out.incomingWindow());
    }

    @Test
    void reusedInstanceDoesNotKeepOldValues() {
        Begin reused = decode(encode(full()), new Begin());
        decode(encode(new Begin().nextOutgoingId(1).incomingWindow(2).outgoingWindow(3)), reused);
        assertFalse(reused.hasRemoteChannel());
        assertEquals(-1, reused.handleMax());
        assertTrue(reused.offeredCapabilities().isNull());
        assertTrue(reused.desiredCapabilities().isNull());
        assertTrue(reused.properties().isNull());
    }

    @Test
    void rejectsMissingWindow() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.BEGIN);
            w.startList();
            w.writeNull();
            w.writeUInt(1);
            w.writeUInt(2);
            w.endList();
        });
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class, () -> decode(b, new Begin()));
        assertTrue(e.getMessage().contains("begin: mandatory field outgoing-window is null"), e.getMessage());
    }
}
