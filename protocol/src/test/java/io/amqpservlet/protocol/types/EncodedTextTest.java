package io.amqpservlet.protocol.types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@link Symbol} and {@link Utf8String} share: the text, its bytes, matching, and equality by kind. */
class EncodedTextTest {
    @Test
    void equalsOnlyTheSameTextOfTheSameKind() {
        assertEquals(Symbol.of("amqp:accepted"), Symbol.of("amqp:accepted"));
        assertEquals(Utf8String.of("content-type"), Utf8String.of("content-type"));
        assertNotEquals(Symbol.of("content-type"), Utf8String.of("content-type"));
        assertNotEquals(Utf8String.of("content-type"), Symbol.of("content-type"));
        assertNotEquals(Symbol.of("a"), "a");
        assertFalse(Symbol.of("a").equals(null));
        assertEquals("x-caf\u00e9".hashCode(), Utf8String.of("x-caf\u00e9").hashCode());
        assertEquals("a".hashCode(), Symbol.of("a").hashCode());
        assertTrue(Symbol.of("a").compareTo(Symbol.of("b")) < 0);
    }

    @Test
    void holdsTheEncodedBytesAndMatchesThemInPlace() {
        Utf8String text = Utf8String.of("x-caf\u00e9");
        assertArrayEquals("x-caf\u00e9".getBytes(StandardCharsets.UTF_8), text.bytes());
        assertEquals(6, text.length());
        assertEquals('\u00e9', text.charAt(5));
        assertEquals("caf", text.subSequence(2, 5).toString());
        byte[] wire = "..x-caf\u00e9..".getBytes(StandardCharsets.UTF_8);
        assertTrue(text.matches(wire, 2, 7));
        assertFalse(text.matches(wire, 2, 6));
        assertFalse(Symbol.of("x-caf").matches(wire, 3, 5));
        assertThrows(IllegalArgumentException.class, () -> Symbol.of("caf\u00e9"));
        assertThrows(NullPointerException.class, () -> Utf8String.of(null));
    }
}
