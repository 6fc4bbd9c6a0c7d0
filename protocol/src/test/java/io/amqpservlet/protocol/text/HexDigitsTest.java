package io.amqpservlet.protocol.text;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class HexDigitsTest {
    @Test
    void tableAgreesWithCharacterDigitForEveryByte() {
        for (int b = 0; b < 256; b++) {
            boolean expected = b < 128 && Character.digit((char) b, 16) >= 0;
            assertEquals(expected, HexDigits.isHex((byte) b), "byte " + b);
            assertEquals(expected, HexDigits.isHex((char) b), "char " + b);
        }
        assertFalse(HexDigits.isHex('\uFF10'), "fullwidth digit is not hex");
        assertFalse(HexDigits.isHex('\u0661'), "Arabic-Indic digit is not hex");
    }

    @Test
    void writesEveryByteAsTwoDigitsInEitherCase() {
        byte[] out = new byte[3];
        for (int b = 0; b < 256; b++) {
            assertEquals(3, HexDigits.writeByte(b, out, 1, true));
            assertEquals(String.format("%02X", b), new String(out, 1, 2, StandardCharsets.US_ASCII));
            HexDigits.writeByte(b, out, 1, false);
            assertEquals(String.format("%02x", b), new String(out, 1, 2, StandardCharsets.US_ASCII));
        }
    }
}
