package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.MeasuredPhase;


/** One protocol's load client in the side-by-side suite: runs for a while, closed loop or at a fixed rate. */
interface LoadClient {
    /**
     * Runs one load and returns what the client measured.
     *
     * @param ratePerSecond requests per second over all connections, or 0 for as fast as possible
     * @param phase         told when the measured part begins and ends (for an external tool: around its process)
     */
    ClientFigures run(double ratePerSecond, double seconds, MeasuredPhase phase) throws Exception;

    /** A run that nobody observes (a warm-up). */
    default ClientFigures run(double ratePerSecond, double seconds) throws Exception {
        return run(ratePerSecond, seconds, MeasuredPhase.NONE);
    }

    /** How this client was set up (tool, connections, in flight), for the report. */
    String describe();
}
