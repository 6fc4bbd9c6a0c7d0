package io.amqpservlet.protocol.text;

import io.amqpservlet.protocol.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PercentEncoderTest {
    private static final PercentEncoder TARGET = PercentEncoder.REQUEST_TARGET;
    private static final PercentEncoder COMPONENT = PercentEncoder.COMPONENT;

    @Test
    void returnsTheSameInstanceWhenNothingNeedsEncoding() {
        String target = "/orders/42?expand=items&x=%2Fa%20b;v=1:@!$'()*+,~-._";
        assertSame(target, TARGET.encode(target));
        assertFalse(TARGET.needsEncoding(target));
        String segment = "a~b-c_d.e:f@g";
        assertSame(segment, COMPONENT.encode(segment));
    }

    @Test
    void keepsValidEscapesAndEncodesLonePercent() {
        assertEquals("/a%2Fb", TARGET.encode("/a%2Fb"));
        assertEquals("/a%2fb", TARGET.encode("/a%2fb"), "lowercase escapes are escapes too");
        assertEquals("100%25", TARGET.encode("100%"));
        assertEquals("%254", TARGET.encode("%4"));
        assertEquals("%25zz%41", TARGET.encode("%zz%41"));
        assertEquals("%25%25", TARGET.encode("%%"));
        assertEquals("%25G0", COMPONENT.encode("%G0"));
    }

    @Test
    void encodesWhatARequestTargetForbids() {
        assertEquals("/a%20b%22%3C%3E%5C%5E%60%7B%7C%7D%23%5B%5D", TARGET.encode("/a b\"<>\\^`{|}#[]"));
        assertEquals("%00%09%0A%0D%1F%7F", TARGET.encode("\u0000\t\n\r\u001f\u007f"));
        for (char c : "/?=&:@!$'()*+,;".toCharArray()) {
            assertTrue(TARGET.keeps(c), "request-target keeps " + c);
        }
        assertFalse(TARGET.keeps('%'), "% is never kept blindly");
    }

    @Test
    void componentModeEncodesSeparators() {
        assertEquals("a%2Fb%3Fc%26d%3De%2Bf", COMPONENT.encode("a/b?c&d=e+f"));
        assertEquals("a/b?c&d=e+f", TARGET.encode("a/b?c&d=e+f"));
        assertEquals("k:v@h", COMPONENT.encode("k:v@h"));
    }

    @Test
    void encodesNonAsciiAsUppercaseUtf8Escapes() {
        assertEquals("/caf%C3%A9", TARGET.encode("/caf\u00e9"));
        assertEquals("%E2%82%AC%F0%9F%98%80", TARGET.encode("\u20ac\uD83D\uDE00"));
        MalformedTextException e = assertThrows(MalformedTextException.class, () -> TARGET.encode("ab\uD800c"));
        assertEquals(2, e.offset());
        assertThrows(MalformedTextException.class, () -> TARGET.encode("\uDE00"));
    }

    @Test
    void encodingIsIdempotentAndBytesAgreeWithChars() {
        Random random = new Random(7);
        String[] alphabet = {"a", "b", "/", "?", "&", "=", "+", "%", " ", "#", "\u00e9", "\u20ac", "\uD83D\uDE00",
            "%2F", "%zz", "%4", "2", "F"};
        StringBuilder viaChars = new StringBuilder();
        StringBuilder viaBytes = new StringBuilder();
        for (int round = 0; round < 5_000; round++) {
            StringBuilder s = new StringBuilder();
            int n = random.nextInt(12);
            for (int i = 0; i < n; i++) {
                s.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String text = s.toString();
            for (PercentEncoder encoder : new PercentEncoder[] {TARGET, COMPONENT}) {
                String once = encoder.encode(text);
                assertEquals(once, encoder.encode(once), "idempotent for " + text);

                byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
                viaChars.setLength(0);
                encoder.encode(text, viaChars);
                viaBytes.setLength(0);
                encoder.encode(utf8, 0, utf8.length, viaBytes);
                assertEquals(once, viaChars.toString());
                assertEquals(once, viaBytes.toString());
                byte[] out = new byte[encoder.encodedLength(utf8, 0, utf8.length)];
                assertEquals(out.length, encoder.encode(utf8, 0, utf8.length, out, 0));
                assertEquals(once, new String(out, StandardCharsets.US_ASCII));
                assertEquals(!once.equals(text), encoder.needsEncoding(utf8, 0, utf8.length));
            }
        }
    }

    @Test
    void decodingTheEncodingGivesTheOriginalWhenItHeldNoEscapes() {
        String[] samples = {"/a b/c\u00e9?q=\u20ac\uD83D\uDE00&r=x y", "100% sure", "%", "a%G", "{\"json\":[1]}", ""};
        for (String s : samples) {
            assertEquals(s, percentDecoded(TARGET.encode(s)), s);
            assertEquals(s, percentDecoded(COMPONENT.encode(s)), s);
        }
    }

    /** RFC 3986 §2.1 decoding of what the encoders make: every {@code %XX} a byte, the rest ASCII as it is. */
    private static String percentDecoded(String encoded) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                bytes.write(Integer.parseInt(encoded.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    @Test
    void encodingInputThatNeedsNothingAllocatesNothing() {
        String target = "/orders/42?expand=items&x=%2Fa%20b";
        byte[] utf8 = target.getBytes(StandardCharsets.US_ASCII);
        StringBuilder out = new StringBuilder(128);
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                sink += TARGET.encode(target).length();
                out.setLength(0);
                TARGET.encode(utf8, 0, utf8.length, out);
                sink += out.length();
            }
        };
        loop.run();
        loop.run();
        assertEquals(20_000L * 2 * target.length(), sink, "both encodings return the input unchanged");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
