package io.amqpservlet.protocol.text;

/**
 * Percent-encodes text for a URI (RFC 3986 §2.1), keeping escapes that are already there. One 256-entry table
 * per encoder says which ASCII bytes stay as they are; every other byte, and every byte of the UTF-8 form of a
 * non-ASCII character, becomes {@code %XX} with uppercase digits (RFC 3986 §2.1: "should use uppercase").
 *
 * <p>A {@code %} followed by two hex digits is taken as an existing escape and left alone; a {@code %} that is
 * not becomes {@code %25}. That makes encoding idempotent ({@code encode(encode(s)).equals(encode(s))}) and is
 * what the HTTP-over-AMQP mapping needs: the {@code to} address is not URI-encoded on the wire (WD06 §3.1), yet
 * peers often send it encoded already, and both must give the same request-target.
 *
 * <p>When nothing needs encoding, {@link #encode(String)} returns its argument: the common case allocates
 * nothing. Encoders are immutable and thread-safe.
 */
public final class PercentEncoder {
    /**
     * For a whole request-target (path and query): keeps unreserved characters, {@code / ? : @} and the
     * sub-delimiters {@code ! $ & ' ( ) * + , ; =} (RFC 3986 §3.3, §3.4); encodes controls, space,
     * {@code " # < > [ \ ] ^ ` { | }}, DEL and all non-ASCII.
     */
    public static final PercentEncoder REQUEST_TARGET = new PercentEncoder("/?:@!$&'()*+,;=");

    /**
     * For one path segment or one query name or value: as {@link #REQUEST_TARGET} but also encodes
     * {@code / ? & = +}, which would otherwise split the component or, in a query read as form data, turn into a
     * space.
     */
    public static final PercentEncoder COMPONENT = new PercentEncoder(":@!$'()*,;");

    private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

    /** For each byte value: 1 when it stays as it is, 0 when it must be escaped. {@code %} is 0, handled apart. */
    private final byte[] keep = new byte[256];

    private PercentEncoder(String keptBesidesUnreserved) {
        // RFC 3986 §2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
        for (int c = 'a'; c <= 'z'; c++) {
            keep[c] = 1;
            keep[c - 'a' + 'A'] = 1;
        }
        for (int c = '0'; c <= '9'; c++) {
            keep[c] = 1;
        }
        keep['-'] = 1;
        keep['.'] = 1;
        keep['_'] = 1;
        keep['~'] = 1;
        for (int i = 0; i < keptBesidesUnreserved.length(); i++) {
            keep[keptBesidesUnreserved.charAt(i)] = 1;
        }
    }

    /**
     * {@return whether this encoder keeps the ASCII character {@code c} as it is (never true for {@code %})}
     *
     * @param c the char to check
     */
    public boolean keeps(char c) {
        return c < 128 && keep[c] != 0;
    }

    /**
     * {@return whether {@link #encode(String)} would change {@code text}}
     *
     * @param text the text to check
     */
    public boolean needsEncoding(CharSequence text) {
        return firstToEncode(text) >= 0;
    }

    /**
     * {@return whether {@link #encode(byte[], int, int, StringBuilder)} would change the bytes}
     *
     * @param utf8 holds the UTF-8 bytes to check
     * @param offset where they start in {@code utf8}
     * @param length their length in bytes
     */
    public boolean needsEncoding(byte[] utf8, int offset, int length) {
        return firstToEncode(utf8, offset, length) >= 0;
    }

