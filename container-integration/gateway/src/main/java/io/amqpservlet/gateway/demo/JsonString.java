package io.amqpservlet.gateway.demo;

/**
 * Writes a Java string as a JSON string literal (RFC 8259 §7): quote, reverse solidus and control characters
 * escaped; everything else, including non-ASCII, written as is (the response is UTF-8).
 */
final class JsonString {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonString() {
    }

    static StringBuilder append(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    // RFC 8259 §7: U+0000..U+001F must be escaped; U+2028/2029 too, so the text is also valid JS.
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 15])
                                .append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"');
    }
}
