package io.amqpservlet.bench.soak;

import io.amqpservlet.bench.gateway.CapacityMain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The gateway process at one instant: live heap after a full collection ({@code jcmd GC.class_histogram} forces one
 * and sums what is left), resident memory ({@code VmRSS}), open file descriptors (entries of {@code /proc/PID/fd})
 * and threads ({@code Threads} of {@code /proc/PID/status}).
 */
record ProcessSample(long heapAfterGcBytes, long rssBytes, int fds, int threads) {
    static ProcessSample take(long pid) throws IOException, InterruptedException {
        long heap = CapacityMain.liveHeapBytes(pid);
        long rss = -1;
        int threads = -1;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.substring(8).trim());
            }
        }
        int fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            fds = (int) s.count();
        }
        return new ProcessSample(heap, rss, fds, threads);
    }

    double heapMiB() {
        return heapAfterGcBytes / 1048576.0;
    }

    double rssMiB() {
        return rssBytes / 1048576.0;
    }
}
