package io.amqpservlet.bench.load;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Runs one load: starts the clients, waits until every connection is ready (setup is never measured), runs the
 * warm-up, discards what it recorded, measures, and prints a progress line every second (elapsed, requests/s in the
 * last second, p99 so far in the current phase, errors).
 */
public final class LoadRun {
    private static final long READY_TIMEOUT_MILLIS = 60_000;

    private final LoadOptions options;
    private final PrintStream progress;

    /** @param progress where the live progress line goes (a terminal's standard error), or null for none */
    public LoadRun(LoadOptions options, PrintStream progress) {
        this.options = options;
        this.progress = options.progress ? progress : null;
    }

    /** Runs the warm-up and the measured phase; returns the measured figures. */
    public LoadResult run() throws IOException, InterruptedException {
        return run(MeasuredPhase.NONE);
    }

    /** As {@link #run()}, telling {@code phase} when the measured phase begins and ends. */
    public LoadResult run(MeasuredPhase phase) throws IOException, InterruptedException {
        ErrorTally errors = new ErrorTally();
        EventLoop[] loops = new EventLoop[options.clients];
        int total = options.totalConnections();
        int global = 0;
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new EventLoop(i, options, errors);
            for (LoadOptions.Endpoint e : options.endpoints) {
                for (int k = 0; k < options.connectionsPerEndpoint; k++) {
                    loops[i].add(e, global++, total);
                }
            }
        }
        try {
            for (EventLoop l : loops) {
                l.start();
            }
            awaitReady(loops, total);
            long start = System.nanoTime();
            for (EventLoop l : loops) {
                l.go(start);
            }
            Histogram[] recycle = new Histogram[loops.length];
            Histogram shown = newHistogram();
            // The warm-up: run and show progress; nothing of it goes into the result.
            long measureStart = start + options.warmupMillis * 1_000_000L;
            long measureEnd = measureStart + options.durationMillis * 1_000_000L;
            tick(loops, recycle, shown, start, measureStart, errors, "warm-up");
            // Each client puts a response in the measured phase by the time it sees it, within [start, end).
            measureStart = Math.max(measureStart, System.nanoTime());
            measureEnd = measureStart + options.durationMillis * 1_000_000L;
            for (EventLoop l : loops) {
                l.measure(measureStart, measureEnd);
            }
            call(phase, true);
            for (int i = 0; i < loops.length; i++) {
                recycle[i] = loops[i].interval(recycle[i]);
            }
            shown.reset();
            tick(loops, recycle, shown, start, measureEnd, errors, "measuring");
            call(phase, false);
            if (progress != null) {
                progress.println();
            }
            stopAndJoin(loops);
            Histogram measured = newHistogram();
            for (EventLoop l : loops) {
                if (!l.ended()) {
                    throw new IOException("client " + l.index + " did not stop");
                }
                measured.add(l.measured());
            }
            return new LoadResult(options.describe(), (measureEnd - measureStart) / 1e9, measured, errors.byKind());
        } finally {
            stopAndJoin(loops);
        }
    }

    private static void stopAndJoin(EventLoop[] loops) throws InterruptedException {
        for (EventLoop l : loops) {
            l.stop();
        }
        for (EventLoop l : loops) {
            l.join(5_000);
        }
    }

    private static void call(MeasuredPhase phase, boolean begin) throws IOException {
        try {
            if (begin) {
                phase.begin();
            } else {
                phase.end();
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("measured phase " + (begin ? "begin" : "end") + " failed: " + e, e);
        }
    }

    static Histogram newHistogram() {
        return new Histogram(1, EventLoop.HIGHEST_NANOS, 3);
    }

    private void awaitReady(EventLoop[] loops, int total) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT_MILLIS * 1_000_000L;
        while (true) {
            int ready = 0;
            int failed = 0;
            for (EventLoop l : loops) {
                ready += l.readyConnections();
                failed += l.failedConnections();
            }
            if (failed > 0) {
                throw new IOException(failed + " of " + total + " connections failed to connect to "
                        + options.endpoints);
            }
            if (ready == total) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("only " + ready + " of " + total + " connections were ready after "
                        + READY_TIMEOUT_MILLIS + " ms");
            }
            Thread.sleep(10);
        }
    }

    /** Waits until {@code endNanos}, adding each second's latencies to {@code phase} (for the progress line only). */
    private void tick(EventLoop[] loops, Histogram[] recycle, Histogram phase, long runStart, long endNanos,
                      ErrorTally errors, String label) throws InterruptedException {
        long last = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            long left = endNanos - now;
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.max(1, Math.min(1_000, left / 1_000_000L)));
            now = System.nanoTime();
            if (left > 1_000_000_000L || now < endNanos) {
                long count = 0;
                for (int i = 0; i < loops.length; i++) {
                    recycle[i] = loops[i].interval(recycle[i]);
                    count += recycle[i].getTotalCount();
                    phase.add(recycle[i]);
                }
                if (progress != null) {
                    double rate = count / ((now - last) / 1e9);
                    progress.printf(Locale.ROOT, "\r%6.1f s  %-9s %,10.0f req/s  p99 %8.3f ms  errors %,d   ",
                            (now - runStart) / 1e9, label, rate, phase.getValueAtPercentile(99) / 1e6,
                            errors.total() + errors.warmupErrors());
                    progress.flush();
                }
                last = now;
            }
        }
    }
}
