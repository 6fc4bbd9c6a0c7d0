package io.amqpservlet.protocol.frame;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameWriterTest {
    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    @Test
    void writesAnOpenFrameToTheGoldenBytes() {
        AmqpWriter writer = new AmqpWriter();
        int start = FrameWriter.begin(writer, FrameHeader.TYPE_AMQP, 0);
        writer.writeDescriptor(0x10); // open, AMQP 1.0 §2.7.1
        writer.startList();
        writer.writeString("c");
        writer.endList();
        assertEquals(17, FrameWriter.end(writer, start));
        assertArrayEquals(bytes(0, 0, 0, 0x11, 2, 0, 0, 0, 0x00, 0x53, 0x10, 0xC0, 0x04, 0x01, 0xA1, 0x01, 'c'),
                writer.toByteArray());
    }

    @Test
    void appendsPayloadAfterThePerformativeAndReadsBack() {
        AmqpWriter writer = new AmqpWriter(16);
        FrameWriter.writeEmpty(writer);
        byte[] payload = new byte[300];
        Arrays.fill(payload, (byte) 7);
        int start = FrameWriter.begin(writer, FrameHeader.TYPE_AMQP, 0xBEEF);
        writer.writeDescriptor(0x14); // transfer
        writer.startList();
        writer.writeUInt(1);
        writer.endList();
        FrameWriter.appendPayload(writer, payload, 0, payload.length);
        int size = FrameWriter.end(writer, start);

        byte[] out = writer.toByteArray();
        assertArrayEquals(bytes(0, 0, 0, 8, 2, 0, 0, 0), Arrays.copyOf(out, 8), "heartbeat first");
        FrameReader reader = new FrameReader(4096);
        reader.useNegotiatedLimit();
        assertTrue(reader.read(out, 0, out.length));
        assertTrue(reader.isEmpty());
        assertTrue(reader.read(out, 8, out.length - 8));
        assertEquals(size, reader.frameSize());
        assertEquals(0xBEEF, reader.channel());
        AmqpReader body = new AmqpReader().wrap(out, reader.bodyOffset(), reader.bodyLength());
        body.next();
        assertEquals(0x14, body.descriptorCode());
        int payloadAt = body.valueEnd();
        assertEquals(300, reader.bodyOffset() + reader.bodyLength() - payloadAt);
        assertEquals(7, out[out.length - 1]);
    }

    @Test
    void writesIntoACallersArray() {
        byte[] target = new byte[32];
        AmqpWriter writer = new AmqpWriter().wrap(target, 4, 28);
        int start = FrameWriter.begin(writer, FrameHeader.TYPE_SASL, 0);
        writer.writeDescriptor(0x44); // sasl-outcome
        writer.startList();
        writer.writeUByte(0);
        writer.endList();
        FrameWriter.end(writer, start);
        assertEquals(4, start);
        assertArrayEquals(bytes(0, 0, 0, 16, 2, 1, 0, 0, 0x00, 0x53, 0x44, 0xC0, 0x03, 0x01, 0x50, 0x00),
                Arrays.copyOfRange(target, 4, 20));
    }

    @Test
    void refusesFramesOverThePeersLimitAndUnfinishedValues() {
        AmqpWriter writer = new AmqpWriter();
        int start = FrameWriter.begin(writer, FrameHeader.TYPE_AMQP, 0);
        FrameWriter.appendPayload(writer, new byte[600], 0, 600);
        assertThrows(IllegalArgumentException.class, () -> FrameWriter.end(writer, start, 512));
        assertEquals(0, writer.length(), "the refused frame is removed");

        int again = FrameWriter.begin(writer, FrameHeader.TYPE_AMQP, 0);
        writer.startList();
        assertThrows(IllegalStateException.class, () -> FrameWriter.end(writer, again));
        assertThrows(IllegalArgumentException.class, () -> FrameWriter.begin(new AmqpWriter(), 0, 65536));
    }
}
