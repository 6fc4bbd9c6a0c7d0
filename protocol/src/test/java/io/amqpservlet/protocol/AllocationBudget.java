package io.amqpservlet.protocol;

import java.lang.management.ManagementFactory;

/**
 * The fuzz targets' memory check: handling one peer input may allocate a fixed budget plus a small multiple of the
 * input's length, never an amount a size or count field in the input asked for. A decoder that sizes an array from
 * a length prefix before the bytes are there (a 4-byte "list32 count 2^31" in a 20-byte input) shows up here as
 * megabytes for a few bytes, long before it would show up as an {@link OutOfMemoryError}.
 *
 * <pre>{@code
 * AllocationBudget.check("Engine.ingest", input.length, () -> newEngine().ingest(input, 0, input.length, now));
 * }</pre>
 *
 * <p>Measured with the per-thread allocation counter ({@code com.sun.management.ThreadMXBean}), as
 * {@link AllocationMeter} does. The first time code runs, loading (and, under the fuzzer, instrumenting) its classes
 * allocates on the same thread; so a run over budget is repeated once and only a repeat over budget fails.
 */
public final class AllocationBudget {
    /** What any input may cost: buffers sized by configuration, objects made once per run, error text. */
    public static final long FIXED_BYTES = 1024 * 1024;
    /** What each input byte may cost on top: a copy or two of it, and the objects that describe it. */
    public static final long BYTES_PER_INPUT_BYTE = 64;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationBudget() {
    }

    /**
     * Runs {@code work} (which must be repeatable: it makes its own objects) and throws an {@link AssertionError}
     * when it allocated more than {@link #FIXED_BYTES} plus {@link #BYTES_PER_INPUT_BYTE} per input byte on this
     * thread, twice in a row. Exceptions of {@code work} propagate from the first run.
     */
    public static void check(String what, int inputLengthBytes, Runnable work) {
        long budget = FIXED_BYTES + BYTES_PER_INPUT_BYTE * inputLengthBytes;
        long allocated = allocatedBy(work);
        if (allocated <= budget) {
            return;
        }
        allocated = allocatedBy(work);
        if (allocated > budget) {
            throw new AssertionError(what + " allocated " + allocated + " bytes for an input of " + inputLengthBytes
                    + " bytes, over its budget of " + budget + ": something was sized from a field of the input");
        }
    }

    private static long allocatedBy(Runnable work) {
        long threadId = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(threadId);
        work.run();
        return THREADS.getThreadAllocatedBytes(threadId) - before;
    }
}
