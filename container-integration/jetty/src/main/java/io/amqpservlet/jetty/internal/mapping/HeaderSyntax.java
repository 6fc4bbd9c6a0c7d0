package io.amqpservlet.jetty.internal.mapping;

/**
 * The RFC 9110 §5.5 rule for HTTP field values, for checking what a peer puts in application-properties before it
 * becomes a header: a value must not hold CR, LF or NUL (which would let a header be injected where the request is
 * later written as HTTP/1, e.g. by a proxy servlet). Other controls pass, as §5.5 allows. Names are tokens, checked
 * with Jetty's {@code HttpTokens} (the same tchar set); Jetty's value check is not used because it also refuses
 * every other control character and DEL.
 */
final class HeaderSyntax {
    private HeaderSyntax() {
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
