package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.types.DescribedList;

/**
 * The body of a SASL frame (AMQP 1.0 §5.3.3): sasl-mechanisms, sasl-init, sasl-challenge, sasl-response or
 * sasl-outcome. Decoded in place by {@link SaslFrames}.
 */
public abstract class SaslFrame extends DescribedList {
    SaslFrame() {
    }
}
