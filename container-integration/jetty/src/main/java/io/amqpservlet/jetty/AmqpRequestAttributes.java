package io.amqpservlet.jetty;

/**
 * The request attributes the AMQP connector sets on every request it dispatches: a fixed, documented list, so a
 * servlet can see the AMQP side of its request (for example to detect a redelivery by its message-id).
 *
 * <p>Nothing a peer chooses ever names an attribute: application-properties become headers or nothing, never
 * attributes (docs/design.md §3; a peer-chosen attribute name is how AJP's Ghostcat let clients set
 * {@code javax.servlet.include.*}). An attribute is absent when the message has no such field. A typed body adds
 * one more, {@link AmqpBody#REQUEST_VALUE}.
 */
public final class AmqpRequestAttributes {
    /**
     * The request's {@code properties.message-id} (AMQP 1.0 §3.2.4), as its AMQP type maps to Java:
     * {@code String}, {@code java.util.UUID}, {@code byte[]} (binary) or {@code Long} (ulong, the 64 bits read as
     * unsigned: use {@link Long#toUnsignedString(long)}).
     */
    public static final String MESSAGE_ID = "io.amqpservlet.message-id";
    /** The request's {@code properties.correlation-id}, typed as {@link #MESSAGE_ID}. */
    public static final String CORRELATION_ID = "io.amqpservlet.correlation-id";
    /**
     * The target address of the link the request arrived on ({@code String}); absent for a link without a target
     * address (the anonymous relay, where {@code properties.to} alone names the resource).
     */
    public static final String LINK_ADDRESS = "io.amqpservlet.link-address";
    /**
     * The request's {@code header.delivery-count} (AMQP 1.0 §3.2.1) as a {@code Long}: how many earlier attempts
     * to deliver this message failed; 0 when the message has no header. A count above 0 marks a possible
     * redelivery of a request the servlet may already have served.
     */
    public static final String DELIVERY_COUNT = "io.amqpservlet.delivery-count";

    private AmqpRequestAttributes() {
    }
}
