package io.amqpservlet.protocol.text;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HexDigitsTest {
    @Test
    void tableAgreesWithCharacterDigitForEveryByte() {
        for (int b = 0; b < 256; b++) {
            int expected = b < 128 ? Character.digit((char) b, 16) : -1;
            assertEquals(expected, HexDigits.value((byte) b), "byte " + b);
            assertEquals(expected, HexDigits.value((char) b), "char " + b);
            assertEquals(expected >= 0, HexDigits.isHex((byte) b));
        }
        assertEquals(-1, HexDigits.value('\uFF10'), "fullwidth digit is not hex");
        assertFalse(HexDigits.isHex('\u0661'), "Arabic-Indic digit is not hex");
    }

    @Test
    void parsesTwoDigitBytesOfEitherCaseAndRejectsNonHex() {
        byte[] text = "fF0a9Zg1".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xFF, HexDigits.parseByte(text, 0));
        assertEquals(0x0A, HexDigits.parseByte(text, 2));
        assertEquals(-1, HexDigits.parseByte(text, 4), "Z is not hex");
        assertEquals(-1, HexDigits.parseByte(text, 6), "g is not hex");
        assertEquals(0xF0, HexDigits.parseByte("xF0", 1));
        assertEquals(-1, HexDigits.parseByte("%0G", 1));
    }

    @Test
    void parsesHexLongsUpToSixteenDigits() {
        byte[] max = "ffffffffffffffff".getBytes(StandardCharsets.US_ASCII);
        assertEquals(-1L, HexDigits.parseLong(max, 0, 16));
        assertEquals(0x1A2bL, HexDigits.parseLong("x1A2b", 1, 5));
        assertThrows(MalformedTextException.class, () -> HexDigits.parseLong(new byte[17], 0, 17));
        assertThrows(MalformedTextException.class, () -> HexDigits.parseLong(max, 0, 0));
        MalformedTextException e = assertThrows(MalformedTextException.class,
                () -> HexDigits.parseLong("12x4".getBytes(StandardCharsets.US_ASCII), 0, 4));
        assertEquals(2, e.offset());
    }

    @Test
    void formatsBytesIntsAndLongsInBothCases() {
        byte[] bytes = {0x00, (byte) 0xAB, 0x7F, (byte) 0xFF};
        byte[] out = new byte[8];
        assertEquals(8, HexDigits.writeBytes(bytes, 0, 4, out, 0, false));
        assertEquals("00ab7fff", new String(out, StandardCharsets.US_ASCII));
        StringBuilder sb = new StringBuilder();
        HexDigits.appendBytes(bytes, 1, 2, sb, true);
        HexDigits.appendByte(0x5c, sb, false);
        assertEquals("AB7F5c", sb.toString());

        char[] chars = new char[10];
        assertEquals(9, HexDigits.writeInt(0x00C0FFEE, chars, 1, true));
        assertEquals("00C0FFEE", new String(chars, 1, 8));
        assertEquals(3, HexDigits.writeByte(0xE9, chars, 1, false));
        assertEquals("e9", new String(chars, 1, 2));

        for (long v : new long[] {0, 1, 0xABCL, Long.MIN_VALUE, -1L, 0x0123456789ABCDEFL}) {
            StringBuilder hex = new StringBuilder();
            HexDigits.appendLong(v, hex, false);
            assertEquals(Long.toHexString(v), hex.toString());
        }
        assertTrue(HexDigits.digit(0xB, true) == 'B' && HexDigits.digit(0xB, false) == 'b');
    }
}
