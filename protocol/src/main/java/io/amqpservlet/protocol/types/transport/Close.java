package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.types.Descriptors;

/** The {@code close} performative (AMQP 1.0 §2.7.9): closes the connection, with an optional error. */
public final class Close extends EndingPerformative {

    /** Creates an empty {@code Close}. */
    public Close() {
    }

    @Override
    public long descriptor() {
        return Descriptors.CLOSE;
    }

    @Override
    public String typeName() {
        return "close";
    }

    @Override
    public Close clear() {
        super.clear();
        return this;
    }
}
