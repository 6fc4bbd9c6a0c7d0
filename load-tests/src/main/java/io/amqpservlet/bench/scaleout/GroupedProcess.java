package io.amqpservlet.bench.scaleout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process started inside its control group: {@code sh -c 'echo $$ > GROUP/cgroup.procs && exec "$@"' sh COMMAND},
 * so the program is in the group from its first instruction and every thread it ever has (JIT compiler, GC) is
 * counted and held to the quota. Its standard output goes to {@code NAME.out} (read for the line that says it is
 * ready), its standard error to {@code NAME.log}.
 */
final class GroupedProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;
    private final Matcher ready;

    private GroupedProcess(String name, Process process, Path log, Matcher ready) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.ready = ready;
    }

    /**
     * Starts {@code command} in {@code group} and waits up to {@code timeoutSeconds} for a line of its standard
     * output that {@code readyLine} finds.
     *
     * @throws IOException when it ends or stays silent before that (it is stopped; the message names its log)
     */
    static GroupedProcess start(String name, QuotaGroup group, List<String> command, Path workDir, Pattern readyLine,
                                double timeoutSeconds) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path out = workDir.resolve(name + ".out");
        Path log = workDir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", group.joinScript() + " && exec \"$@\"", "sh"));
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(log.toFile()).start();
        long deadline = System.nanoTime() + Math.round(timeoutSeconds * 1e9);
        while (true) {
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                Matcher m = readyLine.matcher(line);
                if (m.find()) {
                    return new GroupedProcess(name, p, log, m);
                }
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                String why = p.isAlive() ? "did not start within " + timeoutSeconds + " s"
                        : "ended with exit code " + p.exitValue();
                stop(p);
                throw new IOException(name + " " + why + "; see " + log);
            }
            Thread.sleep(50);
        }
    }

    /** The ready line's match (its groups give the ports the process printed). */
    Matcher ready() {
        return ready;
    }

    long pid() {
        return process.pid();
    }

    /** Fails when the process has ended: a measurement without it would be meaningless. */
    void checkAlive() throws IOException {
        if (!process.isAlive()) {
            throw new IOException(name + " ended with exit code " + process.exitValue() + "; see " + log);
        }
    }

    /** SIGTERM (the JVM's graceful stop), SIGKILL after 20 s. */
    @Override
    public void close() throws InterruptedException {
        stop(process);
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
