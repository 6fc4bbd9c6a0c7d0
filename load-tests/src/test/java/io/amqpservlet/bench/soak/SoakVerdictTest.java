package io.amqpservlet.bench.soak;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoakVerdictTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void flatFiguresWithNoisePassBothLimits() {
        assertTrue(SoakVerdict.passed(SoakVerdict.checks(hour(i -> sample(30 + (i % 3) * 4, 60 + i % 5, 130)),
                SoakVerdict.Limits.BENCHMARK)));
        assertTrue(SoakVerdict.passed(SoakVerdict.checks(minute(i -> sample(25 + (i % 2) * 10, 60 + i % 5, 76)),
                SoakVerdict.Limits.BUILD)));
    }

    @Test
    void heapGrowingHalfAMebibyteAMinuteFailsTheBenchmark() {
        List<SoakVerdict.Check> checks = SoakVerdict.checks(hour(i -> sample(30 + i / 2.0, 60, 130)),
                SoakVerdict.Limits.BENCHMARK);
        assertFalse(SoakVerdict.passed(checks));
        assertEquals(List.of("heap after GC, slope after the warm-up"), failed(checks));
    }

    @Test
    void heapGrowingSixMebibytesEveryTenSecondsFailsTheBuild() {
        List<SoakVerdict.Check> checks = SoakVerdict.checks(minute(i -> sample(20 + 6 * i, 60, 76)),
                SoakVerdict.Limits.BUILD);
        assertEquals(List.of("heap after GC, lower of the last two samples minus lower of the first two after the "
                + "warm-up"), failed(checks));
    }

    @Test
    void aThreadAMinuteFailsTheBenchmark() {
        assertEquals(List.of("threads, slope after the warm-up"), failed(SoakVerdict.checks(
                hour(i -> sample(30, 60, 130 + i)), SoakVerdict.Limits.BENCHMARK)));
    }

    @Test
    void socketsKeptAfterTheLoadFail() {
        SoakResult r = minute(i -> sample(25, 60, 76));
        SoakResult leaky = new SoakResult(r.settings(), null, r.totalRate(), r.clients(), r.before(), r.samples(),
                new ProcessSample(25 * MIB, 200 * MIB, r.before().fds() + 11, 76), true, r.responses(), r.errors(),
                r.badPeers());
        assertEquals(List.of("open fds after the load minus before it"),
                failed(SoakVerdict.checks(leaky, SoakVerdict.Limits.BUILD)));
    }

    @Test
    void oneTimeoutFails() {
        SoakResult r = minute(i -> sample(25, 60, 76));
        r.errors().get("amqp").put("timeout", 1L);
        assertEquals(List.of("errors (timeouts, refusals, failed connections)"),
                failed(SoakVerdict.checks(r, SoakVerdict.Limits.BUILD)));
    }

    @Test
    void aStalledHandshakeTheGatewayKeptFails() {
        SoakResult r = minute(i -> sample(25, 60, 76));
        r.badPeers().put(BadPeers.Kind.STALLED_HANDSHAKE, new BadPeers.Counts(10, 9, 1, 0, 0));
        assertEquals(List.of("stalled handshake peers the gateway did not close"),
                failed(SoakVerdict.checks(r, SoakVerdict.Limits.BUILD)));
    }

    @Test
    void aKindWithoutResponsesFails() {
        SoakResult r = minute(i -> sample(25, 60, 76));
        r.responses().put("protonj2", 0L);
        assertEquals(List.of("responses, protonj2"), failed(SoakVerdict.checks(r, SoakVerdict.Limits.BUILD)));
    }

    @Test
    void theSlopeIsTheLeastSquaresLinePerHour() {
        List<SoakSample> s = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            s.add(new SoakSample(60.0 * i, 60, sample(10 + 2 * i, 0, 0), List.of(), 0));
        }
        assertEquals(120.0, SoakVerdict.slopePerHour(s, x -> x.process().heapMiB()), 1e-9);
    }

    private static ProcessSample sample(double heapMiB, int fds, int threads) {
        return new ProcessSample(Math.round(heapMiB * MIB), 300 * MIB, fds, threads);
    }

    /** 60 one-minute samples, the first 5 minutes warm-up. */
    private static SoakResult hour(IntFunction<ProcessSample> process) {
        return result(60, 60, 300, process);
    }

    /** 6 ten-second samples, the first 20 s warm-up. */
    private static SoakResult minute(IntFunction<ProcessSample> process) {
        return result(6, 10, 20, process);
    }

    private static SoakResult result(int samples, int sampleSeconds, int warmupSeconds,
                                     IntFunction<ProcessSample> process) {
        SoakSettings settings = new SoakSettings(Path.of("gateway.jar"), Path.of("work"), List.of(), 600,
                samples * sampleSeconds * 1000L, sampleSeconds * 1000L, warmupSeconds * 1000L, 5_000, 3, 4, 1_000,
                20_000);
        List<SoakSample> list = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            list.add(new SoakSample((i + 1.0) * sampleSeconds, sampleSeconds, process.apply(i),
                    List.of(new KindStats.Interval("amqp", 1000, 5_000, Map.of())), 4));
        }
        Map<String, Long> responses = new LinkedHashMap<>();
        Map<String, Map<String, Long>> errors = new LinkedHashMap<>();
        for (String kind : List.of("amqp", "protonj2")) {
            responses.put(kind, 1000L);
            errors.put(kind, new LinkedHashMap<>());
        }
        Map<BadPeers.Kind, BadPeers.Counts> bad = new EnumMap<>(BadPeers.Kind.class);
        for (BadPeers.Kind k : BadPeers.Kind.values()) {
            bad.put(k, k == BadPeers.Kind.STALLED_HANDSHAKE || k == BadPeers.Kind.GARBAGE
                    ? new BadPeers.Counts(10, 9, 0, 1, 0) : new BadPeers.Counts(10, 0, 9, 1, 0));
        }
        return new SoakResult(settings, null, 600, Map.of(), sample(10, 20, 30), list, sample(20, 20, 76), true,
                responses, errors, bad);
    }

    private static List<String> failed(List<SoakVerdict.Check> checks) {
        List<String> names = new ArrayList<>();
        for (SoakVerdict.Check c : checks) {
            if (!c.passed()) {
                names.add(c.name());
            }
        }
        return names;
    }
}
