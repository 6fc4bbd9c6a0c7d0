package io.amqpservlet.protocol.frame;

import io.amqpservlet.protocol.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameReaderTest {
    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    // Hand-assembled: open(container-id "c") on channel 0, 17 bytes.
    private static final byte[] OPEN = bytes(0, 0, 0, 0x11, 2, 0, 0, 0, 0x00, 0x53, 0x10, 0xC0, 0x04, 0x01, 0xA1, 0x01, 'c');
    private static final byte[] HEARTBEAT = bytes(0, 0, 0, 8, 2, 0, 0, 0);
    // DOFF 3: four bytes of extended header to skip, a 2-byte body, channel 0x0105.
    private static final byte[] EXTENDED = bytes(0, 0, 0, 14, 3, 0, 1, 5, 0xEE, 0xEE, 0xEE, 0xEE, 0x41, 0x42);
    // A SASL frame (type 1) with a 3-byte body.
    private static final byte[] SASL = bytes(0, 0, 0, 11, 2, 1, 0, 0, 0x00, 0x53, 0x40);

    @Test
    void readsAHandAssembledFrame() {
        FrameReader reader = new FrameReader(4096);
        byte[] buf = new byte[OPEN.length + 3];
        System.arraycopy(OPEN, 0, buf, 3, OPEN.length);
        assertTrue(reader.read(buf, 3, OPEN.length));
        assertEquals(17, reader.frameSize());
        assertEquals(FrameHeader.TYPE_AMQP, reader.type());
        assertEquals(0, reader.channel());
        assertEquals(11, reader.bodyOffset());
        assertEquals(9, reader.bodyLength());
        assertFalse(reader.isEmpty());
    }

    @Test
    void skipsTheExtendedHeaderAndReadsChannelAndType() {
        FrameReader reader = new FrameReader(4096);
        assertTrue(reader.read(EXTENDED, 0, EXTENDED.length));
        assertEquals(12, reader.bodyOffset());
        assertEquals(2, reader.bodyLength());
        assertEquals(0x0105, reader.channel());
        assertTrue(reader.read(SASL, 0, SASL.length));
        assertEquals(FrameHeader.TYPE_SASL, reader.type());
    }

    @Test
    void emptyFrameIsAHeartbeat() {
        FrameReader reader = new FrameReader(4096);
        assertTrue(reader.read(HEARTBEAT, 0, 8));
        assertTrue(reader.isEmpty());
        assertEquals(8, reader.frameSize());
    }

    @Test
    void reportsExactlyHowManyBytesAreMissing() {
        FrameReader reader = new FrameReader(4096);
        assertFalse(reader.read(OPEN, 0, 3));
        assertEquals(5, reader.bytesNeeded(), "the rest of the header first");
        assertFalse(reader.read(OPEN, 0, 8));
        assertEquals(9, reader.bytesNeeded(), "then the rest of the frame");
        assertFalse(reader.read(OPEN, 0, 16));
        assertEquals(1, reader.bytesNeeded());
        assertTrue(reader.read(OPEN, 0, 17));
    }

    private static byte[] stream() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(SASL);
        out.writeBytes(OPEN);
        out.writeBytes(HEARTBEAT);
        out.writeBytes(EXTENDED);
        out.writeBytes(HEARTBEAT);
        out.writeBytes(OPEN);
        return out.toByteArray();
    }

    @Test
    void splittingAtEveryByteBoundaryGivesTheSameFrames() {
        byte[] stream = stream();
        for (int cut = 0; cut <= stream.length; cut++) {
            byte[] buf = new byte[stream.length];
            FrameReader reader = new FrameReader(4096);
            int at = 0;
            int count = 0;
            System.arraycopy(stream, 0, buf, 0, cut);
            while (reader.read(buf, at, cut - at)) {
                at += reader.frameSize();
                count++;
            }
            int missing = reader.bytesNeeded();
            System.arraycopy(stream, cut, buf, cut, stream.length - cut);
            if (cut < stream.length) {
                assertTrue(missing <= stream.length - cut, "needs no more than what is still to come");
            }
            while (reader.read(buf, at, stream.length - at)) {
                at += reader.frameSize();
                count++;
            }
            assertEquals(6, count, "cut at " + cut);
            assertEquals(stream.length, at);
        }
    }

    private static FramingException rejected(FrameReader reader, int... header) {
        byte[] bytes = new byte[2 + header.length];
        System.arraycopy(bytes(header), 0, bytes, 2, header.length);
        return assertThrows(FramingException.class, () -> reader.read(bytes, 2, header.length));
    }

    @Test
    void rejectsEachFramingError() {
        FrameReader reader = new FrameReader(4096);
        FramingException small = rejected(reader, 0, 0, 0, 7, 2, 0, 0, 0);
        assertEquals(2, small.offset());
        assertTrue(small.getMessage().contains("below the 8-byte header"), small.getMessage());
        assertEquals(6, rejected(reader, 0, 0, 0, 8, 1, 0, 0, 0).offset(), "doff below 2");
        assertEquals(6, rejected(reader, 0, 0, 0, 8, 0, 0, 0, 0).offset(), "doff 0");
        FramingException beyond = rejected(reader, 0, 0, 0, 8, 3, 0, 0, 0);
        assertTrue(beyond.getMessage().contains("beyond the frame size"), beyond.getMessage());
        FramingException type = rejected(reader, 0, 0, 0, 8, 2, 2, 0, 0);
        assertEquals(7, type.offset());
        assertTrue(type.getMessage().contains("unknown frame type 0x2"), type.getMessage());
        rejected(reader, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0);
    }

    @Test
    void enforces512BytesBeforeOpenAndTheConfiguredLimitAfter() {
        FrameReader reader = new FrameReader(1024);
        assertEquals(512, reader.limitBytes());
        FramingException e = rejected(reader, 0, 0, 0x02, 0x01, 2, 0, 0, 0);
        assertTrue(e.getMessage().contains("exceeds the max-frame-size of 512 that applies before open"),
                e.getMessage());
        assertFalse(reader.read(bytes(0, 0, 0x02, 0x00, 2, 0, 0, 0), 0, 8), "512 is allowed, and needs its body");
        reader.useNegotiatedLimit();
        assertFalse(reader.read(bytes(0, 0, 0x04, 0x00, 2, 0, 0, 0), 0, 8), "1024 now allowed");
        assertEquals(1016, reader.bytesNeeded());
        assertTrue(rejected(reader, 0, 0, 0x04, 0x01, 2, 0, 0, 0).getMessage().contains("of 1024"));
        reader.reset();
        assertEquals(512, reader.limitBytes());
        assertThrows(IllegalArgumentException.class, () -> new FrameReader(511));
    }

    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    @Test
    void readingFramesAllocatesNothing() {
        byte[] stream = stream();
        FrameReader reader = new FrameReader(4096);
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                sink += readAll(reader, stream);
            }
        };
        loop.run();
        loop.run();
        loop.run();
        assertEquals(30_000 * readAll(reader, stream), sink, "every pass reads the same frames");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }

    private static long readAll(FrameReader reader, byte[] stream) {
        long sum = 0;
        for (int at = 0; reader.read(stream, at, stream.length - at); at += reader.frameSize()) {
            sum += reader.bodyLength() + reader.channel() + reader.type();
        }
        return sum;
    }
}
