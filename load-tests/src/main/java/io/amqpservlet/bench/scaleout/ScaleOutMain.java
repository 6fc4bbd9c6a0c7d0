package io.amqpservlet.bench.scaleout;

import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code load-tests/bench scaleout}: the broker and each gateway get a CPU quota of their own (a control group
 * each), and 1, 2, 3 gateways in attach mode share one queue under a saturating load; prints and writes
 * {@code scaleout.md}, {@code scaleout.json} and {@code scaleout.png}. Exits 2 when the quotas cannot be made (not
 * root, no CPU controller) or the command line is wrong, 3 when a run fails (a process that does not start or
 * ends), 1 when a broker's runs fail the verdict.
 */
public final class ScaleOutMain {
    private ScaleOutMain() {
    }

    /** Options as in {@code load-tests/bench scaleout}. */
    public static void main(String[] args) throws Exception {
        ScaleOutSettings s;
        try {
            s = ScaleOutSettings.parse(args);
        } catch (ScaleOutSettings.UsageException e) {
            System.err.println("bench scaleout: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (!Files.isRegularFile(s.gatewayJar())) {
            System.err.println("bench scaleout: no gateway jar at " + s.gatewayJar());
            System.exit(2);
        }
        CpuGroups groups;
        try {
            groups = CpuGroups.open(s.periodMicros(), System.err);
        } catch (CpuGroups.UnavailableException e) {
            System.err.println("bench scaleout: " + e.getMessage());
            System.exit(2);
            return;
        }
        // Ctrl-C or SIGTERM: whatever is still running in the groups is stopped and the groups removed.
        Thread cleanup = new Thread(groups::close, "scaleout-cgroups");
        Runtime.getRuntime().addShutdownHook(cleanup);
        Map<BrokerKind, ScaleOutVerdict> verdicts = new LinkedHashMap<>();
        try {
            System.err.println("bench scaleout: cgroup " + groups.version().name().toLowerCase(Locale.ROOT) + "; "
                    + s.describe());
            ScaleOutBench bench = ScaleOutBench.prepare(s, groups, System.err);
            for (BrokerKind broker : s.brokers()) {
                List<ScaleOutRun> runs = bench.run(broker);
                verdicts.put(broker, ScaleOutVerdict.of(runs));
            }
        } catch (IOException e) {
            // A process that did not start or ended, a counter that could not be read: nothing to report.
            groups.close();
            System.err.println("bench scaleout: the run failed: " + e.getMessage());
            System.exit(3);
        } finally {
            groups.close();
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // the JVM is shutting down (Ctrl-C): the hook runs, close() is idempotent
            }
        }
        String md = ScaleOutReport.write(s, verdicts, s.out());
        System.out.println(md);
        boolean passed = true;
        for (ScaleOutVerdict v : verdicts.values()) {
            passed &= v.passed();
        }
        System.exit(passed ? 0 : 1);
    }
}