    private int firstToEncode(CharSequence text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 128 || keep[c] == 0) {
                if (c != '%' || !isEscape(text, i, n)) {
                    return i;
                }
                i += 2;
            }
        }
        return -1;
    }

    private int firstToEncode(byte[] bytes, int offset, int length) {
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            byte b = bytes[i];
            if (keep[b & 0xFF] == 0) {
                if (b != '%' || i + 2 >= end || !HexDigits.isHex(bytes[i + 1]) || !HexDigits.isHex(bytes[i + 2])) {
                    return i;
                }
                i += 2;
            }
        }
        return -1;
    }

    private static boolean isEscape(CharSequence text, int i, int n) {
        return i + 2 < n && HexDigits.isHex(text.charAt(i + 1)) && HexDigits.isHex(text.charAt(i + 2));
    }

    /**
     * Encodes {@code text}; returns {@code text} itself when nothing needs encoding.
     *
     * @param text the text to encode
     * @return the encoded text
     * @throws MalformedTextException for an unpaired UTF-16 surrogate, which has no UTF-8 form
     */
    public String encode(String text) {
        int first = firstToEncode(text);
        if (first < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        out.append(text, 0, first);
        encodeFrom(text, first, out);
        return out.toString();
    }

    /**
     * Appends {@code text}, encoded, to {@code out}; nothing is allocated once {@code out} has room.
     *
     * @param text the text to encode
     * @param out where the result goes
     * @throws MalformedTextException for an unpaired UTF-16 surrogate
     */
    public void encode(CharSequence text, StringBuilder out) {
        encodeFrom(text, 0, out);
    }

    private void encodeFrom(CharSequence text, int from, StringBuilder out) {
        int n = text.length();
        for (int i = from; i < n; i++) {
            char c = text.charAt(i);
            if (c < 128) {
                if (keep[c] != 0 || (c == '%' && isEscape(text, i, n))) {
                    out.append(c);
                } else {
                    appendEscape(c, out);
                }
            } else if (c < 0x800) {
                appendEscape(0xC0 | (c >> 6), out);
                appendEscape(0x80 | (c & 0x3F), out);
            } else if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 >= n || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    throw new MalformedTextException("unpaired UTF-16 surrogate", i);
                }
                int cp = Character.toCodePoint(c, text.charAt(++i));
                appendEscape(0xF0 | (cp >> 18), out);
                appendEscape(0x80 | ((cp >> 12) & 0x3F), out);
                appendEscape(0x80 | ((cp >> 6) & 0x3F), out);
                appendEscape(0x80 | (cp & 0x3F), out);
            } else {
                appendEscape(0xE0 | (c >> 12), out);
                appendEscape(0x80 | ((c >> 6) & 0x3F), out);
                appendEscape(0x80 | (c & 0x3F), out);
            }
        }
    }

    /**
     * Appends the UTF-8 text {@code utf8[offset, offset + length)}, encoded, to {@code out}: the form in which
     * AMQP strings arrive (see {@code MutableBytes}). Non-ASCII bytes are escaped one by one, so the bytes are
     * not checked for being valid UTF-8; a decoder will check them.
     *
     * @param utf8 holds the UTF-8 bytes to encode
     * @param offset where they start in {@code utf8}
     * @param length their length in bytes
     * @param out where the result goes
     */
    public void encode(byte[] utf8, int offset, int length, StringBuilder out) {
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            byte b = utf8[i];
            if (keep[b & 0xFF] != 0) {
                out.append((char) b);
            } else if (b == '%' && i + 2 < end && HexDigits.isHex(utf8[i + 1]) && HexDigits.isHex(utf8[i + 2])) {
                out.append('%');
            } else {
                appendEscape(b & 0xFF, out);
            }
        }
    }

    /**
     * {@return the number of bytes {@link #encode(byte[], int, int, byte[], int)} writes for these bytes}
     *
     * @param utf8 holds the UTF-8 bytes to measure
     * @param offset where they start in {@code utf8}
     * @param length their length in bytes
     */
    public int encodedLength(byte[] utf8, int offset, int length) {
        int end = offset + length;
        int n = length;
        for (int i = offset; i < end; i++) {
            byte b = utf8[i];
            if (keep[b & 0xFF] == 0
                    && (b != '%' || i + 2 >= end || !HexDigits.isHex(utf8[i + 1]) || !HexDigits.isHex(utf8[i + 2]))) {
                n += 2;
            }
        }
        return n;
    }

    /**
     * Writes the encoded form of {@code utf8[offset, offset + length)} into {@code dst} at {@code dstOffset},
     * which has room for {@link #encodedLength} bytes.
     *
     * @param utf8 holds the UTF-8 bytes to encode
     * @param offset where they start in {@code utf8}
     * @param length their length in bytes
     * @param dst the array to write into
     * @param dstOffset where in {@code dst} the first byte goes
     * @return the offset after the last byte written
     */
    public int encode(byte[] utf8, int offset, int length, byte[] dst, int dstOffset) {
        int end = offset + length;
        int p = dstOffset;
        for (int i = offset; i < end; i++) {
            byte b = utf8[i];
            if (keep[b & 0xFF] != 0
                    || (b == '%' && i + 2 < end && HexDigits.isHex(utf8[i + 1]) && HexDigits.isHex(utf8[i + 2]))) {
                dst[p++] = b;
            } else {
                dst[p] = '%';
                p = HexDigits.writeByte(b & 0xFF, dst, p + 1, true);
            }
        }
        return p;
    }

    private static void appendEscape(int b, StringBuilder out) {
        out.append('%').append(UPPER_HEX[b >> 4]).append(UPPER_HEX[b & 0xF]);
    }
}
