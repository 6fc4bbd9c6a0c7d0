package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpWriter;

/**
 * The request-message workload of the design's performance budget: header (durable), properties (message-id,
 * to, subject, reply-to, content-type), five application-properties and one 100-byte data section.
 */
public final class RequestMessageFixture {
    public static final String MESSAGE_ID = "req-0000000001";
    public static final String TO = "/orders/42?expand=items";
    public static final String SUBJECT = "POST";
    public static final String REPLY_TO = "amqp-reply-7f3a2c";
    public static final String CONTENT_TYPE = "application/json";
    public static final String[] PROPERTY_NAMES = {
        "accept", "user-agent", "x-request-id", "accept-encoding", "cache-control"
    };
    public static final String[] PROPERTY_VALUES = {
        "application/json", "load-test/1.0", "5b7c1d2e-0000-0000-0000-000000000001", "identity", "no-cache"
    };
    public static final byte[] BODY = new byte[100];

    static {
        for (int i = 0; i < BODY.length; i++) {
            BODY[i] = (byte) ('a' + i % 26);
        }
    }

    private RequestMessageFixture() {
    }

    /** Writes the request message at the writer's position; returns its length. Allocates nothing. */
    public static int write(MessageWriter messages, AmqpWriter out) {
        return messages.wrap(out)
                .header(true)
                .startProperties()
                .messageId(MESSAGE_ID)
                .to(TO)
                .subject(SUBJECT)
                .replyTo(REPLY_TO)
                .contentType(CONTENT_TYPE)
                .endProperties()
                .startApplicationProperties()
                .put(PROPERTY_NAMES[0], PROPERTY_VALUES[0])
                .put(PROPERTY_NAMES[1], PROPERTY_VALUES[1])
                .put(PROPERTY_NAMES[2], PROPERTY_VALUES[2])
                .put(PROPERTY_NAMES[3], PROPERTY_VALUES[3])
                .put(PROPERTY_NAMES[4], PROPERTY_VALUES[4])
                .endApplicationProperties()
                .data(BODY, 0, BODY.length)
                .end();
    }

    /** The request message as a new array. */
    public static byte[] encode() {
        AmqpWriter out = new AmqpWriter();
        write(new MessageWriter(), out);
        return out.toByteArray();
    }
}
