package io.amqpservlet.protocol.text;

/**
 * Hexadecimal digits, table driven: one 256-entry table turns an ASCII byte into its value, two 16-entry tables
 * turn a nibble into a lowercase or uppercase digit. Parsing and formatting write into the caller's arrays and
 * builders and never allocate.
 */
public final class HexDigits {
    /** Digit value of each byte value 0-255, or -1 when the byte is not a hex digit. */
    private static final byte[] VALUE = new byte[256];
    private static final byte[] LOWER = {
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    private static final byte[] UPPER = {
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};

    static {
        for (int i = 0; i < 256; i++) {
            VALUE[i] = -1;
        }
        for (int i = 0; i < 10; i++) {
            VALUE['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            VALUE['a' + i] = (byte) (10 + i);
            VALUE['A' + i] = (byte) (10 + i);
        }
    }

    private HexDigits() {
    }

    /**
     * {@return the value 0-15 of the hex digit {@code b}, or -1 when it is not one}
     *
     * @param b the byte to check
     */
    public static int value(byte b) {
        return VALUE[b & 0xFF];
    }

    /**
     * {@return the value 0-15 of the hex digit {@code c}, or -1 when it is not one (any char above 0xFF is not)}
     *
     * @param c the char to check
     */
    public static int value(char c) {
        return c < 256 ? VALUE[c] : -1;
    }

    /**
     * {@return whether {@code b} is a hex digit, either case}
     *
     * @param b the byte to check
     */
    public static boolean isHex(byte b) {
        return VALUE[b & 0xFF] >= 0;
    }

    /**
     * {@return whether {@code c} is a hex digit, either case}
     *
     * @param c the char to check
     */
    public static boolean isHex(char c) {
        return c < 256 && VALUE[c] >= 0;
    }

    /**
     * {@return the byte value 0-255 of the two hex digits at {@code bytes[offset]} and {@code bytes[offset + 1]}, or -1 when
     * either is not a hex digit} The caller has checked that both indexes are in range.
     *
     * @param bytes holds the bytes to read
     * @param offset where it starts in {@code bytes}
     */
    public static int parseByte(byte[] bytes, int offset) {
        int hi = VALUE[bytes[offset] & 0xFF];
        int lo = VALUE[bytes[offset + 1] & 0xFF];
        // A negative digit makes the result negative: -1 shifted or or-ed stays below zero.
        return (hi << 4 | lo) | (hi | lo) >> 31;
    }

    /**
     * As {@link #parseByte(byte[], int)}, over the chars at {@code index} and {@code index + 1}.
     *
     * @param text holds the hex digits
     * @param index where the two digits start in {@code text}
     * @return the byte, 0 to 255
     */
    public static int parseByte(CharSequence text, int index) {
        int hi = value(text.charAt(index));
        int lo = value(text.charAt(index + 1));
        return (hi << 4 | lo) | (hi | lo) >> 31;
    }

    /**
     * Parses {@code bytes[offset, offset + length)} as an unsigned hex number of 1 to 16 digits.
     *
     * @param bytes holds the bytes to read
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return the number
     * @throws MalformedTextException if the range is empty, longer than 16 digits or holds a non-hex byte
     */
    public static long parseLong(byte[] bytes, int offset, int length) {
        if (length < 1 || length > 16) {
            throw new MalformedTextException("hex number of " + length + " digits, expected 1 to 16", offset);
        }
        long result = 0;
        for (int i = offset, end = offset + length; i < end; i++) {
            int digit = VALUE[bytes[i] & 0xFF];
            if (digit < 0) {
                throw new MalformedTextException("not a hex digit: 0x" + Integer.toHexString(bytes[i] & 0xFF), i);
            }
            result = result << 4 | digit;
        }
        return result;
    }

    /**
     * As {@link #parseLong(byte[], int, int)}, over {@code text[start, end)}.
     *
     * @param text holds the hex digits
     * @param start where the digits start in {@code text}
     * @param end where they end in {@code text}
     * @return the number
     */
    public static long parseLong(CharSequence text, int start, int end) {
        int length = end - start;
        if (length < 1 || length > 16) {
            throw new MalformedTextException("hex number of " + length + " digits, expected 1 to 16", start);
        }
        long result = 0;
        for (int i = start; i < end; i++) {
            int digit = value(text.charAt(i));
            if (digit < 0) {
                throw new MalformedTextException("not a hex digit: '" + text.charAt(i) + "'", i);
            }
            result = result << 4 | digit;
        }
        return result;
    }

    /**
     * {@return the lowercase (or uppercase) hex digit of the low four bits of {@code nibble}, as a byte}
     *
     * @param nibble a value from 0 to 15
     * @param upperCase whether to write A-F rather than a-f
     */
    public static byte digit(int nibble, boolean upperCase) {
        return (upperCase ? UPPER : LOWER)[nibble & 0xF];
    }

    /**
     * Writes {@code b} as two hex digits into {@code dst} at {@code offset}.
     *
     * @param b the byte to write (its low 8 bits)
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @param upperCase whether to write A-F rather than a-f
     * @return the offset after the digits
     */
    public static int writeByte(int b, byte[] dst, int offset, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        dst[offset] = digits[(b >> 4) & 0xF];
        dst[offset + 1] = digits[b & 0xF];
        return offset + 2;
    }

    /**
     * Writes {@code b} as two hex digits into {@code dst} at {@code offset}; returns the offset after them.
     *
     * @param b the byte to write (its low 8 bits)
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @param upperCase whether to write A-F rather than a-f
     * @return the offset after the two digits
     */
    public static int writeByte(int b, char[] dst, int offset, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        dst[offset] = (char) digits[(b >> 4) & 0xF];
        dst[offset + 1] = (char) digits[b & 0xF];
        return offset + 2;
    }

    /**
     * Appends {@code b} as two hex digits.
     *
     * @param b the byte to write (its low 8 bits)
     * @param dst the builder to append to
     * @param upperCase whether to write A-F rather than a-f
     */
    public static void appendByte(int b, StringBuilder dst, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        dst.append((char) digits[(b >> 4) & 0xF]).append((char) digits[b & 0xF]);
    }

    /**
     * Writes {@code src[offset, offset + length)} as {@code 2 * length} hex digits into {@code dst} at
     * {@code dstOffset}; returns the offset after them.
     *
     * @param src holds the bytes to write
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @param dst the array to write into
     * @param dstOffset where in {@code dst} the first byte goes
     * @param upperCase whether to write A-F rather than a-f
     * @return the offset after the digits
     */
    public static int writeBytes(byte[] src, int offset, int length, byte[] dst, int dstOffset, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        int p = dstOffset;
        for (int i = offset, end = offset + length; i < end; i++) {
            int b = src[i];
            dst[p++] = digits[(b >> 4) & 0xF];
            dst[p++] = digits[b & 0xF];
        }
        return p;
    }

    /**
     * Appends {@code src[offset, offset + length)} as {@code 2 * length} hex digits.
     *
     * @param src holds the bytes to append
     * @param offset where they start in {@code src}
     * @param length their length in bytes
     * @param dst the builder to append to
     * @param upperCase whether to write A-F rather than a-f
     */
    public static void appendBytes(byte[] src, int offset, int length, StringBuilder dst, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        for (int i = offset, end = offset + length; i < end; i++) {
            int b = src[i];
            dst.append((char) digits[(b >> 4) & 0xF]).append((char) digits[b & 0xF]);
        }
    }

    /**
     * Writes {@code value} as exactly eight hex digits (leading zeros kept); returns the offset after them.
     *
     * @param value the number to write
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @param upperCase whether to write A-F rather than a-f
     * @return the offset after the eight digits
     */
    public static int writeInt(int value, byte[] dst, int offset, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        for (int shift = 28, p = offset; shift >= 0; shift -= 4) {
            dst[p++] = digits[(value >>> shift) & 0xF];
        }
        return offset + 8;
    }

    /**
     * Writes {@code value} as exactly eight hex digits (leading zeros kept); returns the offset after them.
     *
     * @param value the number to write
     * @param dst the array to write into
     * @param offset where in {@code dst} the first byte goes
     * @param upperCase whether to write A-F rather than a-f
     * @return the offset after the eight digits
     */
    public static int writeInt(int value, char[] dst, int offset, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        for (int shift = 28, p = offset; shift >= 0; shift -= 4) {
            dst[p++] = (char) digits[(value >>> shift) & 0xF];
        }
        return offset + 8;
    }

    /**
     * Appends {@code value} in hex without leading zeros ({@code "0"} for zero), as {@link Long#toHexString}.
     *
     * @param value the number to write
     * @param dst the builder to append to
     * @param upperCase whether to write A-F rather than a-f
     */
    public static void appendLong(long value, StringBuilder dst, boolean upperCase) {
        byte[] digits = upperCase ? UPPER : LOWER;
        int shift = 60;
        while (shift > 0 && (value >>> shift) == 0) {
            shift -= 4;
        }
        for (; shift >= 0; shift -= 4) {
            dst.append((char) digits[(int) (value >>> shift) & 0xF]);
        }
    }
}
