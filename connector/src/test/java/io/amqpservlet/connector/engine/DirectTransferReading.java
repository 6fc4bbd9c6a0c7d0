package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Transfer;

/** Opens the engine's package-private direct transfer reader to the interop tests. */
public final class DirectTransferReading {
    private DirectTransferReading() {
    }

    /** Reads {@code body} (a whole transfer performative) into {@code t}; returns the payload offset or -1. */
    public static int read(byte[] body, Transfer t) {
        return new FirstTransferReader().read(body, 0, body.length, t);
    }
}
