package io.amqpservlet.jetty;

/**
 * The RFC 9110 §5 syntax of HTTP field names and values, for checking what a peer puts in application-properties
 * before it becomes a header: a name must be a token, a value must not hold CR, LF or NUL (which would let a
 * header be injected where the request is later written as HTTP/1, e.g. by a proxy servlet).
 */
final class HeaderSyntax {
    // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|"
    //                          / "~" / DIGIT / ALPHA
    private static final boolean[] TCHAR = new boolean[256];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private HeaderSyntax() {
    }

    /** Whether {@code b} may appear in a token (a method or a field name). */
    static boolean isTokenChar(byte b) {
        return TCHAR[b & 0xFF];
    }

    /** Whether {@code value} is acceptable as a field value: no CR, LF or NUL (RFC 9110 §5.5). */
    static boolean isFieldValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                return false;
            }
        }
        return true;
    }
}
