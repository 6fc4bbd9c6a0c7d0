package io.amqpservlet.bench.scaleout;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The run's control groups, each with a CPU quota of its own: {@code amqp-servlet-bench/scaleout-PID/NAME} under the
 * CPU controller (PID is this JVM's). Each level the run makes gets a high CPU weight ({@code cpu.shares} 8192, v2
 * {@code cpu.weight} 800), so that other work on the machine does not take the quotas' time away; the quotas still
 * cap each group. {@link #close()} stops whatever is still in a group (only processes this run started are ever in
 * one), moves this JVM back to where it was, and removes every group; a run that was killed before it could do that
 * leaves groups whose owner is dead, and the next run removes them.
 */
final class CpuGroups implements AutoCloseable {
    static final String BENCH_GROUP = "amqp-servlet-bench";
    private static final Path FS = Path.of("/sys/fs/cgroup");
    private static final long V1_SHARES = 8192;
    private static final long V2_WEIGHT = 800;

    /** cgroups cannot be used here: not root, no CPU controller, and the like. The message says what to do. */
    static final class UnavailableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnavailableException(String message) {
            super(message);
        }
    }

    private final CgroupVersion version;
    /** The run's directory in the cpu hierarchy (v2: the only one). */
    private final Path cpuRun;
    /** The run's directory in the cpuacct hierarchy (v1 mounted apart), else {@link #cpuRun}. */
    private final Path accountingRun;
    private final int periodMicros;
    private final List<QuotaGroup> groups = new ArrayList<>();
    /** Where this JVM was before it joined a group: hierarchy directory (cpu, cpuacct) to its group there. */
    private final Map<Path, Path> joinedFrom = new LinkedHashMap<>();
    private final PrintStream log;
    private boolean closed;

    private CpuGroups(CgroupVersion version, Path cpuRun, Path accountingRun, int periodMicros, PrintStream log) {
        this.version = version;
        this.cpuRun = cpuRun;
        this.accountingRun = accountingRun;
        this.periodMicros = periodMicros;
        this.log = log;
    }

    /**
     * Finds the CPU controller (cgroup v2 when {@code /sys/fs/cgroup/cgroup.controllers} exists, else v1's
     * {@code cpu} and {@code cpuacct} hierarchies), removes groups left by runs that died, and makes this run's
     * directory; quotas are enforced in periods of {@code periodMicros}.
     */
    static CpuGroups open(int periodMicros, PrintStream log) throws UnavailableException, IOException {
        CgroupVersion version;
        Path cpuBase;
        Path accountingBase;
        if (Files.exists(FS.resolve("cgroup.controllers"))) {
            version = CgroupVersion.V2;
            String controllers = Files.readString(FS.resolve("cgroup.controllers")).trim();
            if (!List.of(controllers.split("\\s+")).contains("cpu")) {
                throw new UnavailableException("cgroup v2 at " + FS + " offers no cpu controller (cgroup.controllers: "
                        + controllers + ")");
            }
            cpuBase = FS;
            accountingBase = FS;
        } else if (Files.exists(FS.resolve("cpu").resolve("cpu.cfs_quota_us"))) {
            version = CgroupVersion.V1;
            cpuBase = FS.resolve("cpu").toRealPath();
            if (Files.exists(cpuBase.resolve("cpuacct.usage"))) {
                accountingBase = cpuBase; // cpu,cpuacct mounted together
            } else if (Files.exists(FS.resolve("cpuacct").resolve("cpuacct.usage"))) {
                accountingBase = FS.resolve("cpuacct").toRealPath();
            } else {
                throw new UnavailableException("cgroup v1's cpu controller is at " + cpuBase
                        + " but cpuacct (CPU accounting) is not mounted: mount it at " + FS.resolve("cpuacct"));
            }
        } else {
            throw new UnavailableException("no CPU controller under " + FS + ": neither cgroup v2 (cgroup.controllers)"
                    + " nor cgroup v1 (cpu/cpu.cfs_quota_us) is mounted");
        }
        if (!Files.isWritable(cpuBase) || !Files.isWritable(accountingBase)) {
            throw new UnavailableException("cannot write " + cpuBase + ": making CPU quotas needs root (or a cgroup "
                    + "delegated to this user); run as root");
        }
        if (periodMicros < 1_000 || periodMicros > 1_000_000) {
            throw new IllegalArgumentException("the quota period must be 1 to 1,000 ms, not " + periodMicros + " us");
        }
        long self = ProcessHandle.current().pid();
        Path cpuRun = cpuBase.resolve(BENCH_GROUP).resolve("scaleout-" + self);
        Path accountingRun = accountingBase.resolve(BENCH_GROUP).resolve("scaleout-" + self);
        CpuGroups g = new CpuGroups(version, cpuRun, accountingRun, periodMicros, log);
        for (Path base : distinct(cpuBase, accountingBase)) {
            removeStale(base.resolve(BENCH_GROUP), log);
        }
        try {
            if (version == CgroupVersion.V2) {
                enableCpu(cpuBase);
                g.makeLevel(cpuBase.resolve(BENCH_GROUP));
                enableCpu(cpuBase.resolve(BENCH_GROUP));
                g.makeLevel(cpuRun);
                enableCpu(cpuRun);
            } else {
                g.makeLevel(cpuBase.resolve(BENCH_GROUP));
                g.makeLevel(cpuRun);
                if (!accountingRun.equals(cpuRun)) {
                    Files.createDirectories(accountingRun);
                }
            }
        } catch (IOException e) {
            g.close();
            throw new UnavailableException("cannot make the control groups under " + cpuBase + ": " + e);
        }
        return g;
    }

    CgroupVersion version() {
        return version;
    }

    int periodMicros() {
        return periodMicros;
    }

    /** Makes a group with a quota of {@code cores} (0: no quota, only the weight and the accounting). */
    synchronized QuotaGroup create(String name, double cores) throws IOException {
        if (closed) {
            throw new IllegalStateException("the control groups were removed");
        }
        Path cpuDir = cpuRun.resolve(name);
        Path accountingDir = accountingRun.resolve(name);
        makeLevel(cpuDir);
        long quotaMicros = Math.round(cores * periodMicros);
        if (cores > 0 && quotaMicros < 1_000) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "a quota of %.3f cores is %d us per %d us "
                    + "period; the kernel's least is 1,000 us: give a longer period", cores, quotaMicros, periodMicros));
        }
        if (version == CgroupVersion.V2) {
            write(cpuDir.resolve("cpu.max"), (cores > 0 ? Long.toString(quotaMicros) : "max") + " " + periodMicros);
        } else {
            write(cpuDir.resolve("cpu.cfs_period_us"), Integer.toString(periodMicros));
            write(cpuDir.resolve("cpu.cfs_quota_us"), cores > 0 ? Long.toString(quotaMicros) : "-1");
            if (!accountingDir.equals(cpuDir)) {
                Files.createDirectories(accountingDir);
            }
        }
        QuotaGroup g = new QuotaGroup(version, name, cores, cpuDir, accountingDir);
        groups.add(g);
        return g;
    }

    /** Moves this JVM (all its threads) into {@code group}; {@link #close()} moves it back to where it first was. */
    synchronized void joinSelf(QuotaGroup group) throws IOException {
        if (!joinedFrom.isEmpty()) {
            group.join(ProcessHandle.current().pid());
            return;
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            // "hierarchy-id:controllers:path"; v2's line is "0::path"
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            List<String> controllers = List.of(f[1].split(","));
            String relative = f[2].startsWith("/") ? f[2].substring(1) : f[2];
            if (version == CgroupVersion.V2 && f[0].equals("0")) {
                joinedFrom.put(cpuBase(), cpuBase().resolve(relative));
            } else if (version == CgroupVersion.V1 && controllers.contains("cpu")) {
                joinedFrom.put(cpuBase(), cpuBase().resolve(relative));
            } else if (version == CgroupVersion.V1 && controllers.contains("cpuacct")) {
                joinedFrom.put(accountingBase(), accountingBase().resolve(relative));
            }
        }
        group.join(ProcessHandle.current().pid());
    }

    private Path cpuBase() {
        return cpuRun.getParent().getParent();
    }

    private Path accountingBase() {
        return accountingRun.getParent().getParent();
    }

    /**
     * Stops the processes still in the run's groups (SIGTERM, then SIGKILL after 20 s), moves this JVM back, and
     * removes the groups, this run's directory and, when no other run uses it, {@value #BENCH_GROUP}. Reports on
     * {@code log} what it could not remove. Safe to call twice, and from a shutdown hook.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Map.Entry<Path, Path> e : joinedFrom.entrySet()) {
            try {
                write(e.getValue().resolve("cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
            } catch (IOException ex) {
                log.println("bench scaleout: cannot move this JVM back to " + e.getValue() + ": " + ex);
            }
        }
        for (QuotaGroup g : groups) {
            try {
                stopAll(g.pids());
            } catch (IOException ex) {
                log.println("bench scaleout: cannot read the processes of " + g + ": " + ex);
            }
        }
        for (int i = groups.size() - 1; i >= 0; i--) {
            for (Path dir : groups.get(i).dirs()) {
                remove(dir, log);
            }
        }
        for (Path run : distinct(cpuRun, accountingRun)) {
            remove(run, log);
            try {
                Files.deleteIfExists(run.getParent());
            } catch (DirectoryNotEmptyException e) {
                // another run's groups are in it
            } catch (IOException e) {
                log.println("bench scaleout: cannot remove " + run.getParent() + ": " + e);
            }
        }
    }

    private static List<Path> distinct(Path a, Path b) {
        return a.equals(b) ? List.of(a) : List.of(a, b);
    }

    private void makeLevel(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectory(dir);
        }
        if (version == CgroupVersion.V2) {
            write(dir.resolve("cpu.weight"), Long.toString(V2_WEIGHT));
        } else {
            write(dir.resolve("cpu.shares"), Long.toString(V1_SHARES));
        }
    }

    /** cgroup v2: the cpu controller must be enabled in a parent for its children to have cpu.max. */
    private static void enableCpu(Path dir) throws IOException {
        Path control = dir.resolve("cgroup.subtree_control");
        if (!List.of(Files.readString(control).trim().split("\\s+")).contains("cpu")) {
            write(control, "+cpu");
        }
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value + "\n", StandardCharsets.US_ASCII);
    }

    /** Removes the groups of runs whose JVM is gone; fails when such a group still holds a process. */
    private static void removeStale(Path bench, PrintStream log) throws UnavailableException, IOException {
        if (!Files.isDirectory(bench)) {
            return;
        }
        try (DirectoryStream<Path> runs = Files.newDirectoryStream(bench, "scaleout-*")) {
            for (Path run : runs) {
                long owner;
                try {
                    owner = Long.parseLong(run.getFileName().toString().substring("scaleout-".length()));
                } catch (NumberFormatException e) {
                    continue;
                }
                Optional<ProcessHandle> h = ProcessHandle.of(owner);
                if (h.isPresent() && h.get().isAlive()) {
                    continue; // a run in progress
                }
                List<Path> children = new ArrayList<>();
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(run, Files::isDirectory)) {
                    ds.forEach(children::add);
                }
                for (Path child : children) {
                    String procs = Files.readString(child.resolve("cgroup.procs")).trim();
                    if (!procs.isEmpty()) {
                        throw new UnavailableException("a run that ended left processes in " + child + " (pids "
                                + procs.replace('\n', ' ') + "); stop them, then run again");
                    }
                    remove(child, log);
                }
                remove(run, log);
                log.println("bench scaleout: removed the groups of an ended run, " + run);
            }
        }
    }

    private static void stopAll(List<Long> pids) {
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> stopping = new ArrayList<>();
        for (long pid : pids) {
            if (pid != self) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    h.destroy();
                    stopping.add(h);
                });
            }
        }
        for (ProcessHandle h : stopping) {
            try {
                h.onExit().get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
    }

    /** rmdir, waiting a moment for the tasks that just ended to leave the group. */
    private static void remove(Path dir, PrintStream log) {
        for (int attempt = 0; ; attempt++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (NoSuchFileException e) {
                return;
            } catch (IOException e) {
                if (attempt >= 50) {
                    log.println("bench scaleout: cannot remove " + dir + ": " + e);
                    return;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    log.println("bench scaleout: interrupted while removing " + dir);
                    return;
                }
            }
        }
    }
}
