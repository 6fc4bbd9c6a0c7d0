package io.amqpservlet.protocol.text;

/**
 * Hexadecimal digits, table driven: one 256-entry table turns an ASCII byte into its value, two 16-entry tables
 * turn a nibble into a lowercase or uppercase digit. What {@link PercentEncoder} needs: recognising an escape's
 * digits and writing a byte as two digits into the caller's array, never allocating.
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
}
