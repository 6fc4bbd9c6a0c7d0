package io.amqpservlet.protocol.text;

import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PercentDecoderTest {
    @Test
    void decodesEscapesToUtf8Text() {
        assertEquals("/a b", PercentDecoder.decode("%2Fa%20b"));
        assertEquals("caf\u00e9", PercentDecoder.decode("caf%C3%A9"));
        assertEquals("caf\u00e9", PercentDecoder.decode("caf%c3%a9"));
        assertEquals("\uD83D\uDE00", PercentDecoder.decode("%F0%9F%98%80"));
        assertEquals("\u00e9\u00e9", PercentDecoder.decode("\u00e9%C3%A9"), "raw non-ASCII passes through");
        assertEquals("a+b", PercentDecoder.decode("a+b"), "+ is a plus outside form data");
    }

    @Test
    void returnsTheSameInstanceWithoutEscapes() {
        String s = "/orders/42?expand=items";
        assertSame(s, PercentDecoder.decode(s));
        assertSame(s, PercentDecoder.decodeForm(s));
    }

    @Test
    void formDecodingTurnsPlusIntoSpaceAndAgreesWithUrlDecoder() {
        String form = "name=J%C3%BCrgen+M%C3%BCller&q=a%2Bb+c";
        assertEquals(URLDecoder.decode(form, StandardCharsets.UTF_8), PercentDecoder.decodeForm(form));
        byte[] bytes = form.getBytes(StandardCharsets.US_ASCII);
        Utf8StringBuilder out = new Utf8StringBuilder();
        PercentDecoder.decodeForm(bytes, 0, bytes.length, out);
        assertEquals(URLDecoder.decode(form, StandardCharsets.UTF_8), out.toString());
    }

    private static MalformedTextException rejected(String input) {
        MalformedTextException fromChars = assertThrows(MalformedTextException.class,
                () -> PercentDecoder.decode(input));
        byte[] bytes = ("xx" + input).getBytes(StandardCharsets.UTF_8);
        MalformedTextException fromBytes = assertThrows(MalformedTextException.class,
                () -> PercentDecoder.decode(bytes, 2, bytes.length - 2, new Utf8StringBuilder()));
        assertEquals(fromChars.offset() + 2, fromBytes.offset(), "byte offsets count from the array start");
        return fromChars;
    }

    @Test
    void rejectsBadEscapesNamingTheirIndex() {
        assertEquals(0, rejected("%").offset());
        assertEquals(1, rejected("a%4").offset());
        assertEquals(2, rejected("ab%G1").offset());
        assertEquals(0, rejected("%1G").offset());
        assertTrue(rejected("%zz").getMessage().contains("two hex digits"));
    }

    @Test
    void rejectsEscapesThatAreNotUtf8() {
        assertEquals(3, rejected("%C3").offset(), "truncated sequence at the end");
        assertEquals(3, rejected("%C3a").offset(), "sequence interrupted by a literal char");
        assertEquals(0, rejected("%C0%AF").offset(), "overlong");
        assertEquals(3, rejected("%ED%A0%80").offset(), "surrogate");
        assertEquals(3, rejected("%F4%90%80%80").offset(), "above U+10FFFF");
        assertEquals(0, rejected("%FF").offset());
        assertEquals(0, rejected("%80").offset(), "continuation without lead");
    }

    @Test
    void appendsIntoAReusableBuilder() {
        Utf8StringBuilder out = new Utf8StringBuilder();
        PercentDecoder.decode("/a%20", out);
        PercentDecoder.decode("b%C3%A9", out);
        assertEquals("/a b\u00e9", out.toString());
        byte[] raw = "/x%2Fy/\u00e9".getBytes(StandardCharsets.UTF_8);
        PercentDecoder.decode(raw, 0, raw.length, out.reset());
        assertEquals("/x/y/\u00e9", out.toString());
    }
}
