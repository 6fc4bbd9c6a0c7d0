package io.amqpservlet.protocol.text;

/**
 * The strings an HTTP-over-AMQP gateway meets on nearly every message, in one shared {@link StringCache}: HTTP
 * methods, lowercase header names, common content types and the {@code http:} application-property keys of the
 * OASIS "HTTP Semantics and Content over AMQP" mapping. Decoding any of them through {@link #CACHE} allocates
 * nothing.
 */
public final class KnownStrings {
    // Package-private: arrays are mutable, the cache is the public face.

    /** RFC 9110 §9 methods, plus PATCH (RFC 5789). */
    static final String[] HTTP_METHODS = {
        "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT",
    };

    /** Header field names, lowercase as the mapping carries them in application-properties. */
    static final String[] HEADER_NAMES = {
        "accept", "accept-charset", "accept-encoding", "accept-language", "accept-ranges", "access-control-allow-origin",
        "age", "allow", "authorization", "cache-control", "connection", "content-disposition", "content-encoding",
        "content-language", "content-length", "content-location", "content-range", "content-type", "cookie", "date",
        "etag", "expect", "expires", "forwarded", "from", "host", "if-match", "if-modified-since", "if-none-match",
        "if-range", "if-unmodified-since", "keep-alive", "last-modified", "link", "location", "max-forwards", "origin",
        "pragma", "proxy-authorization", "range", "referer", "retry-after", "server", "set-cookie",
        "strict-transport-security", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via",
        "www-authenticate", "x-correlation-id", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
        "x-request-id", "traceparent", "tracestate",
    };

    /** Content types and codings seen on most requests and responses. */
    static final String[] CONTENT_TYPES = {
        "application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8",
        "application/octet-stream", "application/x-www-form-urlencoded", "application/xml", "application/cbor",
        "application/problem+json", "multipart/form-data", "text/plain", "text/plain; charset=utf-8",
        "text/plain;charset=UTF-8", "text/html", "text/html; charset=utf-8", "text/xml", "text/csv", "text/event-stream",
        "gzip", "deflate", "br", "identity", "*/*", "utf-8", "UTF-8", "no-cache", "close", "keep-alive",
    };

    /** Keys and values of the HTTP-over-AMQP mapping (WD06 §3) and common status codes as response subjects. */
    static final String[] HTTP_OVER_AMQP = {
        "http:request", "http:response", "http:host", "http:method", "http:scheme", "http:status", "1.1", "1.0", "2",
        "200", "201", "202", "204", "301", "302", "304", "400", "401", "403", "404", "405", "409", "415", "429", "500",
        "502", "503", "504",
    };

    /** All of the above. */
    public static final StringCache CACHE = StringCache.builder()
            .addAll(HTTP_METHODS)
            .addAll(HEADER_NAMES)
            .addAll(CONTENT_TYPES)
            .addAll(HTTP_OVER_AMQP)
            .build();

    private KnownStrings() {
    }
}
