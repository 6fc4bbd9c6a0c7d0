package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.messaging.TerminusExpiryPolicy;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.bytes;
import static io.amqpservlet.protocol.types.RoundTrip.decode;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.through;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AttachTest {
    static Attach full() {
        Attach attach = new Attach().name("link-1").handle(3).role(Role.RECEIVER)
                .sndSettleMode(SenderSettleMode.SETTLED).rcvSettleMode(ReceiverSettleMode.SECOND)
                .incompleteUnsettled(true).initialDeliveryCount(-5).maxMessageSize(1L << 40);
        attach.source().address("queue/a").dynamic(true).expiryPolicy(TerminusExpiryPolicy.LINK_DETACH);
        attach.source().outcomes().set(Symbol.of("amqp:accepted:list"));
        attach.source().defaultOutcome().released();
        attach.target().address("queue/b").timeoutSeconds(60);
        attach.target().capabilities().set(Capabilities.TEMPORARY_QUEUE);
        byte[] map = bytes(w -> {
            w.startMap();
            w.writeBinary(new byte[] {1});
            w.writeDescriptor(Descriptors.ACCEPTED);
            w.startList();
            w.endList();
            w.endMap();
        });
        attach.unsettled().set(map, 0, map.length);
        attach.offeredCapabilities().set(Symbol.of("o"));
        attach.desiredCapabilities().set(Symbol.of("d"));
        attach.properties().set(map, 0, map.length);
        return attach;
    }

    @Test
    void roundTripsEveryFieldWithSourceAndTarget() {
        Attach out = through(full(), new Attach());
        assertEquals("link-1", out.name().toString());
        assertEquals(3, out.handle());
        assertEquals(Role.RECEIVER, out.role());
        assertEquals(SenderSettleMode.SETTLED, out.sndSettleMode());
        assertEquals(ReceiverSettleMode.SECOND, out.rcvSettleMode());
        assertEquals("queue/a", out.source().address().toString());
        assertTrue(out.source().dynamic());
        assertEquals(TerminusExpiryPolicy.LINK_DETACH, out.source().expiryPolicy());
        assertEquals(io.amqpservlet.protocol.types.messaging.DeliveryState.Kind.RELEASED, out.source().defaultOutcome().kind());
        assertEquals("queue/b", out.target().address().toString());
        assertEquals(60, out.target().timeoutSeconds());
        assertTrue(out.target().capabilities().contains(Capabilities.TEMPORARY_QUEUE));
        assertFalse(out.unsettled().isNull());
        assertTrue(out.incompleteUnsettled());
        assertEquals(-5, out.initialDeliveryCount());
        assertEquals(1L << 40, out.maxMessageSize());
        assertTrue(out.offeredCapabilities().contains(Symbol.of("o")));
        assertTrue(out.desiredCapabilities().contains(Symbol.of("d")));
        assertFalse(out.properties().isNull());
    }

    @Test
    void mandatoryOnlyHasDefaultsAndNullTermini() {
        Attach out = through(new Attach().name("n").handle(0).role(Role.SENDER), new Attach());
        assertEquals(3, encode(out)[5], "list8 of three fields: name, handle, role");
        assertEquals(SenderSettleMode.MIXED, out.sndSettleMode());
        assertEquals(ReceiverSettleMode.FIRST, out.rcvSettleMode());
        assertTrue(out.source().isNull());
        assertTrue(out.target().isNull());
        assertFalse(out.hasInitialDeliveryCount());
        assertFalse(out.hasMaxMessageSize());
        assertFalse(out.incompleteUnsettled());
    }

    @Test
    void nullTargetWithSourceKeepsTargetAbsent() {
        Attach in = new Attach().name("anon").handle(1).role(Role.SENDER).initialDeliveryCount(0);
        in.source().address("client");
        Attach out = through(in, new Attach());
        assertFalse(out.source().isNull());
        assertTrue(out.target().isNull(), "ANONYMOUS-RELAY senders attach with a null target");
        assertTrue(out.hasInitialDeliveryCount());
    }

    @Test
    void coordinatorTargetIsKeptRaw() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.ATTACH);
            w.startList();
            w.writeString("txn");
            w.writeUInt(0);
            w.writeBoolean(false);
            w.writeNull();
            w.writeNull();
            w.writeNull();
            w.writeDescriptor(Descriptors.COORDINATOR);
            w.startList();
            w.endList();
            w.endList();
        });
        Attach out = decode(b, new Attach());
        assertTrue(out.target().isNull());
        assertFalse(out.coordinator().isNull());
        assertEquals(Descriptors.COORDINATOR, decode(encode(out), new Attach()).coordinator().array()[2]);
    }

    @Test
    void aNameThatIsNotAStringIsRefused() {
        // A binary name would be echoed in the answering attach as a string, UTF-8 or not.
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.ATTACH);
            w.startList();
            w.writeBinary(new byte[] {'n', (byte) 0x97});
            w.writeUInt(0);
            w.writeBoolean(false);
            w.endList();
        });
        assertThrows(UnexpectedTypeException.class, () -> decode(b, new Attach()));
    }

    @Test
    void reusedInstanceDoesNotKeepOldValues() {
        Attach reused = decode(encode(full()), new Attach());
        decode(encode(new Attach().name("n").handle(9).role(Role.SENDER)), reused);
        assertEquals(Role.SENDER, reused.role());
        assertEquals(SenderSettleMode.MIXED, reused.sndSettleMode());
        assertEquals(ReceiverSettleMode.FIRST, reused.rcvSettleMode());
        assertTrue(reused.source().isNull());
        assertTrue(reused.source().address().isNull());
        assertTrue(reused.source().defaultOutcome().isNull());
        assertTrue(reused.target().isNull());
        assertTrue(reused.target().capabilities().isNull());
        assertTrue(reused.unsettled().isNull());
        assertFalse(reused.incompleteUnsettled());
        assertFalse(reused.hasInitialDeliveryCount());
        assertFalse(reused.hasMaxMessageSize());
        assertTrue(reused.offeredCapabilities().isNull());
        assertTrue(reused.properties().isNull());
        assertNull(reused.source().address().toString());
    }

    @Test
    void rejectsNullRole() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.ATTACH);
            w.startList();
            w.writeString("n");
            w.writeUInt(0);
            w.endList();
        });
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class, () -> decode(b, new Attach()));
        assertTrue(e.getMessage().contains("attach: mandatory field role is null"), e.getMessage());
    }

    @Test
    void rejectsUndefinedSettleMode() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.ATTACH);
            w.startList();
            w.writeString("n");
            w.writeUInt(0);
            w.writeBoolean(true);
            w.writeUByte(3);
            w.endList();
        });
        assertThrows(InvalidEncodingException.class, () -> decode(b, new Attach()));
    }

    @Test
    void rejectsSourceOfWrongDescriptor() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.ATTACH);
            w.startList();
            w.writeString("n");
            w.writeUInt(0);
            w.writeBoolean(true);
            w.writeNull();
            w.writeNull();
            w.writeDescriptor(Descriptors.TARGET);
            w.startList();
            w.endList();
            w.endList();
        });
        assertThrows(UnexpectedTypeException.class, () -> decode(b, new Attach()));
    }
}
