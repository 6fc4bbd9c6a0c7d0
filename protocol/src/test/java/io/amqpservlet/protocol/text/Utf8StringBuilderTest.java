package io.amqpservlet.protocol.text;

import io.amqpservlet.protocol.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Utf8StringBuilderTest {
    private static final String MIXED = "a\u00e9\u20ac\uD83D\uDE00z \u00df\u4e2d\uFFFD\uD800\uDC00\uDBFF\uDFFF";

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    @Test
    void decodesAsciiAndAllSequenceLengths() {
        Utf8StringBuilder sb = new Utf8StringBuilder(4);
        byte[] in = utf8(MIXED);
        sb.append(in, 0, in.length);
        assertTrue(sb.isComplete());
        assertEquals(MIXED, sb.toCompleteString());
        assertEquals(MIXED.length(), sb.length());
        assertEquals('\u20ac', sb.charAt(2));
        assertTrue(sb.contentEquals(MIXED));
        assertEquals(in.length, sb.bytesAppended());
    }

    @Test
    void decodesSequencesSplitAtEveryBoundary() {
        byte[] in = utf8(MIXED);
        Utf8StringBuilder sb = new Utf8StringBuilder();
        for (int cut1 = 0; cut1 <= in.length; cut1++) {
            for (int cut2 = cut1; cut2 <= in.length; cut2++) {
                sb.reset();
                sb.append(in, 0, cut1);
                sb.append(in, cut1, cut2 - cut1);
                sb.append(in, cut2, in.length - cut2);
                assertEquals(MIXED, sb.toCompleteString(), "cuts at " + cut1 + " and " + cut2);
            }
        }
        sb.reset();
        for (byte b : in) {
            sb.append(b);
        }
        assertEquals(MIXED, sb.toCompleteString(), "byte by byte");
    }

    @Test
    void reportsDanglingPartialSequenceAsIncomplete() {
        Utf8StringBuilder sb = new Utf8StringBuilder();
        sb.append(bytes('o', 'k', 0xF0, 0x9F, 0x98), 0, 5);
        assertFalse(sb.isComplete());
        assertEquals("ok", sb.toString(), "toString leaves the partial sequence out");
        MalformedTextException e = assertThrows(MalformedTextException.class, sb::toCompleteString);
        assertEquals(5, e.offset());
        assertThrows(MalformedTextException.class, () -> sb.append('x'));
        sb.append((byte) 0x80);
        assertEquals("ok\uD83D\uDE00", sb.toCompleteString());
    }

    private static MalformedTextException rejected(int... input) {
        Utf8StringBuilder sb = new Utf8StringBuilder();
        byte[] b = bytes(input);
        return assertThrows(MalformedTextException.class, () -> sb.append(b, 0, b.length));
    }

    @Test
    void rejectsOverlongForms() {
        assertEquals(1, rejected('a', 0xC0, 0xAF).offset(), "C0 is an overlong 2-byte lead");
        assertEquals(0, rejected(0xC1, 0xBF).offset());
        assertEquals(1, rejected(0xE0, 0x80, 0xAF).offset());
        assertTrue(rejected(0xE0, 0x9F, 0xBF).getMessage().contains("overlong 3-byte"));
        assertTrue(rejected(0xF0, 0x8F, 0xBF, 0xBF).getMessage().contains("overlong 4-byte"));
    }

    @Test
    void rejectsEncodedSurrogates() {
        MalformedTextException e = rejected('x', 'y', 0xED, 0xA0, 0x80);
        assertEquals(3, e.offset());
        assertTrue(e.getMessage().contains("surrogate"), e.getMessage());
        rejected(0xED, 0xBF, 0xBF);
        // ED 9F BF is U+D7FF, the last code point before the surrogates: valid
        Utf8StringBuilder sb = new Utf8StringBuilder();
        sb.append(bytes(0xED, 0x9F, 0xBF), 0, 3);
        assertEquals("\uD7FF", sb.toCompleteString());
    }

    @Test
    void rejectsCodePointsAboveUnicode() {
        assertTrue(rejected(0xF4, 0x90, 0x80, 0x80).getMessage().contains("above U+10FFFF"));
        assertEquals(0, rejected(0xF5, 0x80, 0x80, 0x80).offset());
        assertEquals(0, rejected(0xFF).offset());
    }

    @Test
    void rejectsStrayContinuationAndTruncatedSequences() {
        assertTrue(rejected('a', 0x80).getMessage().contains("without a lead"));
        MalformedTextException e = rejected(0xE2, 0x82, 'a');
        assertEquals(2, e.offset());
        assertTrue(e.getMessage().contains("continuation byte was expected"), e.getMessage());
        rejected(0xC3, 0xC3);
    }

    @Test
    void errorPositionCountsBytesAcrossAppends() {
        Utf8StringBuilder sb = new Utf8StringBuilder();
        sb.append(utf8("hello"), 0, 5);
        byte[] bad = bytes('!', 0xC0);
        MalformedTextException e = assertThrows(MalformedTextException.class, () -> sb.append(bad, 0, 2));
        assertEquals(6, e.offset());
    }

    @Test
    void agreesWithStrictJdkDecoderOnRandomBytes() {
        Random random = new Random(42);
        Utf8StringBuilder sb = new Utf8StringBuilder();
        int valid = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] in = new byte[random.nextInt(8)];
            for (int i = 0; i < in.length; i++) {
                // Bias toward the interesting bytes: leads and continuations.
                in[i] = (byte) (random.nextBoolean() ? 0x80 + random.nextInt(0x80) : random.nextInt(256));
            }
            String expected;
            try {
                expected = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(in)).toString();
            } catch (CharacterCodingException e) {
                expected = null;
            }
            String actual;
            try {
                sb.reset().append(in, 0, in.length);
                actual = sb.toCompleteString();
            } catch (MalformedTextException e) {
                actual = null;
            }
            assertEquals(expected, actual, () -> "input " + java.util.Arrays.toString(in));
            if (expected != null) {
                valid++;
            }
        }
        assertTrue(valid > 1000, "the random inputs include enough valid UTF-8 to compare text: " + valid);
    }

    @Test
    void resetKeepsNothingButTheArray() {
        Utf8StringBuilder sb = new Utf8StringBuilder();
        sb.append(bytes('a', 0xE2), 0, 2);
        sb.reset();
        assertTrue(sb.isComplete());
        assertEquals(0, sb.length());
        assertEquals(0, sb.bytesAppended());
        sb.append("text").append('!');
        assertEquals("text!", sb.toString());
    }

    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    @Test
    void appendingAsciiToAWarmedBuilderAllocatesNothing() {
        String ascii = "/orders/42?expand=items&x=abc";
        byte[] asciiBytes = utf8(ascii);
        byte[] mixed = utf8(MIXED);
        Utf8StringBuilder sb = new Utf8StringBuilder(256);
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                sink += sb.reset().append(asciiBytes, 0, asciiBytes.length).append(mixed, 0, mixed.length).length();
            }
        };
        loop.run();
        loop.run();
        assertEquals(20_000L * (ascii.length() + MIXED.length()), sink, "chars decoded");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
