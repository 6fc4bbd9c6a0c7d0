package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.Utf8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Utf8String} and {@link Symbol} given as CharSequences are written from their bytes, identically. */
@Timeout(30)
class PreencodedTextTest {
    private static byte[] asString(CharSequence text) {
        AmqpWriter w = new AmqpWriter();
        w.writeString(text);
        return w.toByteArray();
    }

    @Test
    void writesTheSameBytesAsTheString() {
        String[] texts = {
            "", "accept", "x-caf\u00e9", "\u20ac and \uD83D\uDE00", "lone \uD800 surrogate",
            "a".repeat(85), "a".repeat(255), "a".repeat(256), "\u00e9".repeat(128), "b".repeat(70_000),
        };
        for (String text : texts) {
            byte[] expected = asString(text);
            assertArrayEquals(expected, asString(Utf8String.of(text)), text.length() + " chars");
            AmqpReader r = new AmqpReader().wrap(expected, 0, expected.length);
            r.next();
            assertEquals(text.replace('\uD800', '?'), r.getString());
        }
        assertEquals(FormatCode.STR8, asString(Utf8String.of("a".repeat(255)))[0] & 0xFF);
        assertEquals(FormatCode.STR32, asString(Utf8String.of("a".repeat(256)))[0] & 0xFF);
    }

    @Test
    void fitsArraysOfStr8AndStr32AndRefusesWhatDoesNotFit() {
        AmqpWriter viaBytes = new AmqpWriter();
        AmqpWriter viaChars = new AmqpWriter();
        for (AmqpWriter w : new AmqpWriter[] {viaBytes, viaChars}) {
            w.startArray(FormatCode.STR32);
            w.writeString(w == viaBytes ? Utf8String.of("one") : "one");
            w.writeString(w == viaBytes ? Utf8String.of("tw\u00f6") : "tw\u00f6");
            w.endArray();
        }
        assertArrayEquals(viaChars.toByteArray(), viaBytes.toByteArray());
        AmqpWriter small = new AmqpWriter();
        small.startArray(FormatCode.STR8);
        assertThrows(IllegalArgumentException.class, () -> small.writeString(Utf8String.of("c".repeat(256))));
        AmqpWriter symbols = new AmqpWriter();
        symbols.startArray(FormatCode.SYM8);
        assertThrows(IllegalArgumentException.class, () -> symbols.writeString(Utf8String.of("not a symbol")));
    }

    @Test
    void symbolAsCharSequenceIsWrittenFromItsBytes() {
        AmqpWriter viaSymbol = new AmqpWriter();
        viaSymbol.writeSymbol((CharSequence) Symbol.of("application/json"));
        AmqpWriter viaChars = new AmqpWriter();
        viaChars.writeSymbol("application/json");
        assertArrayEquals(viaChars.toByteArray(), viaSymbol.toByteArray());
        assertThrows(IllegalArgumentException.class, () -> new AmqpWriter().writeSymbol("caf\u00e9"));
    }

    @Test
    void messageWriterPassesPreencodedKeysThrough() {
        byte[][] results = new byte[2][];
        for (int v = 0; v < 2; v++) {
            AmqpWriter out = new AmqpWriter();
            CharSequence key = v == 0 ? "user-agent" : Utf8String.of("user-agent");
            CharSequence type = v == 0 ? "text/plain" : Symbol.of("text/plain");
            new io.amqpservlet.protocol.message.MessageWriter().wrap(out)
                    .startProperties().subject("GET").contentType(type).endProperties()
                    .startApplicationProperties().put(key, "curl/8").endApplicationProperties()
                    .end();
            results[v] = out.toByteArray();
        }
        assertArrayEquals(results[0], results[1]);
    }

    @Test
    void matchesComparesEncodedBytes() {
        Utf8String name = Utf8String.of("x-caf\u00e9");
        byte[] b = ("..x-caf\u00e9").getBytes(StandardCharsets.UTF_8);
        assertTrue(name.matches(b, 2, b.length - 2));
        assertTrue(!name.matches(b, 1, b.length - 1));
        assertEquals("x-caf\u00e9", name.toString());
        assertEquals(Utf8String.of("x-caf\u00e9"), name);
        assertThrows(NullPointerException.class, () -> Utf8String.of(null));
    }

    @Test
    void writingAllocatesNothing() {
        Utf8String key = Utf8String.of("x-request-id");
        AmqpWriter w = new AmqpWriter(64);
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                w.clear();
                w.writeString(key);
            }
        };
        loop.run();
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
