package io.amqpservlet.gateway;

import java.util.Locale;

/**
 * Reads the value of one option (numbers, sizes, booleans) and checks its range; a value that does not fit is a
 * {@link GatewayOptions.UsageException} naming the option, what it wants and what it got.
 */
final class OptionValues {
    private OptionValues() {
    }

    /** A whole number from 1 to {@code max}, or a usage error naming the option and what it wants. */
    static long positive(String name, String value, long max, String what) throws GatewayOptions.UsageException {
        return whole(name, value, 1, max, what);
    }

    /** A whole number from 0 to {@link Integer#MAX_VALUE}. */
    static long nonNegative(String name, String value, String what) throws GatewayOptions.UsageException {
        return whole(name, value, 0, Integer.MAX_VALUE, what);
    }

    /** A whole number from {@code min} to {@code max}. */
    static long whole(String name, String value, long min, long max, String what)
            throws GatewayOptions.UsageException {
        long n;
        try {
            n = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new GatewayOptions.UsageException("--" + name + " wants " + what + ", got " + value);
        }
        return inRange(name, value, n, min, max);
    }

    /** A size ({@link #sizeBytes}) from {@code min} to {@code max} bytes. */
    static long size(String name, String value, long min, long max) throws GatewayOptions.UsageException {
        return inRange(name, value, Long.parseLong(sizeBytes(name, value)), min, max);
    }

    private static long inRange(String name, String value, long n, long min, long max)
            throws GatewayOptions.UsageException {
        if (n < min || n > max) {
            throw new GatewayOptions.UsageException("--" + name + " must be from " + min + " to " + max + ", got "
                    + value);
        }
        return n;
    }

    /** {@code true} or {@code false}, in any case. */
    static boolean bool(String name, String value) throws GatewayOptions.UsageException {
        String v = value.trim();
        if ("true".equalsIgnoreCase(v)) {
            return true;
        }
        if ("false".equalsIgnoreCase(v)) {
            return false;
        }
        throw new GatewayOptions.UsageException("--" + name + " is true or false, got " + value);
    }

    /** "65536", "64k", "64m" or "1g" (binary multiples) as a decimal string of bytes. */
    static String sizeBytes(String name, String value) throws GatewayOptions.UsageException {
        String v = value.trim().toLowerCase(Locale.ROOT);
        int shift = v.endsWith("k") ? 10 : v.endsWith("m") ? 20 : v.endsWith("g") ? 30 : 0;
        String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new GatewayOptions.UsageException("--" + name + " is too large: " + value);
            }
            return Long.toString(n << shift);
        } catch (NumberFormatException e) {
            throw new GatewayOptions.UsageException("--" + name + " wants a size such as 65536, 64k or 64m, got "
                    + value);
        }
    }
}
