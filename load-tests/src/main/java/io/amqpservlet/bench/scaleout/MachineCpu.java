package io.amqpservlet.bench.scaleout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole machine's busy CPU time from {@code /proc/stat}'s first line (proc(5)): everything but idle and iowait,
 * in clock ticks. It tells whether other work shared the machine during a run, which the quotas cannot prevent.
 */
public final class MachineCpu {
    /** Linux's USER_HZ: /proc reports CPU time in 1/100 s on every mainstream architecture. */
    public static final double TICKS_PER_SECOND = 100;

    private MachineCpu() {
    }

    public static long busyTicks() throws IOException {
        String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
        return busyTicks(first);
    }

    /** From {@code cpu user nice system idle iowait irq softirq steal ...}. */
    static long busyTicks(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        long busy = 0;
        for (int i = 1; i < f.length && i <= 8; i++) {
            if (i != 4 && i != 5) { // idle, iowait
                busy += Long.parseLong(f[i]);
            }
        }
        return busy;
    }
}
