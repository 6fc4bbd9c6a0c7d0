package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
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

class FlowTest {
    static Flow full() {
        Flow flow = new Flow().nextIncomingId(10).incomingWindow(-1).nextOutgoingId(20).outgoingWindow(30)
                .handle(4).deliveryCount(-3).linkCredit(64).available(5).drain(true).echo(true);
        byte[] props = bytes(w -> {
            w.startMap();
            w.endMap();
        });
        flow.properties().set(props, 0, props.length);
        return flow;
    }

    @Test
    void roundTripsEveryField() {
        Flow out = through(full(), new Flow());
        assertTrue(out.hasNextIncomingId());
        assertEquals(10, out.nextIncomingId());
        assertEquals(-1, out.incomingWindow());
        assertEquals(20, out.nextOutgoingId());
        assertEquals(30, out.outgoingWindow());
        assertEquals(4, out.handle());
        assertEquals(-3, out.deliveryCount());
        assertEquals(64, out.linkCredit());
        assertEquals(5, out.available());
        assertTrue(out.drain());
        assertTrue(out.echo());
        assertFalse(out.properties().isNull());
    }

    @Test
    void sessionFlowHasNoHandle() {
        byte[] expected = hex("00 53 13 c0 08 04 40 52 0a 52 01 52 02");
        Flow session = new Flow().incomingWindow(10).nextOutgoingId(1).outgoingWindow(2);
        assertArrayEquals(expected, encode(session));
        Flow out = decode(expected, new Flow());
        assertFalse(out.hasNextIncomingId());
        assertFalse(out.hasHandle());
        assertFalse(out.hasDeliveryCount());
        assertFalse(out.hasLinkCredit());
        assertFalse(out.hasAvailable());
        assertFalse(out.drain());
        assertFalse(out.echo());
    }

    @Test
    void linkFlowWithHandleZeroKeepsHandle() {
        Flow out = through(new Flow().incomingWindow(1).nextOutgoingId(0).outgoingWindow(1).handle(0)
                .deliveryCount(0).linkCredit(0), new Flow());
        assertTrue(out.hasHandle());
        assertEquals(0, out.handle());
        assertTrue(out.hasLinkCredit());
    }

    @Test
    void reusedInstanceDoesNotKeepOldValues() {
        Flow reused = decode(encode(full()), new Flow());
        decode(hex("00 53 13 c0 08 04 40 52 0a 52 01 52 02"), reused);
        assertFalse(reused.hasNextIncomingId());
        assertFalse(reused.hasHandle());
        assertEquals(0, reused.linkCredit());
        assertFalse(reused.drain());
        assertFalse(reused.echo());
        assertTrue(reused.properties().isNull());
    }

    @Test
    void rejectsMissingIncomingWindow() {
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class,
                () -> decode(hex("00 53 13 c0 02 01 40"), new Flow()));
        assertTrue(e.getMessage().contains("flow: mandatory field incoming-window is null"), e.getMessage());
    }

    @Test
    void emptyListRejectsMissingIncomingWindowToo() {
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 13 45"), new Flow()));
    }
}
