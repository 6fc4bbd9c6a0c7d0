package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
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

class DeliveryStateTest {
    private static byte[] annotations() {
        return bytes(w -> {
            w.startMap();
            w.writeSymbol("x-opt-reason");
            w.writeString("retry");
            w.endMap();
        });
    }

    @Test
    void outcomesWithoutFieldsAreEmptyLists() {
        assertArrayEquals(hex("00 53 24 45"), encode(new DeliveryState().accepted()));
        assertArrayEquals(hex("00 53 26 45"), encode(new DeliveryState().released()));
        assertArrayEquals(hex("00 53 25 45"), encode(new DeliveryState().rejected()));
        assertArrayEquals(hex("00 53 27 45"), encode(new DeliveryState().modified(false, false)));
        assertEquals(DeliveryState.Kind.ACCEPTED, decode(hex("00 53 24 45"), new DeliveryState()).kind());
        assertEquals(DeliveryState.Kind.RELEASED, decode(hex("00 53 26 c0 01 00"), new DeliveryState()).kind());
    }

    @Test
    void receivedRoundTrips() {
        DeliveryState out = through(new DeliveryState().received(-1, -2L), new DeliveryState());
        assertEquals(DeliveryState.Kind.RECEIVED, out.kind());
        assertEquals(-1, out.sectionNumber());
        assertEquals(-2L, out.sectionOffset(), "ulong bits survive");
        assertFalse(out.isOutcome());
    }

    @Test
    void rejectedRoundTripsError() {
        DeliveryState in = new DeliveryState().rejected();
        in.error().condition(ErrorConditions.NOT_ALLOWED).description("400");
        DeliveryState out = through(in, new DeliveryState());
        assertEquals(DeliveryState.Kind.REJECTED, out.kind());
        assertTrue(out.error().is(ErrorConditions.NOT_ALLOWED));
        assertEquals("400", out.error().description().toString());
        assertTrue(out.isOutcome());
    }

    @Test
    void modifiedRoundTripsAllFields() {
        DeliveryState in = new DeliveryState().modified(true, true);
        in.messageAnnotations().set(annotations(), 0, annotations().length);
        DeliveryState out = through(in, new DeliveryState());
        assertTrue(out.deliveryFailed());
        assertTrue(out.undeliverableHere());
        assertArrayEquals(annotations(), out.messageAnnotations().toByteArray());
    }

    @Test
    void declaredAndTransactionalStateRoundTrip() {
        DeliveryState declared = new DeliveryState().declared();
        declared.txnId().set(new byte[] {1, 2, 3}, 0, 3);
        assertArrayEquals(new byte[] {1, 2, 3}, through(declared, new DeliveryState()).txnId().toByteArray());
        byte[] txn = bytes(w -> {
            w.writeDescriptor(Descriptors.TRANSACTIONAL_STATE);
            w.startList();
            w.writeBinary(new byte[] {4});
            w.writeDescriptor(Descriptors.ACCEPTED);
            w.startList();
            w.endList();
            w.endList();
        });
        DeliveryState out = decode(txn, new DeliveryState());
        assertEquals(DeliveryState.Kind.TRANSACTIONAL, out.kind());
        assertArrayEquals(txn, out.transactional().toByteArray());
        assertArrayEquals(txn, encode(out));
    }

    @Test
    void acceptsSymbolicDescriptors() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Symbol.of("amqp:modified:list"));
            w.startList();
            w.writeBoolean(true);
            w.endList();
        });
        DeliveryState out = decode(b, new DeliveryState());
        assertEquals(DeliveryState.Kind.MODIFIED, out.kind());
        assertTrue(out.deliveryFailed());
        assertFalse(out.undeliverableHere());
    }

    @Test
    void switchingKindForgetsPreviousFields() {
        DeliveryState reused = new DeliveryState().rejected();
        reused.error().condition(ErrorConditions.DECODE_ERROR);
        byte[] rejected = encode(reused);
        decode(rejected, reused);
        decode(hex("00 53 24 45"), reused);
        assertTrue(reused.error().isNull());
        DeliveryState modified = new DeliveryState().modified(true, true);
        modified.messageAnnotations().set(annotations(), 0, annotations().length);
        decode(encode(modified), reused);
        decode(hex("00 53 27 45"), reused);
        assertFalse(reused.deliveryFailed());
        assertFalse(reused.undeliverableHere());
        assertTrue(reused.messageAnnotations().isNull());
    }

    @Test
    void rejectsReceivedWithoutOffsetAndUnknownDescriptors() {
        byte[] received = bytes(w -> {
            w.writeDescriptor(Descriptors.RECEIVED);
            w.startList();
            w.writeUInt(1);
            w.endList();
        });
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class,
                () -> decode(received, new DeliveryState()));
        assertTrue(e.getMessage().contains("received: mandatory field section-offset is null"), e.getMessage());
        assertThrows(UnexpectedTypeException.class, () -> decode(hex("00 53 28 45"), new DeliveryState()));
        assertThrows(UnexpectedTypeException.class, () -> decode(hex("00 53 24 c1 01 00"), new DeliveryState()));
        assertThrows(UnexpectedTypeException.class, () -> decode(hex("45"), new DeliveryState()));
    }

    @Test
    void traces() {
        assertEquals("@accepted(36) []", new DeliveryState().accepted().toString());
        assertEquals("@modified(39) [delivery-failed=true, undeliverable-here=false]",
                new DeliveryState().modified(true, false).toString());
        assertEquals("null", new DeliveryState().toString());
    }
}
