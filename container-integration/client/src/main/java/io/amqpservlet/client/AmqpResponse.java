package io.amqpservlet.client;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;

/**
 * An HTTP response as it came back over AMQP (docs/design.md §3): the status from {@code subject}, content type and
 * encoding from the properties, headers from the application-properties (in their wire order), the body from the
 * data sections.
 */
public final class AmqpResponse {
    private final int status;
    private final String contentType;
    private final String contentEncoding;
    private final Map<String, String> headers;
    private final byte[] body;

    AmqpResponse(int status, String contentType, String contentEncoding, Map<String, String> headers, byte[] body) {
        this.status = status;
        this.contentType = contentType;
        this.contentEncoding = contentEncoding;
        this.headers = Collections.unmodifiableMap(headers);
        this.body = body;
    }

    /** {@return the HTTP status, or -1 when the subject was not a number} */
    public int status() {
        return status;
    }

    /** {@return the {@code content-type} property, or null} */
    public String contentType() {
        return contentType;
    }

    /** {@return the {@code content-encoding} property, or null} */
    public String contentEncoding() {
        return contentEncoding;
    }

    /** {@return the application-properties with a string form, including {@code http:response}} */
    public Map<String, String> headers() {
        return headers;
    }

    /** {@return the data sections concatenated} */
    public byte[] body() {
        return body;
    }

    /** This response's status, properties and headers with an empty body (what a {@link ResponseListener} gets first). */
    AmqpResponse withoutBody() {
        return new AmqpResponse(status, contentType, contentEncoding, headers, new byte[0]);
    }

    /** {@return the body as UTF-8 text} */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
