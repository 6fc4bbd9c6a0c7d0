package io.amqpservlet.bench.scaleout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One control group of the run, holding one process: its CPU quota (or none) and its CPU counters. Under cgroup v1
 * it is a directory in the {@code cpu} hierarchy and one in the {@code cpuacct} hierarchy (one directory when the two
 * are mounted together); under v2 one directory.
 */
final class QuotaGroup {
    private final CgroupVersion version;
    private final String name;
    private final double quotaCores;
    private final Path cpuDir;
    private final Path accountingDir;

    QuotaGroup(CgroupVersion version, String name, double quotaCores, Path cpuDir, Path accountingDir) {
        this.version = version;
        this.name = name;
        this.quotaCores = quotaCores;
        this.cpuDir = cpuDir;
        this.accountingDir = accountingDir;
    }

    String name() {
        return name;
    }

    /** The quota in cores; 0 for a group without one. */
    double quotaCores() {
        return quotaCores;
    }

    /** The group's directories: where a process is written to join it. */
    List<Path> dirs() {
        return cpuDir.equals(accountingDir) ? List.of(cpuDir) : List.of(cpuDir, accountingDir);
    }

    /**
     * A shell command that puts the shell itself into this group; followed by {@code exec}, the program it runs is
     * in the group from its first instruction, so its JIT compiler and GC threads count too.
     */
    String joinScript() {
        StringBuilder b = new StringBuilder();
        for (Path dir : dirs()) {
            if (b.length() > 0) {
                b.append(" && ");
            }
            b.append("echo $$ > '").append(dir.resolve("cgroup.procs")).append('\'');
        }
        return b.toString();
    }

    /** Moves a running process (all its threads) into this group. */
    void join(long pid) throws IOException {
        for (Path dir : dirs()) {
            Files.writeString(dir.resolve("cgroup.procs"), pid + "\n", StandardCharsets.US_ASCII);
        }
    }

    /** The processes in the group now. */
    List<Long> pids() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (String line : Files.readAllLines(cpuDir.resolve("cgroup.procs"), StandardCharsets.US_ASCII)) {
            if (!line.isBlank()) {
                pids.add(Long.parseLong(line.trim()));
            }
        }
        return pids;
    }

    /** The group's counters now. */
    CpuReading read() throws IOException {
        long at = System.nanoTime();
        String stat = Files.readString(cpuDir.resolve("cpu.stat"), StandardCharsets.US_ASCII);
        String usage = version == CgroupVersion.V1
                ? Files.readString(accountingDir.resolve("cpuacct.usage"), StandardCharsets.US_ASCII) : "";
        return version.reading(stat, usage, at);
    }

    @Override
    public String toString() {
        return name + " (" + cpuDir + ")";
    }
}
