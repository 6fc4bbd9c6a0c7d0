package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.bytes;
import static io.amqpservlet.protocol.types.RoundTrip.decode;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.hex;
import static io.amqpservlet.protocol.types.RoundTrip.through;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransferTest {
    static Transfer full() {
        Transfer transfer = new Transfer().handle(1).deliveryId(-7).deliveryTag(new byte[] {0, 1, 2, 3}, 0, 4)
                .messageFormat(0x1234).settled(false).more(true).rcvSettleMode(ReceiverSettleMode.SECOND)
                .resume(true).aborted(true).batchable(true);
        transfer.state().received(3, 1L << 33);
        return transfer;
    }

    @Test
    void roundTripsEveryField() {
        Transfer out = through(full(), new Transfer());
        assertEquals(1, out.handle());
        assertEquals(-7, out.deliveryId());
        assertArrayEquals(new byte[] {0, 1, 2, 3}, out.deliveryTag().toByteArray());
        assertEquals(0x1234, out.messageFormat());
        assertTrue(out.hasSettled());
        assertFalse(out.settled());
        assertTrue(out.more());
        assertEquals(ReceiverSettleMode.SECOND, out.rcvSettleMode());
        assertEquals(DeliveryState.Kind.RECEIVED, out.state().kind());
        assertEquals(3, out.state().sectionNumber());
        assertEquals(1L << 33, out.state().sectionOffset());
        assertTrue(out.resume());
        assertTrue(out.aborted());
        assertTrue(out.batchable());
    }

    @Test
    void firstFrameOfPresettledMessageIsCompact() {
        // handle 0, delivery-id 5, tag 1 byte, message-format 0, settled true.
        byte[] expected = hex("00 53 14 c0 09 05 43 52 05 a0 01 07 43 41");
        Transfer transfer = new Transfer().handle(0).deliveryId(5).deliveryTag(new byte[] {7}, 0, 1)
                .messageFormat(0).settled(true);
        assertArrayEquals(expected, encode(transfer));
    }

    @Test
    void continuationFrameHasOnlyHandle() {
        Transfer out = decode(hex("00 53 14 c0 02 01 43"), new Transfer());
        assertEquals(0, out.handle());
        assertFalse(out.hasDeliveryId());
        assertTrue(out.deliveryTag().isNull());
        assertFalse(out.hasMessageFormat());
        assertFalse(out.hasSettled());
        assertFalse(out.more());
        assertNull(out.rcvSettleMode());
        assertTrue(out.state().isNull());
        assertFalse(out.aborted());
    }

    @Test
    void reusedInstanceDoesNotKeepOldValues() {
        Transfer reused = decode(encode(full()), new Transfer());
        decode(hex("00 53 14 c0 02 01 43"), reused);
        assertFalse(reused.hasDeliveryId());
        assertTrue(reused.deliveryTag().isNull());
        assertFalse(reused.hasMessageFormat());
        assertFalse(reused.hasSettled());
        assertFalse(reused.more());
        assertNull(reused.rcvSettleMode());
        assertTrue(reused.state().isNull());
        assertEquals(0, reused.state().sectionNumber());
        assertFalse(reused.resume());
        assertFalse(reused.aborted());
        assertFalse(reused.batchable());
    }

    @Test
    void rejectsStringDeliveryId() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.TRANSFER);
            w.startList();
            w.writeUInt(0);
            w.writeString("1");
            w.endList();
        });
        assertThrows(UnexpectedTypeException.class, () -> decode(b, new Transfer()));
    }

    @Test
    void rejectsStateThatIsNotADeliveryState() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.TRANSFER);
            w.startList();
            w.writeUInt(0);
            for (int i = 0; i < 6; i++) {
                w.writeNull();
            }
            w.writeDescriptor(Descriptors.SOURCE);
            w.startList();
            w.endList();
            w.endList();
        });
        assertThrows(UnexpectedTypeException.class, () -> decode(b, new Transfer()));
    }

    @Test
    void tracesDeliveryTagAsEscapedBinary() {
        String trace = new Transfer().handle(0).deliveryTag(new byte[] {'a', 0}, 0, 2).toString();
        assertTrue(trace.contains("delivery-tag=b\"a\\x00\""), trace);
    }
}
