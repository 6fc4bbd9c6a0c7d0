package io.amqpservlet.bench.codec;

import java.util.Arrays;

/**
 * What a servlet bridge takes out of a request message, as Strings: subject, to, reply-to, message-id,
 * content-type, the application-properties whose values are strings (name and value), and the body as a view
 * (array, offset, length) of the bytes the decoder produced. One holder is reused by a benchmark; decoders
 * overwrite it completely with {@link #reset()} first.
 */
final class DecodedRequest {
    static final int MAX_HEADERS = 16;

    String messageId;
    String to;
    String subject;
    String replyTo;
    String contentType;
    final String[] headerNames = new String[MAX_HEADERS];
    final String[] headerValues = new String[MAX_HEADERS];
    int headerCount;
    byte[] body;
    int bodyOffset;
    int bodyLength;

    void reset() {
        messageId = null;
        to = null;
        subject = null;
        replyTo = null;
        contentType = null;
        headerCount = 0;
        body = null;
        bodyOffset = 0;
        bodyLength = 0;
    }

    void addHeader(String name, String value) {
        if (headerCount == MAX_HEADERS) {
            throw new IllegalStateException("more than " + MAX_HEADERS + " headers");
        }
        headerNames[headerCount] = name;
        headerValues[headerCount] = value;
        headerCount++;
    }

    /** Throws unless this holds exactly the values of {@link RequestValues}; {@code who} names the codec pair. */
    void verify(String who) {
        expect(who, "message-id", RequestValues.MESSAGE_ID, messageId);
        expect(who, "to", RequestValues.TO, to);
        expect(who, "subject", RequestValues.SUBJECT, subject);
        expect(who, "reply-to", RequestValues.REPLY_TO, replyTo);
        expect(who, "content-type", RequestValues.CONTENT_TYPE, contentType);
        if (headerCount != RequestValues.HEADER_COUNT) {
            throw new AssertionError(who + ": " + headerCount + " headers, expected " + RequestValues.HEADER_COUNT);
        }
        // Order is not part of an AMQP map's meaning, so look each expected header up by name.
        for (int i = 0; i < RequestValues.HEADER_COUNT; i++) {
            String name = RequestValues.headerName(i);
            String value = null;
            for (int j = 0; j < headerCount; j++) {
                if (name.equals(headerNames[j])) {
                    value = headerValues[j];
                }
            }
            expect(who, "header " + name, RequestValues.headerValue(i), value);
        }
        byte[] expected = RequestValues.body();
        if (body == null || !Arrays.equals(expected, 0, expected.length, body, bodyOffset, bodyOffset + bodyLength)) {
            throw new AssertionError(who + ": body differs");
        }
    }

    private static void expect(String who, String field, String expected, String actual) {
        if (!expected.equals(actual)) {
            throw new AssertionError(who + ": " + field + " is " + actual + ", expected " + expected);
        }
    }
}
