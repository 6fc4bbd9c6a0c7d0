package io.amqpservlet.bench.gateway;

import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a JFR recording (with {@code jdk.jfr.consumer}, so JDK 17 suffices) and reports allocation per request:
 * the bytes the {@code jdk.ObjectAllocationSample} events stand for (each sample's weight is the bytes allocated
 * since the thread's previous sample), the classes and the allocation sites with the most bytes, and the GC
 * collections with their pauses. A site is the allocating frame; the first frame of ours
 * ({@code io.amqpservlet.}) on the way up the stack is shown beside it, marked {@code [ours]}.
 *
 * <p>The first sample of each thread in a recording is left out: its weight counts from the thread's previous
 * sample, which for a recording started on a running JVM means everything the thread allocated before the
 * recording (in a 4-second recording after a warm-up it made the total about five times too large).
 */
final class AllocationReport {
    private static final String OURS = "io.amqpservlet.";
    /**
     * The gateway's {@code --stats} wrapper at the bottom of every pool thread's stack (it counts the thread's
     * allocation when it ends): ours, but never the code that chose to allocate.
     */
    private static final String THREAD_ROOT = "io.amqpservlet.gateway.stats.ThreadAllocation"; // its lambda too
    private static final int TOP = 15;

    private final Map<String, Long> byClass = new HashMap<>();
    private final Map<String, Long> bySite = new HashMap<>();
    private long sampledBytes;
    private long samples;
    private long firstSamplesDropped;
    private final java.util.Set<Long> threadsSeen = new java.util.HashSet<>();
    private long gcCount;
    private Duration gcPauses = Duration.ZERO;
    private String text;

    private AllocationReport() {
    }

    static AllocationReport read(Path recording, long requests) throws IOException {
        AllocationReport r = new AllocationReport();
        for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
            String type = e.getEventType().getName();
            if ("jdk.ObjectAllocationSample".equals(type)) {
                r.sample(e);
            } else if ("jdk.GarbageCollection".equals(type)) {
                r.gcCount++;
                r.gcPauses = r.gcPauses.plus(e.getDuration("sumOfPauses"));
            }
        }
        r.text = r.format(recording, requests);
        return r;
    }

    private void sample(RecordedEvent e) {
        long thread = e.getThread("eventThread") == null ? -1 : e.getThread("eventThread").getJavaThreadId();
        if (threadsSeen.add(thread)) {
            firstSamplesDropped++;
            return;
        }
        long weight = e.getLong("weight");
        RecordedClass type = e.getClass("objectClass");
        String name = type == null ? "?" : type.getName();
        sampledBytes += weight;
        samples++;
        byClass.merge(name, weight, Long::sum);
        bySite.merge(site(e.getStackTrace()) + "  <- " + name, weight, Long::sum);
    }

    /** The allocating frame, and the nearest frame of ours above it when the allocation happened elsewhere. */
    static String site(RecordedStackTrace stack) {
        if (stack == null || stack.getFrames().isEmpty()) {
            return "(no stack)";
        }
        List<RecordedFrame> frames = stack.getFrames();
        String top = frame(frames.get(0));
        if (top.startsWith(OURS)) {
            return top + " [ours]";
        }
        for (RecordedFrame f : frames) {
            String s = frame(f);
            if (s.startsWith(OURS) && !s.startsWith(THREAD_ROOT)) {
                return top + "  via " + s + " [ours]";
            }
        }
        return top;
    }

    private static String frame(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName() + ":" + f.getLineNumber();
    }

    private String format(Path recording, long requests) {
        StringBuilder b = new StringBuilder();
        double n = Math.max(1, requests);
        b.append(String.format(Locale.ROOT, "Allocation profile %s: %,d requests, %,d samples standing for %,d bytes: "
                + "%,.0f bytes per request (sampled estimate; %d first samples of threads left out)%n",
                recording.getFileName(), requests, samples, sampledBytes, sampledBytes / n, firstSamplesDropped));
        b.append(String.format(Locale.ROOT, "GC: %d collections, %d ms of pauses%n%n", gcCount, gcPauses.toMillis()));
        b.append("Top allocating classes (bytes per request):\n");
        top(b, byClass, n);
        b.append("\nTop allocation sites (bytes per request; [ours] marks frames in io.amqpservlet):\n");
        top(b, bySite, n);
        return b.toString();
    }

    private static void top(StringBuilder b, Map<String, Long> counts, double requests) {
        List<Map.Entry<String, Long>> list = new ArrayList<>(counts.entrySet());
        list.sort((x, y) -> Long.compare(y.getValue(), x.getValue()));
        for (int i = 0; i < Math.min(TOP, list.size()); i++) {
            b.append(String.format(Locale.ROOT, "  %10.1f  %s%n", list.get(i).getValue() / requests,
                    list.get(i).getKey()));
        }
    }

    String text() {
        return text;
    }

    long sampledBytes() {
        return sampledBytes;
    }
}
