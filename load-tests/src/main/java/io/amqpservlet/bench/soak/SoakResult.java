package io.amqpservlet.bench.soak;

import java.util.List;
import java.util.Map;

/**
 * A finished soak.
 *
 * @param saturation the measured saturation of the main mix (null when a rate was given)
 * @param totalRate  the rate the fixed-share kinds were split from
 * @param clients    each kind's description
 * @param before     the gateway process before any load
 * @param samples    one per interval
 * @param after      the process once the load stopped and every client had gone (null if the gateway died)
 * @param alive      whether the gateway was still running at the end
 * @param responses  responses per kind over the whole run
 * @param errors     errors per kind, by kind of error, over the whole run
 * @param badPeers   how the bad peers fared
 */
record SoakResult(SoakSettings settings, SoakRun.Saturation saturation, double totalRate, Map<String, String> clients,
                  ProcessSample before, List<SoakSample> samples, ProcessSample after, boolean alive,
                  Map<String, Long> responses, Map<String, Map<String, Long>> errors,
                  Map<BadPeers.Kind, BadPeers.Counts> badPeers) {
    /** The samples after the warm-up: the growth verdict is about these. */
    List<SoakSample> measured() {
        double warmupSeconds = settings.warmupMillis() / 1000.0;
        int first = 0;
        while (first < samples.size() && samples.get(first).seconds() < warmupSeconds - 0.5) {
            first++;
        }
        return samples.subList(first, samples.size());
    }

    long errorCount() {
        long n = 0;
        for (Map<String, Long> m : errors.values()) {
            for (long v : m.values()) {
                n += v;
            }
        }
        return n;
    }
}
