package io.amqpservlet.bench.codec;

import io.amqpservlet.protocol.types.MutableBytes;

import java.util.Arrays;

/**
 * The same fields as {@link DecodedRequest}, held as bytes in reused {@link MutableBytes} holders: what the
 * connector's zero-allocation scan produces. The body is a view into the decoded buffer.
 */
final class ScannedRequest {
    final MutableBytes messageId = new MutableBytes();
    final MutableBytes to = new MutableBytes();
    final MutableBytes subject = new MutableBytes();
    final MutableBytes replyTo = new MutableBytes();
    final MutableBytes contentType = new MutableBytes();
    final MutableBytes[] headerNames = holders(DecodedRequest.MAX_HEADERS);
    final MutableBytes[] headerValues = holders(DecodedRequest.MAX_HEADERS);
    int headerCount;
    byte[] body;
    int bodyOffset;
    int bodyLength;

    private static MutableBytes[] holders(int n) {
        MutableBytes[] h = new MutableBytes[n];
        for (int i = 0; i < n; i++) {
            h[i] = new MutableBytes();
        }
        return h;
    }

    void reset() {
        messageId.clear();
        to.clear();
        subject.clear();
        replyTo.clear();
        contentType.clear();
        headerCount = 0;
        body = null;
        bodyOffset = 0;
        bodyLength = 0;
    }

    /** Throws unless this holds exactly the values of {@link RequestValues}. */
    void verify(String who) {
        expect(who, "message-id", RequestValues.MESSAGE_ID, messageId);
        expect(who, "to", RequestValues.TO, to);
        expect(who, "subject", RequestValues.SUBJECT, subject);
        expect(who, "reply-to", RequestValues.REPLY_TO, replyTo);
        expect(who, "content-type", RequestValues.CONTENT_TYPE, contentType);
        if (headerCount != RequestValues.HEADER_COUNT) {
            throw new AssertionError(who + ": " + headerCount + " headers, expected " + RequestValues.HEADER_COUNT);
        }
        for (int i = 0; i < RequestValues.HEADER_COUNT; i++) {
            String name = RequestValues.headerName(i);
            MutableBytes value = null;
            for (int j = 0; j < headerCount; j++) {
                if (headerNames[j].contentEquals(name)) {
                    value = headerValues[j];
                }
            }
            if (value == null) {
                throw new AssertionError(who + ": header " + name + " missing");
            }
            expect(who, "header " + name, RequestValues.headerValue(i), value);
        }
        byte[] expected = RequestValues.body();
        if (body == null || !Arrays.equals(expected, 0, expected.length, body, bodyOffset, bodyOffset + bodyLength)) {
            throw new AssertionError(who + ": body differs");
        }
    }

    private static void expect(String who, String field, String expected, MutableBytes actual) {
        if (!actual.contentEquals(expected)) {
            throw new AssertionError(who + ": " + field + " is " + actual + ", expected " + expected);
        }
    }
}
