package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.types.Descriptors;

/** The {@code end} performative (AMQP 1.0 §2.7.8): ends a session, with an optional error. */
public final class End extends EndingPerformative {

    /** Creates an empty {@code End}. */
    public End() {
    }

    @Override
    public long descriptor() {
        return Descriptors.END;
    }

    @Override
    public String typeName() {
        return "end";
    }

    @Override
    public End clear() {
        super.clear();
        return this;
    }
}
