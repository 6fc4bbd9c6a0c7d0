package io.amqpservlet.bench.gateway;

import java.io.IOException;

/** One protocol's load client in the side-by-side suite: runs for a while, closed loop or at a fixed rate. */
interface LoadClient {
    /**
     * Runs one load and returns what the client measured.
     *
     * @param ratePerSecond requests per second over all connections, or 0 for as fast as possible
     */
    ClientFigures run(double ratePerSecond, double seconds) throws IOException, InterruptedException;

    /** How this client was set up (tool, connections, in flight), for the report. */
    String describe();
}
