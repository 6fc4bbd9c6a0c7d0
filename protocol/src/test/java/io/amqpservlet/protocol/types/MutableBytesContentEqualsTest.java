package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MutableBytes#contentEquals(String)}: exact UTF-8 comparison, without decoding the bytes to compare. */
class MutableBytesContentEqualsTest {
    private static MutableBytes bytes(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return new MutableBytes().set(b, 0, b.length);
    }

    @Test
    void asciiValuesMatchOnlyWhenEqual() {
        assertTrue(bytes("$me").contentEquals("$me"));
        assertFalse(bytes("amqp-servlet:1:node:1").contentEquals("$me"), "value shorter than the bytes");
        assertFalse(bytes("$me").contentEquals("$me/x"), "value longer than the bytes");
        assertFalse(bytes("$mf").contentEquals("$me"));
        assertTrue(bytes("").contentEquals(""));
        assertFalse(bytes("a").contentEquals(""));
        assertFalse(new MutableBytes().contentEquals("x"), "a null field");
        assertTrue(new MutableBytes().contentEquals((String) null));
    }

    @Test
    void nonAsciiValuesCompareByTheirUtf8Bytes() {
        assertTrue(bytes("köln").contentEquals("köln"));
        assertTrue(bytes("日本").contentEquals("日本"));
        assertTrue(bytes("a😀").contentEquals("a😀"));
        assertFalse(bytes("koeln").contentEquals("köln"), "same byte length, other text");
        assertFalse(bytes("köln!").contentEquals("köln"));
        assertFalse(bytes("kö").contentEquals("köln"));
        assertFalse(bytes("köln").contentEquals("koln"));
    }

    @Test
    void comparingWithAShorterValueDecodesNothing() {
        // The server asks every request's reply-to whether it is "$me": that must not turn the address into a String.
        byte[] address = "amqp-servlet:1:node:12345".getBytes(StandardCharsets.US_ASCII);
        MutableBytes replyTo = new MutableBytes();
        long allocated = AllocationMeter.bytesAllocatedBy(() -> replyTo.set(address, 0, address.length),
                () -> {
                    for (int i = 0; i < 1_000; i++) {
                        // A new value each time, as each request brings one (a decoded String is kept per value).
                        if (replyTo.set(address, 0, address.length).contentEquals("$me")) {
                            throw new AssertionError();
                        }
                    }
                });
        assertEquals(0, allocated);
    }
}
