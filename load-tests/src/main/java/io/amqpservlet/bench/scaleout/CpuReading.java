package io.amqpservlet.bench.scaleout;

/**
 * A control group's CPU counters at one instant; two readings around a measured phase give a process's
 * {@link ProcessCpu}.
 *
 * @param usageNanos       CPU time used by every task of the group since it was made
 * @param periods          quota periods in which the group ran
 * @param throttledPeriods of those, periods that ended with the group throttled (its quota spent)
 * @param throttledNanos   time the group spent throttled
 * @param atNanos          {@link System#nanoTime()} when read
 */
record CpuReading(long usageNanos, long periods, long throttledPeriods, long throttledNanos, long atNanos) {
    /** The figures from {@code before} to this reading, for a group with {@code quotaCores} (0: none). */
    ProcessCpu since(CpuReading before, String name, double quotaCores) {
        return new ProcessCpu(name, quotaCores, (usageNanos - before.usageNanos) / 1e9,
                (atNanos - before.atNanos) / 1e9, periods - before.periods,
                throttledPeriods - before.throttledPeriods);
    }
}
