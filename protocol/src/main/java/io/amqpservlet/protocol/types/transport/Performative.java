package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.types.DescribedList;

/**
 * A frame body of an AMQP frame (AMQP 1.0 §2.7): open, begin, attach, flow, transfer, disposition, detach, end
 * or close. Decoded in place by {@link Performatives}.
 */
public abstract class Performative extends DescribedList {
    Performative() {
    }
}
