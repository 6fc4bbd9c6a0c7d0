package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.text.KnownStrings;
import io.amqpservlet.protocol.text.StringCache;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link AmqpCursor#getString(StringCache)}: the cached instance on a hit, getString() on a miss, same checks. */
@Timeout(30)
class CachedStringTest {
    private static final StringCache CACHE = KnownStrings.CACHE;

    private static AmqpReader readerOn(byte[] encoded) {
        AmqpReader r = new AmqpReader().wrap(encoded, 0, encoded.length);
        r.next();
        return r;
    }

    private static byte[] encodeString(String s) {
        AmqpWriter w = new AmqpWriter();
        w.writeString(s);
        return w.toByteArray();
    }

    @Test
    void hitReturnsTheCachedInstanceForStringsAndSymbols() {
        assertSame("application/json", readerOn(encodeString(new String("application/json"))).getString(CACHE));
        AmqpWriter w = new AmqpWriter();
        w.writeSymbol(Symbol.of("text/plain"));
        assertSame("text/plain", readerOn(w.toByteArray()).getString(CACHE));
        assertSame("GET", readerOn(encodeString("GET")).getStringOrNull(CACHE));
    }

    @Test
    void str32AndSym32HitToo() {
        // The cache is keyed by the content bytes only: the width of the size field must not matter.
        byte[] str32 = {(byte) FormatCode.STR32, 0, 0, 0, 6, 'a', 'c', 'c', 'e', 'p', 't'};
        assertSame("accept", readerOn(str32).getString(CACHE));
        byte[] sym32 = {(byte) FormatCode.SYM32, 0, 0, 0, 4, 'g', 'z', 'i', 'p'};
        assertSame("gzip", readerOn(sym32).getString(CACHE));
    }

    @Test
    void missDecodesANewStringLikeGetString() {
        String value = readerOn(encodeString("req-0000000001")).getString(CACHE);
        assertEquals("req-0000000001", value);
        String nonAscii = readerOn(encodeString("x-caf\u00e9")).getString(CACHE);
        assertEquals("x-caf\u00e9", nonAscii);
        byte[] empty = encodeString("");
        assertEquals("", readerOn(empty).getString(CACHE));
        assertNotSame("Accept", readerOn(encodeString("Accept")).getString(CACHE), "exact lookup is case-sensitive");
        assertEquals("Accept", readerOn(encodeString("Accept")).getString(CACHE));
    }

    @Test
    void nullAndWrongTypes() {
        AmqpWriter w = new AmqpWriter();
        w.writeNull();
        assertNull(readerOn(w.toByteArray()).getStringOrNull(CACHE));
        assertThrows(UnexpectedTypeException.class, () -> readerOn(w.toByteArray()).getString(CACHE));
        AmqpWriter bin = new AmqpWriter();
        bin.writeBinary(new byte[] {'G', 'E', 'T'});
        assertThrows(UnexpectedTypeException.class, () -> readerOn(bin.toByteArray()).getString(CACHE));
    }

    @Test
    void malformedTextIsRejectedAsByGetString() {
        byte[] overlong = {(byte) FormatCode.STR8, 2, (byte) 0xC0, (byte) 0xAF};
        assertThrows(InvalidEncodingException.class, () -> readerOn(overlong).getString(CACHE));
        byte[] nonAsciiSymbol = {(byte) FormatCode.SYM8, 2, (byte) 0xC3, (byte) 0xA9};
        assertThrows(InvalidEncodingException.class, () -> readerOn(nonAsciiSymbol).getString(CACHE));
        // A symbol whose bytes are a cached key that is not ASCII must still be refused.
        StringCache withAccent = StringCache.builder().add("\u00e9").build();
        assertThrows(InvalidEncodingException.class, () -> readerOn(nonAsciiSymbol).getString(withAccent));
        byte[] truncated = {(byte) FormatCode.STR8, 6, 'a', 'c', 'c'};
        assertThrows(TruncatedEncodingException.class, () -> readerOn(truncated));
    }

    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    @Test
    void hitsAllocateNothing() {
        byte[] encoded = encodeString("x-request-id");
        AmqpReader r = readerOn(encoded);
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                sink += r.getString(CACHE).length();
            }
        };
        loop.run();
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
