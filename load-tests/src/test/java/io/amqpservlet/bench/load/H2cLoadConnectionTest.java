package io.amqpservlet.bench.load;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The HPACK pieces of the h2c connection (RFC 7541), on hand-made header blocks. */
class H2cLoadConnectionTest {
    private static int status(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return H2cLoadConnection.status(b, 0, b.length);
    }

    @Test
    void statusFromTheStaticTableOrALiteral() {
        assertEquals(200, status(0x88));
        assertEquals(404, status(0x8d, 0x5f, 0x00));
        assertEquals(503, status(0x08, 0x03, '5', '0', '3')); // literal without indexing, name :status
        assertEquals(503, status(0x48, 0x03, '5', '0', '3')); // literal with incremental indexing
        assertEquals(200, status(0x3f, 0xe1, 0x1f, 0x88)); // a dynamic table size update first (4096)
        assertEquals(-1, status(0x08, 0x82, 0x10, 0x01)); // Huffman-coded value: not read
        assertEquals(-1, status(0x82)); // not a status
        assertEquals(-1, status(0x08, 0x03, '5'));
    }

    @Test
    void integersUseTheirPrefixThenSevenBitGroups() {
        ByteBuffer b = ByteBuffer.allocate(8);
        H2cLoadConnection.integer(b, 0x00, 4, 31); // content-type's static index
        assertArrayEquals(new byte[] {0x0f, 0x10}, java.util.Arrays.copyOf(b.array(), b.position()));
        b.clear();
        H2cLoadConnection.integer(b, 0x00, 5, 1337); // RFC 7541 C.1.2
        assertArrayEquals(new byte[] {0x1f, (byte) 0x9a, 0x0a}, java.util.Arrays.copyOf(b.array(), b.position()));
    }
}
