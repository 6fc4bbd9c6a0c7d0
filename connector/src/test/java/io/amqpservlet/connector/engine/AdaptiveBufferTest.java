package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.frame.FrameReader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdaptiveBufferTest {
    private static final long IDLE = 1_000_000_000L;

    private static void fill(AdaptiveBuffer buffer, int n, int firstValue) {
        ByteBuffer view = buffer.fillModeView();
        for (int i = 0; i < n; i++) {
            view.put((byte) (firstValue + i));
        }
        buffer.commitWrite(n);
    }

    @Test
    void fillAndConsumeMoveTheIndexesAndReturnToZeroWhenEmpty() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 1024, IDLE);
        fill(buffer, 10, 0);
        assertEquals(10, buffer.readable());
        assertEquals(54, buffer.writable());
        buffer.consume(4);
        assertEquals(4, buffer.readIndex());
        assertEquals(4, buffer.array()[buffer.readIndex()]);
        ByteBuffer flush = buffer.flushModeView();
        assertEquals(4, flush.position());
        assertEquals(10, flush.limit());
        buffer.consume(6);
        assertEquals(0, buffer.readIndex());
        assertEquals(0, buffer.writeIndex());
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.consume(1));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.commitWrite(65));
    }

    @Test
    void ensureWritableCompactsWhenThatIsEnough() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 1024, IDLE);
        fill(buffer, 60, 0);
        buffer.consume(50);
        byte[] before = buffer.array();
        buffer.ensureWritable(40);
        assertSame(before, buffer.array(), "no growth needed");
        assertEquals(0, buffer.readIndex());
        assertEquals(10, buffer.readable());
        assertEquals(50, buffer.array()[0], "unread bytes moved to the front");
    }

    @Test
    void growsToAPowerOfTwoKeepingUnreadBytes() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 1000, IDLE);
        fill(buffer, 64, 0);
        buffer.consume(14);
        buffer.ensureWritable(100);
        assertEquals(256, buffer.capacity(), "50 unread + 100 rounds up to 256");
        assertEquals(50, buffer.readable());
        assertEquals(14, buffer.array()[buffer.readIndex()]);
        assertEquals(63, buffer.array()[buffer.writeIndex() - 1]);
        buffer.ensureWritable(900);
        assertEquals(1000, buffer.capacity(), "capped at the max, not the next power of two");
    }

    @Test
    void refusesToGrowBeyondMaxAndStaysUsable() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 256, IDLE);
        fill(buffer, 10, 0);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> buffer.ensureWritable(247));
        assertTrue(e.getMessage().contains("max of 256"), e.getMessage());
        assertEquals(64, buffer.capacity());
        assertEquals(10, buffer.readable());
        buffer.ensureWritable(246);
        assertEquals(256, buffer.capacity());
    }

    @Test
    void shrinksAfterIdleDelay() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 4096, IDLE);
        buffer.ensureWritable(1000);
        fill(buffer, 1000, 0);
        buffer.consume(1000);
        long t0 = 5_000_000_000L;
        assertFalse(buffer.maybeShrink(t0), "the first check records the large use");
        assertEquals(t0, buffer.lastNeededLargeNanos());
        assertFalse(buffer.maybeShrink(t0 + IDLE - 1));
        assertTrue(buffer.maybeShrink(t0 + IDLE));
        assertEquals(64, buffer.capacity());
        assertFalse(buffer.maybeShrink(t0 + 10 * IDLE), "already small");
    }

    @Test
    void shrinkCopiesAFewUnreadBytes() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 4096, IDLE);
        buffer.ensureWritable(500);
        fill(buffer, 500, 0);
        buffer.consume(490);
        buffer.maybeShrink(0);
        assertTrue(buffer.maybeShrink(IDLE));
        assertEquals(10, buffer.readable());
        assertEquals((byte) 490, buffer.array()[buffer.readIndex()]);
    }

    @Test
    void doesNotShrinkWhileBusyWithLargeFrames() {
        AdaptiveBuffer buffer = new AdaptiveBuffer(64, 4096, IDLE);
        long now = 0;
        for (int cycle = 0; cycle < 10; cycle++) {
            buffer.ensureWritable(300);
            fill(buffer, 300, 0);
            buffer.consume(300);
            now += IDLE;
            assertFalse(buffer.maybeShrink(now), "cycle " + cycle);
        }
        buffer.ensureWritable(300);
        fill(buffer, 300, 0);
        now += 2 * IDLE;
        buffer.maybeShrink(now);
        assertFalse(buffer.maybeShrink(now + 5 * IDLE), "unread bytes that need the large size are kept");
        assertEquals(512, buffer.capacity());
    }

    @Test
    void rejectsNonsenseSizes() {
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveBuffer(0, 10, IDLE));
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveBuffer(64, 32, IDLE));
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveBuffer(64, 128, -1));
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    /**
     * Six hand-assembled frames: SASL (type 1, 3-byte body), open(container-id "c") on channel 0, a heartbeat, a
     * frame with DOFF 3 (four bytes of extended header, a 2-byte body, channel 0x0105), a heartbeat, the open again.
     */
    private static byte[] frames() {
        byte[] open = bytes(0, 0, 0, 0x11, 2, 0, 0, 0, 0x00, 0x53, 0x10, 0xC0, 0x04, 0x01, 0xA1, 0x01, 'c');
        byte[] heartbeat = bytes(0, 0, 0, 8, 2, 0, 0, 0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(bytes(0, 0, 0, 11, 2, 1, 0, 0, 0x00, 0x53, 0x40));
        out.writeBytes(open);
        out.writeBytes(heartbeat);
        out.writeBytes(bytes(0, 0, 0, 14, 3, 0, 1, 5, 0xEE, 0xEE, 0xEE, 0xEE, 0x41, 0x42));
        out.writeBytes(heartbeat);
        out.writeBytes(open);
        return out.toByteArray();
    }

    private static String describe(FrameReader reader, byte[] array) {
        return reader.type() + "/" + reader.channel() + "/" + Arrays.toString(
                Arrays.copyOfRange(array, reader.bodyOffset(), reader.bodyOffset() + reader.bodyLength()));
    }

    @Test
    void holdsSplitFramesForTheFrameReaderWhateverTheChunkSize() {
        byte[] stream = frames();
        FrameReader whole = new FrameReader(4096);
        List<String> expected = new ArrayList<>();
        for (int at = 0; whole.read(stream, at, stream.length - at); at += whole.frameSize()) {
            expected.add(describe(whole, stream));
        }
        assertEquals(6, expected.size());

        for (int chunk = 1; chunk <= stream.length; chunk++) {
            // A small adaptive buffer, so that split frames also exercise compacting and growing.
            AdaptiveBuffer buffer = new AdaptiveBuffer(8, 64, 1);
            FrameReader reader = new FrameReader(4096);
            List<String> frames = new ArrayList<>();
            for (int sent = 0; sent < stream.length; ) {
                buffer.ensureWritable(Math.max(1, reader.bytesNeeded()));
                int n = Math.min(Math.min(chunk, stream.length - sent), buffer.writable());
                System.arraycopy(stream, sent, buffer.array(), buffer.writeIndex(), n);
                buffer.commitWrite(n);
                sent += n;
                while (reader.read(buffer.array(), buffer.readIndex(), buffer.readable())) {
                    frames.add(describe(reader, buffer.array()));
                    buffer.consume(reader.frameSize());
                }
                assertTrue(reader.bytesNeeded() > 0);
            }
            assertEquals(expected, frames, "chunks of " + chunk);
            assertEquals(0, buffer.readable());
        }
    }
}
