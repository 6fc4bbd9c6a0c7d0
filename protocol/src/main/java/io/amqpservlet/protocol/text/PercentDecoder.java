package io.amqpservlet.protocol.text;

/**
 * Decodes percent-encoded URI components (RFC 3986 §2.1): each {@code %XX} becomes the byte XX, the bytes are
 * read as strict UTF-8, and other characters stay as they are (so text that mixes escapes with raw non-ASCII
 * characters decodes too). A {@code %} not followed by two hex digits, or escapes that do not form valid UTF-8,
 * throw a {@link MalformedTextException} naming the index in the input.
 *
 * <p>{@code +} means a space only in form data ({@code application/x-www-form-urlencoded}), so only the
 * {@code decodeForm} methods translate it. The variants taking a {@link Utf8StringBuilder} append into it and
 * allocate nothing once it has room; {@link #decode(String)} returns its argument when there is nothing to
 * decode.
 */
public final class PercentDecoder {
    private PercentDecoder() {
    }

    /**
     * Decodes {@code text}; returns {@code text} itself when it holds no {@code %}.
     *
     * @param text the text to decode
     * @return the decoded text
     * @throws MalformedTextException at a bad escape or invalid UTF-8
     */
    public static String decode(String text) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        Utf8StringBuilder out = new Utf8StringBuilder(text.length());
        decode(text, false, out);
        return out.toString();
    }

    /**
     * Decodes form data ({@code +} is a space); returns {@code text} itself when it holds neither {@code %} nor
     * {@code +}.
     *
     * @param text the text to decode
     * @return the decoded text
     * @throws MalformedTextException at a bad escape or invalid UTF-8
     */
    public static String decodeForm(String text) {
        if (text.indexOf('%') < 0 && text.indexOf('+') < 0) {
            return text;
        }
        Utf8StringBuilder out = new Utf8StringBuilder(text.length());
        decode(text, true, out);
        return out.toString();
    }

    /**
     * Appends the decoded form of {@code text} to {@code out}, which must not hold a partial sequence.
     *
     * @param text the text to decode
     * @param out where the result goes
     */
    public static void decode(CharSequence text, Utf8StringBuilder out) {
        decode(text, false, out);
    }

    /**
     * As {@link #decode(CharSequence, Utf8StringBuilder)}, with {@code +} read as a space.
     *
     * @param text the text to decode
     * @param out where the result goes
     */
    public static void decodeForm(CharSequence text, Utf8StringBuilder out) {
        decode(text, true, out);
    }

    private static void decode(CharSequence text, boolean plusIsSpace, Utf8StringBuilder out) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == '%') {
                if (i + 2 >= n) {
                    throw new MalformedTextException("'%' not followed by two hex digits", i);
                }
                int b = HexDigits.parseByte(text, i + 1);
                if (b < 0) {
                    throw new MalformedTextException("'%' not followed by two hex digits", i);
                }
                appendByte(out, b, i);
                i += 2;
            } else {
                if (!out.isComplete()) {
                    throw new MalformedTextException("incomplete UTF-8 sequence before '" + c + "'", i);
                }
                out.append(plusIsSpace && c == '+' ? ' ' : c);
            }
        }
        if (!out.isComplete()) {
            throw new MalformedTextException("incomplete UTF-8 sequence at the end", n);
        }
    }

    /**
     * Appends the decoded form of the bytes {@code src[offset, offset + length)} (raw bytes are UTF-8, escapes
     * give more bytes) to {@code out}.
     *
     * @param src holds the bytes to decode
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @param out where the result goes
     * @throws MalformedTextException naming the offset in {@code src}
     */
    public static void decode(byte[] src, int offset, int length, Utf8StringBuilder out) {
        decode(src, offset, length, false, out);
    }

    /**
     * As {@link #decode(byte[], int, int, Utf8StringBuilder)}, with {@code +} read as a space.
     *
     * @param src holds the bytes to decode
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @param out where the result goes
     */
    public static void decodeForm(byte[] src, int offset, int length, Utf8StringBuilder out) {
        decode(src, offset, length, true, out);
    }

    private static void decode(byte[] src, int offset, int length, boolean plusIsSpace, Utf8StringBuilder out) {
        int end = offset + length;
        int i = offset;
        while (i < end) {
            // Copy the run up to the next escape (or '+') in one call, which takes the builder's ASCII fast path.
            int run = i;
            byte b;
            while (run < end && (b = src[run]) != '%' && (b != '+' || !plusIsSpace)) {
                run++;
            }
            if (run > i) {
                appendBytes(out, src, i, run - i);
                i = run;
                if (i == end) {
                    break;
                }
            }
            if (src[i] == '+') {
                appendByte(out, ' ', i);
                i++;
                continue;
            }
            if (i + 2 >= end) {
                throw new MalformedTextException("'%' not followed by two hex digits", i);
            }
            int v = HexDigits.parseByte(src, i + 1);
            if (v < 0) {
                throw new MalformedTextException("'%' not followed by two hex digits", i);
            }
            appendByte(out, v, i);
            i += 3;
        }
        if (!out.isComplete()) {
            throw new MalformedTextException("incomplete UTF-8 sequence at the end", end);
        }
    }

    // The builder counts bytes fed to it, not input positions; errors are rethrown naming the input index.

    private static void appendByte(Utf8StringBuilder out, int b, int index) {
        try {
            out.append((byte) b);
        } catch (MalformedTextException e) {
            throw new MalformedTextException(e.reason(), index);
        }
    }

    private static void appendBytes(Utf8StringBuilder out, byte[] src, int offset, int length) {
        long before = out.bytesAppended();
        try {
            out.append(src, offset, length);
        } catch (MalformedTextException e) {
            throw new MalformedTextException(e.reason(), offset + (e.offset() - before));
        }
    }
}
