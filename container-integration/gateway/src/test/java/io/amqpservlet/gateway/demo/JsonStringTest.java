package io.amqpservlet.gateway.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class JsonStringTest {
    private static String json(String s) {
        return JsonString.append(new StringBuilder(), s).toString();
    }

    @Test
    void escapesQuoteBackslashAndControlCharacters() {
        assertEquals("\"a\\\"b\\\\c\"", json("a\"b\\c"));
        assertEquals("\"\\n\\r\\t\\b\\f\"", json("\n\r\t\b\f"));
        assertEquals("\"\\u0000\\u001f\\u2028\"", json("\u0000\u001f\u2028"));
    }

    @Test
    void keepsNonAsciiAndSolidusAsTheyAre() {
        assertEquals("\"caf\u00e9 / \ud83d\ude00\"", json("caf\u00e9 / \ud83d\ude00"));
    }
}
