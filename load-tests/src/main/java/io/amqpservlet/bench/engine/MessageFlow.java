package io.amqpservlet.bench.engine;

/**
 * Two engines of one implementation joined in memory, a sending link on one and a receiving link on the other,
 * driven by the calling thread the way that implementation's users drive it. Output of each engine is handed to the
 * other in the same thread (no sockets, no threads), so the numbers show the engines' own costs.
 */
interface MessageFlow {

    /** The implementation's name as the report shows it: ours, protonj or protonj2. */
    String name();

    /**
     * Sends {@code messages} more messages as fast as credit allows and returns once the receiver has all of them
     * and, for unsettled messages, the sender has seen every one settled.
     *
     * @throws IllegalStateException when the engines stop moving bytes before that (a broken pairing)
     */
    void transfer(long messages);

    /** Messages the receiving application has seen complete. */
    long received();

    /** Unsettled messages the sender has seen accepted and settled by the receiver. */
    long settledAtSender();
}
