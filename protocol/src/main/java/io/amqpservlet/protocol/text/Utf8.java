package io.amqpservlet.protocol.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 (RFC 3629) without the JDK's silent replacement: overlong forms, surrogates, code points above
 * U+10FFFF and truncated sequences are rejected. Decoding takes an ASCII fast path that copies bytes straight
 * into a Latin-1 string.
 */
public final class Utf8 {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8() {
    }

    /**
     * {@return the offset of the first byte at or after {@code from} (and before {@code end}) that is not ASCII, or
     * {@code end}: eight bytes per step while they are all ASCII, which protocol text almost always is}
     *
     * @param bytes holds the bytes to scan
     * @param from where to start
     * @param end where to stop
     */
    public static int skipAscii(byte[] bytes, int from, int end) {
        int i = from;
        while (i + 8 <= end && ((long) LONG.get(bytes, i) & HIGH_BITS) == 0) {
            i += 8;
        }
        while (i < end && bytes[i] >= 0) {
            i++;
        }
        return i;
    }

    /**
     * Returns the offset of the first byte that is not part of a valid UTF-8 sequence, or {@code -1} if
     * {@code bytes[offset, offset + length)} is valid UTF-8.
     *
     * @param bytes holds the bytes to check
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return the offset of the first invalid byte, or -1
     */
    public static int firstInvalid(byte[] bytes, int offset, int length) {
        int end = offset + length;
        // ASCII run first: the common case for protocol strings.
        int i = skipAscii(bytes, offset, end);
        while (i < end) {
            int b = bytes[i];
            if (b >= 0) {
                i++;
                continue;
            }
            int lead = b & 0xFF;
            if (lead < 0xC2) {
                return i; // continuation byte without a lead, or overlong 2-byte form
            } else if (lead < 0xE0) {
                if (i + 1 >= end || !isContinuation(bytes[i + 1])) {
                    return i;
                }
                i += 2;
            } else if (lead < 0xF0) {
                if (i + 2 >= end) {
                    return i;
                }
                int b1 = bytes[i + 1] & 0xFF;
                if (!isContinuation(bytes[i + 1]) || !isContinuation(bytes[i + 2])
                        || (lead == 0xE0 && b1 < 0xA0) // overlong
                        || (lead == 0xED && b1 >= 0xA0)) { // UTF-16 surrogate
                    return i;
                }
                i += 3;
            } else if (lead < 0xF5) {
                if (i + 3 >= end) {
                    return i;
                }
                int b1 = bytes[i + 1] & 0xFF;
                if (!isContinuation(bytes[i + 1]) || !isContinuation(bytes[i + 2]) || !isContinuation(bytes[i + 3])
                        || (lead == 0xF0 && b1 < 0x90) // overlong
                        || (lead == 0xF4 && b1 >= 0x90)) { // above U+10FFFF
                    return i;
                }
                i += 4;
            } else {
                return i;
            }
        }
        return -1;
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }

    /**
     * {@return whether every byte is below 0x80}
     *
     * @param bytes holds the bytes to check
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     */
    public static boolean isAscii(byte[] bytes, int offset, int length) {
        int end = offset + length;
        return skipAscii(bytes, offset, end) == end;
    }

    /**
     * Decodes valid UTF-8 into a String.
     *
     * @param bytes holds the bytes to decode
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return the decoded text
     * @throws IllegalArgumentException naming the offset of the first invalid byte
     */
    public static String decode(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = skipAscii(bytes, offset, end);
        if (i == end) {
            // Latin-1 of ASCII bytes is the same text, and the JDK stores it compactly without decoding.
            return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
        }
        int bad = firstInvalid(bytes, i, end - i);
        if (bad >= 0) {
            throw new IllegalArgumentException("invalid UTF-8 byte 0x" + Integer.toHexString(bytes[bad] & 0xFF)
                    + " at offset " + bad);
        }
        return new String(bytes, offset, length, StandardCharsets.UTF_8);
    }

    /**
     * {@return the number of bytes {@link #encode} writes for {@code text}; unpaired surrogates count as '?' (1 byte)}
     *
     * @param text the text to encode
     */
    public static int encodedLength(CharSequence text) {
        int n = text.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    bytes += 2; // 4 bytes for 2 chars
                    i++;
                } else if (Character.isSurrogate(c)) {
                    // unpaired surrogate: encoded as '?', one byte
                } else {
                    bytes += 2;
                }
            }
        }
        return bytes;
    }

    /**
     * Encodes {@code text} as UTF-8 into {@code dst} at {@code offset}; the caller has made room for
     * {@link #encodedLength} bytes. Unpaired surrogates become '?', as in {@link String#getBytes}.
     *
     * @param text the text to encode
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @return the offset after the last byte written
     */
    public static int encode(CharSequence text, byte[] dst, int offset) {
        int n = text.length();
        if (text instanceof String) {
            // Most text on the wire is ASCII: copy every char's low byte with no branch per char (a loop the JIT
            // unrolls), and check once at the end whether any char was not ASCII. Room for n bytes is there:
            // UTF-8 never takes fewer bytes than chars.
            String s = (String) text;
            int any = 0;
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                any |= c;
                dst[offset + i] = (byte) c;
            }
            if (any < 0x80) {
                return offset + n;
            }
        }
        int p = offset;
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                break;
            }
            dst[p++] = (byte) c;
            i++;
        }
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                dst[p++] = (byte) c;
            } else if (c < 0x800) {
                dst[p++] = (byte) (0xC0 | (c >> 6));
                dst[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, text.charAt(++i));
                dst[p++] = (byte) (0xF0 | (cp >> 18));
                dst[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                dst[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                dst[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                dst[p++] = '?';
            } else {
                dst[p++] = (byte) (0xE0 | (c >> 12));
                dst[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                dst[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return p;
    }
}
