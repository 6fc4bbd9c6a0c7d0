package io.amqpservlet.bench.soak;

import java.nio.file.Path;
import java.util.List;

/**
 * What a soak does: the gateway jar and its JVM options, how long, how often it samples, what counts as warm-up,
 * and the load. A total rate of 0 means: measure saturation first and run at half of it.
 *
 * @param jar            the gateway jar, run as a process of its own
 * @param workDir        where the processes' logs go
 * @param gatewayJvm     the gateway's JVM options
 * @param totalRate      requests/s over the fixed-share kinds, or 0 to take half of the measured saturation
 * @param durationMillis how long the load runs
 * @param sampleMillis   the sampling interval (a minute for the benchmark)
 * @param warmupMillis   samples before this are not part of the growth verdict
 * @param segmentMillis  the length of each generator segment (each opens its connections anew)
 * @param churnPerSecond connections per second of the churning client
 * @param streamRate     requests/s of 256 KiB bodies (multi-frame each way)
 * @param badPeerPeriodMillis a bad peer is started this often
 * @param badPeerHoldMillis   and held at most this long
 */
record SoakSettings(Path jar, Path workDir, List<String> gatewayJvm, double totalRate, long durationMillis,
                    long sampleMillis, long warmupMillis, long segmentMillis, double churnPerSecond, double streamRate,
                    long badPeerPeriodMillis, long badPeerHoldMillis) {
    /** Shares of the total rate. */
    static final double AMQP_SHARE = 0.60;
    static final double HTTP_SHARE = 0.20;
    static final double ATTACH_SHARE = 0.10;
    static final double PROTONJ2_SHARE = 0.05;
    static final int BODY_BYTES = 100;
    static final int STREAM_BODY_BYTES = 256 * 1024;
    static final int CHURN_REQUESTS = 4;

    /** The benchmark's settings for {@code minutes} of load, sampled every minute, the first 5 (at most) warm-up. */
    static SoakSettings benchmark(Path jar, Path workDir, List<String> gatewayJvm, double totalRate, int minutes) {
        long warmupMinutes = Math.max(1, Math.min(5, minutes / 6));
        return new SoakSettings(jar, workDir, gatewayJvm, totalRate, minutes * 60_000L, 60_000, warmupMinutes * 60_000,
                30_000, 5, 10, 2_000, 20_000);
    }
}
