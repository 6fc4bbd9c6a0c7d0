package io.amqpservlet.bench.soak;

/** One kind of client of the soak: started once, runs on threads of its own until stopped. */
interface SoakClient {
    /** The kind's name, a column of the report ({@code amqp}, {@code http1}, {@code protonj2}, ...). */
    String name();

    /** What it does, one line for the report. */
    String describe();

    /** What it saw, drained by the sampler. */
    KindStats stats();

    void start();

    /** Stops and waits for its threads; requests still in flight are not counted. */
    void stop() throws InterruptedException;
}
