package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.ReceiverSettleMode;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's direct transfer writer and reader agree byte for byte and field for field with the protocol
 * module's generic {@link Transfer} encoder and decoder, and the reader leaves every other shape (and every broken
 * body) to the generic decoder.
 */
class FirstTransferFrameTest {
    private static final int[] UINTS = {0, 1, 255, 256, 70_000, 0x80000000, 0xFFFFFFFF};

    private static byte[] generic(int channel, Transfer t, byte[] payload) {
        AmqpWriter w = new AmqpWriter();
        int start = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, channel);
        t.encode(w);
        FrameWriter.appendPayload(w, payload, 0, payload.length);
        FrameWriter.end(w, start);
        return w.toByteArray();
    }

    @Test
    void writesTheBytesTheGenericEncoderWrites() {
        byte[] tag = {1, 2, 3, 4, 5, 6, 7, 8};
        for (int handle : UINTS) {
            for (int id : UINTS) {
                for (boolean settled : new boolean[] {false, true}) {
                    for (int size : new int[] {0, 100}) {
                        byte[] payload = new byte[size];
                        Arrays.fill(payload, (byte) 'x');
                        Transfer t = new Transfer().handle(handle).deliveryId(id).deliveryTag(tag, 0, 8).messageFormat(0);
                        if (settled) {
                            t.settled(true);
                        }
                        AmqpWriter w = new AmqpWriter(16); // small: the writer must grow inside write
                        FirstTransferFrame.write(w, 3, handle, id, tag, 8, settled, payload, 0, size);
                        assertArrayEquals(generic(3, t, payload), w.toByteArray(), t.toString());
                    }
                }
            }
        }
    }

    /** Transfers as senders write them: the direct reader must read each. */
    private static List<Transfer> plainShapes() {
        byte[] tag = {9, 8, 7};
        List<Transfer> list = new ArrayList<>();
        for (int v : UINTS) {
            list.add(new Transfer().handle(v).deliveryId(v).deliveryTag(tag, 0, 3).messageFormat(v));
            list.add(new Transfer().handle(v).deliveryId(v).deliveryTag(tag, 0, 3).messageFormat(0).settled(true));
            list.add(new Transfer().handle(v).deliveryId(v).deliveryTag(tag, 0, 3).messageFormat(0).settled(false));
            list.add(new Transfer().handle(v).deliveryId(v).deliveryTag(tag, 0, 3).more(true));
        }
        list.add(new Transfer().handle(1)); // a continuation: handle only
        list.add(new Transfer().handle(1).more(true));
        list.add(new Transfer().handle(1).deliveryId(4)); // no tag
        list.add(new Transfer().handle(1).deliveryTag(new byte[0], 0, 0));
        list.add(new Transfer().handle(1).deliveryTag(new byte[200], 0, 200));
        return list;
    }

    /** Shapes the direct reader leaves to the generic decoder. */
    private static List<Transfer> otherShapes() {
        List<Transfer> list = new ArrayList<>();
        list.add(new Transfer().handle(1).deliveryId(2).aborted(true));
        list.add(new Transfer().handle(1).deliveryId(2).rcvSettleMode(ReceiverSettleMode.SECOND));
        list.add(new Transfer().handle(1).deliveryId(2).batchable(true));
        Transfer withState = new Transfer().handle(1).deliveryId(2);
        withState.state().accepted();
        list.add(withState);
        list.add(new Transfer().handle(1).deliveryTag(new byte[255], 0, 255)); // a list32
        return list;
    }

    private static int readDirectly(Transfer shape) {
        byte[] payload = {0x00, 0x53, 0x77, 0x40};
        byte[] frame = generic(0, shape, payload);
        int body = FrameHeader.SIZE;
        AmqpReader reader = new AmqpReader();
        reader.wrap(frame, body, frame.length - body);
        Transfer expected = (Transfer) new Performatives().decode(reader);
        Transfer actual = new Transfer();
        int payloadOffset = new FirstTransferReader().read(frame, body, frame.length, actual);
        if (payloadOffset >= 0) {
            assertEquals(expected.toString(), actual.toString());
            assertEquals(expected.hasDeliveryId(), actual.hasDeliveryId(), expected.toString());
            assertEquals(expected.hasMessageFormat(), actual.hasMessageFormat(), expected.toString());
            assertEquals(expected.hasSettled(), actual.hasSettled(), expected.toString());
            assertEquals(reader.position(), payloadOffset, expected.toString());
        }
        return payloadOffset;
    }

    @Test
    void readsWhatTheGenericDecoderReads() {
        for (Transfer shape : plainShapes()) {
            assertTrue(readDirectly(shape) >= 0, "left to the generic decoder: " + shape);
        }
    }

    @Test
    void leavesOtherShapesToTheGenericDecoder() {
        for (Transfer shape : otherShapes()) {
            assertEquals(-1, readDirectly(shape), shape.toString());
        }
    }

    @Test
    void leavesEveryTruncatedOrInconsistentBodyToTheGenericDecoder() {
        byte[] tag = {1, 2, 3, 4, 5, 6, 7, 8};
        Transfer t = new Transfer().handle(300).deliveryId(70_000).deliveryTag(tag, 0, 8).messageFormat(0).settled(true);
        byte[] frame = generic(0, t, new byte[0]);
        int body = FrameHeader.SIZE;
        for (int end = body; end < frame.length; end++) {
            assertEquals(-1, new FirstTransferReader().read(frame, body, end, new Transfer()), "cut at " + end);
        }
        // list8 size one short of the fields, and one beyond them (the fields then end before the list does).
        for (int delta : new int[] {-1, 1}) {
            byte[] bad = frame.clone();
            bad[body + 4] = (byte) (bad[body + 4] + delta);
            assertEquals(-1, new FirstTransferReader().read(bad, body, bad.length, new Transfer()),
                    "size off by " + delta);
        }
        // A count that does not match the fields present.
        byte[] bad = frame.clone();
        bad[body + 5] = 4;
        assertEquals(-1, new FirstTransferReader().read(bad, body, bad.length, new Transfer()));
        // A handle encoded as a ulong is legal AMQP only for ulong fields: the generic decoder judges it.
        byte[] ulong = frame.clone();
        ulong[body + 6] = (byte) 0x80;
        assertEquals(-1, new FirstTransferReader().read(ulong, body, ulong.length, new Transfer()));
    }
}
