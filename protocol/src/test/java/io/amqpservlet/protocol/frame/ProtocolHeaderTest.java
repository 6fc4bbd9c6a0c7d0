package io.amqpservlet.protocol.frame;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProtocolHeaderTest {
    @Test
    void writesTheGoldenBytesOfEachLayer() {
        // AMQP 1.0 §2.2, §5.2.1, §5.3.1: 'A' 'M' 'Q' 'P' id major minor revision
        assertArrayEquals(new byte[] {0x41, 0x4D, 0x51, 0x50, 0, 1, 0, 0}, ProtocolHeader.AMQP.toByteArray());
        assertArrayEquals(new byte[] {0x41, 0x4D, 0x51, 0x50, 2, 1, 0, 0}, ProtocolHeader.TLS.toByteArray());
        assertArrayEquals(new byte[] {0x41, 0x4D, 0x51, 0x50, 3, 1, 0, 0}, ProtocolHeader.SASL.toByteArray());
        byte[] dst = new byte[10];
        assertEquals(9, ProtocolHeader.SASL.writeTo(dst, 1));
        assertEquals(3, dst[5]);
    }

    @Test
    void parsesSupportedHeadersToTheConstants() {
        byte[] bytes = {9, 0x41, 0x4D, 0x51, 0x50, 3, 1, 0, 0};
        assertSame(ProtocolHeader.SASL, ProtocolHeader.parse(bytes, 1));
        assertSame(ProtocolHeader.AMQP, ProtocolHeader.parse(ProtocolHeader.AMQP.toByteArray(), 0));
        assertTrue(ProtocolHeader.TLS.isSupported());
    }

    @Test
    void tellsUnsupportedAmqpFromNotAmqp() {
        ProtocolHeader v010 = ProtocolHeader.parse(new byte[] {0x41, 0x4D, 0x51, 0x50, 1, 1, 0, 10}, 0);
        assertFalse(v010.isSupported(), "AMQP 0-10 style header");
        assertEquals(1, v010.protocolId());
        assertEquals(10, v010.revision());
        assertFalse(ProtocolHeader.parse(new byte[] {0x41, 0x4D, 0x51, 0x50, 0, 1, 1, 0}, 0).isSupported());

        byte[] http = "GET / HTTP/1.1".getBytes(StandardCharsets.US_ASCII);
        FramingException e = assertThrows(FramingException.class, () -> ProtocolHeader.parse(http, 0));
        assertTrue(e.getMessage().contains("\"GET / HT\""), e.getMessage());
        assertEquals(0, e.offset());
    }

    @Test
    void prefixCheckRejectsEarly() {
        byte[] tlsHello = {0x16, 0x03, 0x01};
        assertFalse(ProtocolHeader.isAmqpPrefix(tlsHello, 0, 1));
        byte[] partial = {'A', 'M'};
        assertTrue(ProtocolHeader.isAmqpPrefix(partial, 0, 2));
        assertTrue(ProtocolHeader.isAmqpPrefix(new byte[0], 0, 0));
    }
}
