package io.amqpservlet.protocol.message;

/**
 * Compares encoded UTF-8 bytes with a Java string without decoding or allocating: each char is encoded on the
 * fly and matched byte by byte. Because only the canonical (shortest) encoding is produced, overlong or
 * otherwise malformed bytes on the wire never match a name, so a peer cannot alias a key.
 */
final class Utf8Comparison {
    private Utf8Comparison() {
    }

    /** Whether {@code bytes[offset, offset + length)} is exactly the UTF-8 encoding of {@code text}. */
    static boolean equals(byte[] bytes, int offset, int length, CharSequence text) {
        int p = offset;
        int end = offset + length;
        int n = text.length();
        for (int j = 0; j < n; j++) {
            char c = text.charAt(j);
            if (c < 0x80) {
                if (p >= end || bytes[p] != (byte) c) {
                    return false;
                }
                p++;
            } else if (c < 0x800) {
                if (p + 2 > end || bytes[p] != (byte) (0xC0 | (c >> 6)) || bytes[p + 1] != (byte) (0x80 | (c & 0x3F))) {
                    return false;
                }
                p += 2;
            } else if (Character.isSurrogate(c)) {
                // A pair is one 4-byte sequence; an unpaired surrogate has no UTF-8 form and matches nothing.
                if (!Character.isHighSurrogate(c) || j + 1 >= n || !Character.isLowSurrogate(text.charAt(j + 1))) {
                    return false;
                }
                int cp = Character.toCodePoint(c, text.charAt(++j));
                if (p + 4 > end
                        || bytes[p] != (byte) (0xF0 | (cp >> 18))
                        || bytes[p + 1] != (byte) (0x80 | ((cp >> 12) & 0x3F))
                        || bytes[p + 2] != (byte) (0x80 | ((cp >> 6) & 0x3F))
                        || bytes[p + 3] != (byte) (0x80 | (cp & 0x3F))) {
                    return false;
                }
                p += 4;
            } else {
                if (p + 3 > end
                        || bytes[p] != (byte) (0xE0 | (c >> 12))
                        || bytes[p + 1] != (byte) (0x80 | ((c >> 6) & 0x3F))
                        || bytes[p + 2] != (byte) (0x80 | (c & 0x3F))) {
                    return false;
                }
                p += 3;
            }
        }
        return p == end;
    }
}
