package io.amqpservlet.bench.codec;

/**
 * The field values of the {@code requestMessage} workload: what an HTTP-over-AMQP client puts in a request
 * (WD06 projected mode: method in subject, request-target in to, headers as application-properties). Every
 * codec encodes from these same values and every decoder must get them back.
 */
final class RequestValues {
    static final boolean DURABLE = true;
    static final String MESSAGE_ID = "req-0000000001";
    static final String TO = "/orders/42?expand=items";
    static final String SUBJECT = "POST";
    static final String REPLY_TO = "amqp-reply-7f3a2c";
    static final String CONTENT_TYPE = "application/json";

    static final int HEADER_COUNT = 5;
    private static final String[] HEADER_NAMES = {
        "accept", "user-agent", "x-request-id", "accept-encoding", "cache-control",
    };
    private static final String[] HEADER_VALUES = {
        "application/json", "load-test/1.0", "5b7c1d2e-0000-0000-0000-000000000001", "identity", "no-cache",
    };

    static final int BODY_LENGTH = 100;
    private static final byte[] BODY = makeBody();

    private RequestValues() {
    }

    static String headerName(int i) {
        return HEADER_NAMES[i];
    }

    static String headerValue(int i) {
        return HEADER_VALUES[i];
    }

    /** The body; callers must not change it (kept shared so that no codec pays for making it). */
    static byte[] body() {
        return BODY;
    }

    private static byte[] makeBody() {
        // A JSON-looking 100-byte body.
        byte[] b = new byte[BODY_LENGTH];
        String json = "{\"order\":42,\"items\":[{\"sku\":\"A-1\",\"qty\":2}],\"note\":\"";
        for (int i = 0; i < b.length; i++) {
            b[i] = i < json.length() ? (byte) json.charAt(i) : (byte) ('a' + i % 26);
        }
        b[b.length - 2] = '"';
        b[b.length - 1] = '}';
        return b;
    }
}
