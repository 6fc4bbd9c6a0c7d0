package io.amqpservlet.connector.engine;

/**
 * RFC 1982 serial-number arithmetic with SERIAL_BITS = 32, as AMQP 1.0 §2.8.9 (sequence-no) requires for
 * delivery-count, delivery-id and transfer-id. Values are the 32 bits of an {@code int}; they wrap from
 * 2^32−1 to 0, so ordinary {@code <} is wrong near the wrap and these methods must be used instead.
 */
final class SerialNumber {
    private SerialNumber() {
    }

    /** {@code s + n} modulo 2^32; RFC 1982 §3.1 defines it for {@code 0 <= n <= 2^31 - 1}. */
    public static int add(int s, int n) {
        if (n < 0) {
            throw new IllegalArgumentException("serial addition needs 0 <= n < 2^31: " + n);
        }
        return s + n;
    }

    /**
     * Compares two serial numbers per RFC 1982 §3.2: negative when {@code a} precedes {@code b}, positive when it
     * follows, 0 when equal. The comparison is undefined by the RFC when the two are exactly 2^31 apart; this
     * method then reports {@code a} as preceding {@code b}, which keeps the result antisymmetric for all other
     * pairs.
     */
    public static int compare(int a, int b) {
        if (a == b) {
            return 0;
        }
        int d = a - b;
        return d == Integer.MIN_VALUE ? -1 : (d < 0 ? -1 : 1);
    }

    /** Whether {@code a} precedes {@code b}. */
    public static boolean lessThan(int a, int b) {
        return compare(a, b) < 0;
    }

    /** Whether {@code a} precedes or equals {@code b}. */
    public static boolean lessThanOrEqual(int a, int b) {
        return a == b || compare(a, b) < 0;
    }

    /** How far {@code to} is ahead of {@code from}, as an unsigned distance modulo 2^32 in a long. */
    public static long distance(int from, int to) {
        return (to - from) & 0xFFFFFFFFL;
    }
}
