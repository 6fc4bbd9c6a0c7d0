package io.amqpservlet.gateway.demo;

import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;

/**
 * Percent-encoding of one path segment or binding parameter value as RabbitMQ's clients write them: every byte of
 * the UTF-8 form but the unreserved characters (RFC 3986 §2.3) as {@code %HH}, so {@code /}, {@code ;} and {@code =}
 * inside a name never read as delimiters.
 */
final class PathSegment {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private PathSegment() {
    }

    /** {@return {@code text} with everything but unreserved characters percent-encoded (UTF-8)} */
    static String encode(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /** {@return {@code raw} with its {@code %HH} escapes decoded as UTF-8, or null when an escape or the UTF-8 is bad} */
    static String decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
                continue;
            }
            if (i + 2 >= raw.length()) {
                return null;
            }
            int high = Character.digit(raw.charAt(i + 1), 16);
            int low = Character.digit(raw.charAt(i + 2), 16);
            if (high < 0 || low < 0) {
                return null;
            }
            bytes.write(high << 4 | low);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException notUtf8) {
            return null;
        }
    }
}
