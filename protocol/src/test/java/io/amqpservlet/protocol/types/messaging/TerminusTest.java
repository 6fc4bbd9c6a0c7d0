package io.amqpservlet.protocol.types.messaging;

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

class TerminusTest {
    private static byte[] map() {
        return bytes(w -> {
            w.startMap();
            w.writeSymbol(Capabilities.LIFETIME_POLICY);
            w.writeDescriptor(Descriptors.DELETE_ON_CLOSE);
            w.startList();
            w.endList();
            w.endMap();
        });
    }

    static Source fullSource() {
        Source s = new Source();
        s.address("requests").durable(TerminusDurability.UNSETTLED_STATE).expiryPolicy(TerminusExpiryPolicy.NEVER)
                .timeoutSeconds(0xFFFFFFFFL).dynamic(true);
        s.dynamicNodeProperties().set(map(), 0, map().length);
        s.distributionMode().set(Capabilities.DISTRIBUTION_COPY);
        s.filter().set(map(), 0, map().length);
        s.defaultOutcome().modified(true, true);
        s.outcomes().set(Symbol.of("amqp:accepted:list"), Symbol.of("amqp:rejected:list"));
        s.capabilities().set(Capabilities.QUEUE);
        return s;
    }

    @Test
    void sourceRoundTripsEveryField() {
        Source out = through(fullSource(), new Source());
        assertFalse(out.isNull());
        assertEquals("requests", out.address().toString());
        assertEquals(TerminusDurability.UNSETTLED_STATE, out.durable());
        assertEquals(TerminusExpiryPolicy.NEVER, out.expiryPolicy());
        assertEquals(0xFFFFFFFFL, out.timeoutSeconds());
        assertTrue(out.dynamic());
        assertArrayEquals(map(), out.dynamicNodeProperties().toByteArray());
        assertTrue(out.distributionMode().contentEquals(Capabilities.DISTRIBUTION_COPY));
        assertArrayEquals(map(), out.filter().toByteArray());
        assertEquals(DeliveryState.Kind.MODIFIED, out.defaultOutcome().kind());
        assertTrue(out.defaultOutcome().deliveryFailed());
        assertEquals(2, out.outcomes().size());
        assertTrue(out.capabilities().contains(Capabilities.QUEUE));
    }

    @Test
    void targetRoundTripsEveryField() {
        Target t = new Target();
        t.address("replies").durable(TerminusDurability.CONFIGURATION).expiryPolicy(TerminusExpiryPolicy.CONNECTION_CLOSE)
                .timeoutSeconds(30).dynamic(true);
        t.dynamicNodeProperties().set(map(), 0, map().length);
        t.capabilities().set(Capabilities.TEMPORARY_QUEUE);
        Target out = through(t, new Target());
        assertEquals("replies", out.address().toString());
        assertEquals(TerminusDurability.CONFIGURATION, out.durable());
        assertEquals(TerminusExpiryPolicy.CONNECTION_CLOSE, out.expiryPolicy());
        assertEquals(30, out.timeoutSeconds());
        assertTrue(out.dynamic());
        assertTrue(out.capabilities().contains(Capabilities.TEMPORARY_QUEUE));
    }

    @Test
    void emptyTerminusTakesDefaults() {
        assertArrayEquals(hex("00 53 29 45"), encode(new Target().present(true)));
        Source out = decode(hex("00 53 28 45"), new Source());
        assertFalse(out.isNull(), "an empty source is present");
        assertTrue(out.address().isNull());
        assertEquals(TerminusDurability.NONE, out.durable());
        assertEquals(TerminusExpiryPolicy.SESSION_END, out.expiryPolicy());
        assertEquals(0, out.timeoutSeconds());
        assertFalse(out.dynamic());
        assertTrue(out.defaultOutcome().isNull());
    }

    @Test
    void explicitDefaultExpiryPolicyDecodes() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.TARGET);
            w.startList();
            w.writeString("a");
            w.writeUInt(0);
            w.writeSymbol("session-end");
            w.endList();
        });
        assertEquals(TerminusExpiryPolicy.SESSION_END, decode(b, new Target()).expiryPolicy());
    }

    @Test
    void capabilitiesAcceptSingleSymbol() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.TARGET);
            w.startList();
            for (int i = 0; i < 6; i++) {
                w.writeNull();
            }
            w.writeSymbol(Capabilities.TEMPORARY_QUEUE);
            w.endList();
        });
        Target out = decode(b, new Target());
        assertEquals(1, out.capabilities().size());
        assertTrue(out.capabilities().contains(Capabilities.TEMPORARY_QUEUE));
    }

    @Test
    void reusedSourceDoesNotKeepOldValues() {
        Source reused = decode(encode(fullSource()), new Source());
        decode(hex("00 53 28 45"), reused);
        assertTrue(reused.address().isNull());
        assertEquals(TerminusDurability.NONE, reused.durable());
        assertEquals(TerminusExpiryPolicy.SESSION_END, reused.expiryPolicy());
        assertEquals(0, reused.timeoutSeconds());
        assertFalse(reused.dynamic());
        assertTrue(reused.dynamicNodeProperties().isNull());
        assertTrue(reused.distributionMode().isNull());
        assertTrue(reused.filter().isNull());
        assertTrue(reused.defaultOutcome().isNull());
        assertTrue(reused.outcomes().isNull());
        assertTrue(reused.capabilities().isNull());
    }

    @Test
    void undefinedExpiryPolicyReadsAsTheDefault() {
        // RabbitMQ's .NET client sends LINK_DETACH and SESSION_END: tolerated, read as session-end.
        for (String symbol : new String[] {"LINK_DETACH", "SESSION_END", "sometimes"}) {
            byte[] policy = bytes(w -> {
                w.writeDescriptor(Descriptors.SOURCE);
                w.startList();
                w.writeString("/management");
                w.writeNull();
                w.writeSymbol(symbol);
                w.writeUInt(0);
                w.endList();
            });
            Source out = decode(policy, new Source());
            assertEquals(TerminusExpiryPolicy.SESSION_END, out.expiryPolicy(), symbol);
            assertEquals("/management", out.address().toString());
        }
        byte[] notText = bytes(w -> {
            w.writeDescriptor(Descriptors.SOURCE);
            w.startList();
            w.writeNull();
            w.writeNull();
            w.writeUInt(7);
            w.endList();
        });
        assertThrows(io.amqpservlet.protocol.codec.DecodeException.class, () -> decode(notText, new Source()));
    }

    @Test
    void rejectsUndefinedDurability() {
        byte[] durable = bytes(w -> {
            w.writeDescriptor(Descriptors.SOURCE);
            w.startList();
            w.writeNull();
            w.writeUInt(3);
            w.endList();
        });
        assertThrows(InvalidEncodingException.class, () -> decode(durable, new Source()));
    }

    @Test
    void sourceTraces() {
        String trace = new Source().address("q").toString();
        assertTrue(trace.startsWith("@source(40) [address=\"q\", durable=0, expiry-policy=session-end"), trace);
    }
}
