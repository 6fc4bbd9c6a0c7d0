package io.amqpservlet.gateway.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A gateway as users run it, the shaded jar in a JVM of its own, attached to a broker ({@code --attach}), serving
 * {@link ServingTokenServlet} at {@code /work}: a process the fault tests can freeze (SIGSTOP), thaw (SIGCONT) and
 * kill (SIGKILL). Its standard error, where it logs, goes to {@code NAME.log} in the test's folder, and the
 * message-ids its servlet starts serving to {@code NAME.started}.
 */
final class GatewayProcess implements AutoCloseable {
    static final Path JAR = Path.of("target", "amqp-servlet-gateway.jar");

    private final String name;
    private final Path log;
    private final Path started;
    private final Process process;

    private GatewayProcess(String name, Path log, Path started, Process process) {
        this.name = name;
        this.log = log;
        this.started = started;
        this.process = process;
    }

    /**
     * Starts a gateway with no listener that attaches to {@code attachUri}.
     *
     * @param options further gateway options ({@code --attach-credit 4}, ...)
     */
    static GatewayProcess start(Path dir, String name, String attachUri, String... options) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException("no " + JAR.toAbsolutePath() + ": mvn package builds it (these tests are "
                    + "failsafe's, run after package)");
        }
        Path started = dir.resolve(name + ".started");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m", "-D" + ServingTokenServlet.STARTED_PROPERTY + "=" + started, "-jar", JAR.toString(), "--amqp-port", "-1", "--http-port", "-1",
                "--attach", attachUri, "--classpath", Path.of("target", "test-classes").toString(),
                "--servlet", "/work/*=" + ServingTokenServlet.class.getName()));
        command.addAll(List.of(options));
        Path log = dir.resolve(name + ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new GatewayProcess(name, log, started, p);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** What it has logged so far. */
    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** Its log lines that contain {@code text}. */
    List<String> logLines(String text) {
        List<String> found = new ArrayList<>();
        for (String line : log().split("\n")) {
            if (line.contains(text)) {
                found.add(line);
            }
        }
        return found;
    }

    /**
     * The message-ids of the requests its servlet started serving, in order, once per start, whole lines only
     * ({@link ServingTokenServlet}).
     */
    List<String> started() throws IOException {
        List<String> ids = new ArrayList<>();
        for (String[] start : starts()) {
            ids.add(start[0]);
        }
        return ids;
    }

    /** When its servlet started serving each request ({@link System#currentTimeMillis()}), by message-id. */
    Map<String, List<Long>> startMillis() throws IOException {
        Map<String, List<Long>> times = new TreeMap<>();
        for (String[] start : starts()) {
            times.computeIfAbsent(start[0], id -> new ArrayList<>()).add(Long.parseLong(start[1]));
        }
        return times;
    }

    private List<String[]> starts() throws IOException {
        List<String[]> starts = new ArrayList<>();
        if (!Files.exists(started)) {
            return starts;
        }
        String text = Files.readString(started);
        int end = text.lastIndexOf('\n'); // a line the process was writing when stopped is not whole
        for (String line : text.substring(0, end + 1).split("\n")) {
            if (!line.isEmpty()) {
                starts.add(line.split(" "));
            }
        }
        return starts;
    }

    /**
     * Its lines about a connection to the broker it had and lost (one each), leaving out the attempts that found
     * nothing to connect to: what may have held requests when it ended.
     */
    List<String> connectionsLost() {
        List<String> lost = new ArrayList<>();
        for (String line : logLines("; connecting to ")) {
            if (!line.contains("cannot connect to ")) {
                lost.add(line);
            }
        }
        return lost;
    }

    /**
     * The requests whose servlet ran more than once over all of {@code gateways}, and how many times: an answer shows
     * only the serving whose response reached the broker, so this is what a servlet with side effects did twice.
     */
    static Map<String, Integer> ranMoreThanOnce(GatewayProcess... gateways) throws IOException {
        Map<String, Integer> runs = new TreeMap<>();
        for (GatewayProcess g : gateways) {
            for (String id : g.started()) {
                runs.merge(id, 1, Integer::sum);
            }
        }
        runs.values().removeIf(n -> n < 2);
        return runs;
    }

    /** Waits until its log has a line with {@code text}; fails after {@code millis}. */
    String awaitLog(String text, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            List<String> lines = logLines(text);
            if (!lines.isEmpty()) {
                return lines.get(0);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " did not log \"" + text + "\" within " + millis + " ms:\n" + log());
            }
            Thread.sleep(50);
        }
    }

    /** SIGSTOP: the process stops where it is; its sockets stay open and its kernel still acknowledges data. */
    void freeze() throws Exception {
        signal("STOP");
    }

    /** SIGCONT: a frozen process goes on. */
    void thaw() throws Exception {
        signal("CONT");
    }

    private void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    @Override
    public void close() throws Exception {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }
}
