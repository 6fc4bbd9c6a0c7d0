package io.amqpservlet.bench.scaleout;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The two kernel interfaces for a CPU quota. Version 1 has a hierarchy per controller: {@code cpu}
 * ({@code cpu.cfs_quota_us}, {@code cpu.cfs_period_us}, {@code cpu.shares}, {@code cpu.stat} with the throttling in
 * nanoseconds) and {@code cpuacct} ({@code cpuacct.usage}, nanoseconds), which may or may not be mounted together.
 * Version 2 has one hierarchy and one file per setting ({@code cpu.max} = "quota period", {@code cpu.weight}), and
 * {@code cpu.stat} counts both usage and throttling in microseconds.
 */
enum CgroupVersion {
    V1,
    V2;

    /**
     * A group's CPU figures from the text of its {@code cpu.stat} and, for version 1, its {@code cpuacct.usage}
     * (ignored for version 2).
     */
    CpuReading reading(String cpuStat, String cpuacctUsage, long atNanos) {
        Map<String, Long> stat = parseStat(cpuStat);
        if (this == V1) {
            return new CpuReading(Long.parseLong(cpuacctUsage.trim()), value(stat, "nr_periods"),
                    value(stat, "nr_throttled"), value(stat, "throttled_time"), atNanos);
        }
        return new CpuReading(value(stat, "usage_usec") * 1000, value(stat, "nr_periods"),
                value(stat, "nr_throttled"), value(stat, "throttled_usec") * 1000, atNanos);
    }

    /** {@code cpu.stat}'s "key value" lines. */
    static Map<String, Long> parseStat(String text) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] kv = line.trim().split("\\s+");
            if (kv.length == 2) {
                m.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        return m;
    }

    private static long value(Map<String, Long> stat, String key) {
        Long v = stat.get(key);
        if (v == null) {
            throw new IllegalArgumentException("cpu.stat has no " + key + ": " + stat);
        }
        return v;
    }
}
