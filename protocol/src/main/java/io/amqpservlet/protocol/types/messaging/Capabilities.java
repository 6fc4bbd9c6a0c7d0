package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.types.Symbol;

/**
 * Capability and distribution-mode symbols that peers of this project offer or ask for. Not all of them are
 * defined by AMQP 1.0 itself: the origin of each is noted.
 */
public final class Capabilities {
    private Capabilities() {
    }

    /** Connection capability: sender links with a null target, routed by each message's {@code to}
     * (OASIS AMQP Anonymous Terminus for Message Routing). */
    public static final Symbol ANONYMOUS_RELAY = Symbol.of("ANONYMOUS-RELAY");
    /** Terminus capability asked for by JMS temporary queues (AMQP JMS mapping). */
    public static final Symbol TEMPORARY_QUEUE = Symbol.of("temporary-queue");
    /** Terminus capability asked for by JMS temporary topics (AMQP JMS mapping). */
    public static final Symbol TEMPORARY_TOPIC = Symbol.of("temporary-topic");
    /** Terminus capability for a queue node (AMQP JMS mapping). */
    public static final Symbol QUEUE = Symbol.of("queue");
    /** Terminus capability for a topic node (AMQP JMS mapping). */
    public static final Symbol TOPIC = Symbol.of("topic");
    /** Connection capability for delayed delivery (AMQP JMS mapping). */
    public static final Symbol DELAYED_DELIVERY = Symbol.of("DELAYED_DELIVERY");
    /** AMQP 1.0 §3.5.7 std-dist-mode: messages are moved to one receiver. */
    public static final Symbol DISTRIBUTION_MOVE = Symbol.of("move");
    /** AMQP 1.0 §3.5.7 std-dist-mode: messages are copied to every receiver. */
    public static final Symbol DISTRIBUTION_COPY = Symbol.of("copy");
    /** AMQP 1.0 §3.5.8 node-properties key: the lifetime policy of a dynamic node. */
    public static final Symbol LIFETIME_POLICY = Symbol.of("lifetime-policy");
}
