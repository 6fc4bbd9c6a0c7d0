package io.amqpservlet.bench.load;

/**
 * Told when a run's measured phase begins and ends, on the thread running the load: a suite takes the server's
 * counters (or starts and stops a profiler) at exactly those points, so connection setup and the warm-up are
 * never part of the figures.
 */
public interface MeasuredPhase {
    /** Does nothing. */
    MeasuredPhase NONE = new MeasuredPhase() {
        @Override
        public void begin() {
        }

        @Override
        public void end() {
        }
    };

    /** The measured phase starts now (called just before the first latency of the phase can be recorded). */
    void begin() throws Exception;

    /** The measured phase is over (called just after its last interval was collected). */
    void end() throws Exception;
}
