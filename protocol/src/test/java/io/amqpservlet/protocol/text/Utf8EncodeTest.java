package io.amqpservlet.protocol.text;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link Utf8#encode} and {@link Utf8#encodedLength} agree with the JDK's UTF-8 encoder. */
class Utf8EncodeTest {
    private static void assertEncodesAsJdk(CharSequence text) {
        byte[] expected = text.toString().getBytes(StandardCharsets.UTF_8);
        assertEquals(expected.length, Utf8.encodedLength(text), text.toString());
        byte[] dst = new byte[expected.length + 6];
        Arrays.fill(dst, (byte) 0x55);
        int end = Utf8.encode(text, dst, 3);
        assertEquals(3 + expected.length, end, text.toString());
        assertArrayEquals(expected, Arrays.copyOfRange(dst, 3, end), text.toString());
        assertEquals(0x55, dst[end], "wrote past the end");
    }

    @Test
    void encodesAsciiStringsAndOtherCharSequences() {
        assertEncodesAsJdk("");
        assertEncodesAsJdk("application/json");
        assertEncodesAsJdk(new StringBuilder("x-request-id"));
    }

    @Test
    void encodesNonAsciiTextWhereverItStarts() {
        assertEncodesAsJdk("é");
        assertEncodesAsJdk("caf\u00e9 au lait");
        // Chars above U+00FF whose low byte alone would look like ASCII.
        assertEncodesAsJdk("\u4141\u0100abc");
        assertEncodesAsJdk("abc\u20ac");
        assertEncodesAsJdk(new StringBuilder("gr\u00fc\u00dfe"));
    }

    @Test
    void encodesSurrogatePairsAndReplacesUnpairedOnes() {
        assertEncodesAsJdk("a\uD83D\uDE00b");
        // The JDK replaces an unpaired surrogate with '?', and so does Utf8.
        assertEncodesAsJdk("a\uD83Db");
        assertEncodesAsJdk("\uDE00");
    }
}
