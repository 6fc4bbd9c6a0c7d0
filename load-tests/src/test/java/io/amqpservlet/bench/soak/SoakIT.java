package io.amqpservlet.bench.soak;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The soak of {@code load-tests/bench soak} for one minute, in the build: the gateway jar in its own JVM, attached
 * to an Artemis queue, under every kind of client at a fixed, low rate (600 requests/s over the fixed-share kinds,
 * so that a busy two-core machine keeps up), sampled every 10 s, the first 20 s warm-up. It fails on growth, as
 * {@link SoakVerdict.Limits#BUILD} defines it, and on any lost request:
 * growth is the lower of the last two samples minus the lower of the first two after the warm-up (what the
 * gateway holds for the clients of the moment comes and goes between samples):
 * <ul>
 *   <li>heap after a full GC: at most 16 MiB;</li>
 *   <li>open file descriptors and threads: at most 40 and 24 (sockets of bad peers and of the generator's segments
 *       come and go; Jetty's pool grows and shrinks with demand);</li>
 *   <li>once every client has gone, at most 10 file descriptors more than before the load;</li>
 *   <li>no errors from the well-behaved clients (a timeout is a lost request), and every kind answered;</li>
 *   <li>every stalled handshake and every garbage-sending peer closed by the gateway;</li>
 *   <li>the gateway still running.</li>
 * </ul>
 * No check is about latency.
 */
@Timeout(300)
class SoakIT {
    @Test
    void oneMinuteOfMixedLoadLeavesNoGrowthAndLosesNoRequest() throws Exception {
        Path jar = Path.of("..", "container-integration", "gateway", "target", "amqp-servlet-gateway.jar")
                .toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            fail("no gateway jar at " + jar + ": build the reactor (mvn verify) so the gateway is packaged first");
        }
        Path out = Path.of("target", "soak-it").toAbsolutePath();
        SoakSettings settings = new SoakSettings(jar, out.resolve("work"), List.of("-Xms256m", "-Xmx256m"), 600,
                60_000, 10_000, 20_000, 5_000, 3, 4, 1_000, 20_000);
        SoakResult r = new SoakRun(settings, System.err).run();
        List<SoakVerdict.Check> checks = SoakVerdict.checks(r, SoakVerdict.Limits.BUILD);
        String md = SoakReport.write(r, checks, out);
        System.out.println(md);
        StringBuilder failed = new StringBuilder();
        for (SoakVerdict.Check c : checks) {
            if (!c.passed()) {
                failed.append("\n  ").append(c.name()).append(": ").append(c.figure()).append(", limit ")
                        .append(c.limit());
            }
        }
        assertTrue(failed.isEmpty(), "the soak failed (report: " + out.resolve("soak.md") + "):" + failed);
    }
}
