package io.amqpservlet.bench.scaleout;

/**
 * What one process (its control group) used over a measured phase.
 *
 * @param name             {@code broker}, {@code gateway-1}, ..., {@code generator}
 * @param quotaCores       its quota in cores, 0 for none
 * @param cpuSeconds       CPU time used, all its threads (the JIT and GC ones included)
 * @param seconds          the phase's length
 * @param periods          quota periods in which it ran
 * @param throttledPeriods of those, periods that ended with its quota spent
 */
record ProcessCpu(String name, double quotaCores, double cpuSeconds, double seconds, long periods,
                  long throttledPeriods) {
    /** Cores used on average over the phase. */
    double cores() {
        return cpuSeconds / seconds;
    }

    /** The share of its quota it used (1 = all of it); NaN without a quota. */
    double quotaShare() {
        return quotaCores > 0 ? cores() / quotaCores : Double.NaN;
    }

    /** The share of its periods that ended throttled; NaN when it ran in none. */
    double throttledShare() {
        return periods > 0 ? (double) throttledPeriods / periods : Double.NaN;
    }

    /** CPU microseconds per request, for {@code requests} served in the phase. */
    double microsPerRequest(long requests) {
        return requests > 0 ? cpuSeconds * 1e6 / requests : Double.NaN;
    }
}
