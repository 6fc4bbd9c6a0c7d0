package io.amqpservlet.bench.soak;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * {@code load-tests/bench soak}: a mixed load at half of the gateway's saturation (or at {@code --rate}) for
 * {@code --minutes}, sampling the gateway process every minute; writes soak.md, soak.json and soak.png into
 * {@code --out} and prints the growth verdict. Exits 1 when a check fails.
 */
public final class SoakMain {
    private SoakMain() {
    }

    /**
     * Arguments: {@code --jar GATEWAY_JAR --out DIR [--gateway-jvm "OPTIONS"] [--minutes N] [--rate R]
     * [--warmup-minutes W] [--sample-seconds S]}.
     */
    public static void main(String[] args) throws Exception {
        Path jar = null;
        Path out = Path.of("load-tests", "target", "bench");
        List<String> jvm = List.of("-Xms512m", "-Xmx512m");
        int minutes = 60;
        double rate = 0;
        int warmupMinutes = -1;
        int sampleSeconds = 60;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jar" -> jar = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--gateway-jvm" -> jvm = Arrays.asList(args[++i].trim().split("\\s+"));
                case "--minutes" -> minutes = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Double.parseDouble(args[++i]);
                case "--warmup-minutes" -> warmupMinutes = Integer.parseInt(args[++i]);
                case "--sample-seconds" -> sampleSeconds = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("bench soak: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        if (jar == null || minutes < 1) {
            System.err.println("bench soak: --jar GATEWAY_JAR and --minutes N (N >= 1) are needed");
            System.exit(2);
        }
        SoakSettings s = SoakSettings.benchmark(jar, out.resolve("soak-work"), jvm, rate, minutes);
        if (warmupMinutes >= 0 || sampleSeconds != 60) {
            s = new SoakSettings(s.jar(), s.workDir(), s.gatewayJvm(), s.totalRate(), s.durationMillis(),
                    sampleSeconds * 1000L, warmupMinutes >= 0 ? warmupMinutes * 60_000L : s.warmupMillis(),
                    Math.min(s.segmentMillis(), sampleSeconds * 500L), s.churnPerSecond(), s.streamRate(),
                    s.badPeerPeriodMillis(), s.badPeerHoldMillis());
        }
        SoakResult r = new SoakRun(s, System.err).run();
        List<SoakVerdict.Check> checks = SoakVerdict.checks(r, SoakVerdict.Limits.BENCHMARK);
        String md = SoakReport.write(r, checks, out);
        System.out.println(md);
        boolean passed = SoakVerdict.passed(checks);
        System.out.println(passed ? "verdict: no growth, no lost requests (every check passed)"
                : "verdict: FAILED (see the checks marked FAIL)");
        System.out.println("wrote " + out.resolve("soak.md") + ", soak.json, soak.png");
        System.exit(passed ? 0 : 1);
    }
}
