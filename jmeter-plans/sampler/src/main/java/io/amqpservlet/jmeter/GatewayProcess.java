package io.amqpservlet.jmeter;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starts and stops the standalone gateway (the shaded jar) as a separate process around the JMeter plans' run; the
 * jmeter-plans build calls it with exec-maven-plugin's {@code java} goal, inside Maven's JVM.
 *
 * <pre>
 * start JAR DIR [gateway options]   run java -jar JAR with the options, wait until it listens, write DIR/gateway.pid
 *                                   and DIR/gateway.properties (amqp.port, http.port: the bound ports, so port 0 works)
 * stop DIR                          SIGTERM the process named in DIR/gateway.pid and wait for it to exit
 * </pre>
 *
 * <p>{@code start} also registers a shutdown hook in Maven's JVM that ends the gateway, so a build that fails
 * between start and stop (JMeter crashed, Ctrl-C) does not leave it running. The gateway's standard output and
 * error go to DIR/gateway.out and DIR/gateway.log.
 */
public final class GatewayProcess {
    private static final String READY = "amqp-servlet listening ";
    private static final long START_MILLIS = 60_000;
    private static final long STOP_MILLIS = 30_000;

    private GatewayProcess() {
    }

    /**
     * Runs {@code start} or {@code stop}; a failure is thrown, so the Maven goal and the build fail with it.
     */
    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && "start".equals(args[0])) {
            start(Path.of(args[1]), Path.of(args[2]), Arrays.asList(args).subList(3, args.length));
        } else if (args.length == 2 && "stop".equals(args[0])) {
            stop(Path.of(args[1]));
        } else {
            throw new IllegalArgumentException("usage: start JAR DIR [gateway options] | stop DIR; got "
                    + Arrays.toString(args));
        }
    }

    static void start(Path jar, Path dir, List<String> options) throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no gateway jar at " + jar + " (build container-integration/gateway first)");
        }
        Files.createDirectories(dir);
        Path out = dir.resolve("gateway.out");
        Path log = dir.resolve("gateway.log");
        Files.deleteIfExists(out);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:+ExitOnOutOfMemoryError"); // as bin/amqp-servlet starts it (docs/gateway.md)
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        command.addAll(options);
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(log.toFile())
                .start();
        // exec:java destroys the thread group it ran us in, and a shutdown hook whose group is gone never starts:
        // the hook lives in the root group.
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Runtime.getRuntime().addShutdownHook(new Thread(root, process::destroy, "gateway-process-stop"));
        String ready = awaitReady(process, out, log);
        Properties ports = new Properties();
        // "amqp-servlet listening amqp=5672 http=8080"
        for (String field : ready.substring(READY.length()).trim().split(" ")) {
            int eq = field.indexOf('=');
            if (eq > 0) {
                ports.setProperty(field.substring(0, eq) + ".port", field.substring(eq + 1));
            }
        }
        try (OutputStream o = Files.newOutputStream(dir.resolve("gateway.properties"))) {
            ports.store(o, "the ports the gateway bound, for the JMeter plans (-q)");
        }
        Files.writeString(dir.resolve("gateway.pid"), Long.toString(process.pid()));
        System.out.println("[gateway] pid " + process.pid() + " " + ready.trim() + " (" + String.join(" ", options)
                + ")");
    }

    private static String awaitReady(Process process, Path out, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MILLIS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(out)) {
                for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                    if (line.startsWith(READY)) {
                        return line;
                    }
                }
            }
            if (!process.isAlive()) {
                throw new IOException("the gateway exited with status " + process.exitValue() + " before listening: "
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            Thread.sleep(50);
        }
        process.destroyForcibly();
        throw new IOException("the gateway did not listen within " + START_MILLIS + " ms; see " + log);
    }

    static void stop(Path dir) throws IOException, InterruptedException {
        Path pidFile = dir.resolve("gateway.pid");
        if (!Files.exists(pidFile)) {
            System.out.println("[gateway] no " + pidFile + ": nothing to stop");
            return;
        }
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        Files.delete(pidFile);
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            throw new IOException("the gateway (pid " + pid + ") had already exited; see " + dir.resolve("gateway.log"));
        }
        ProcessHandle gateway = handle.get();
        gateway.destroy(); // SIGTERM: the gateway's shutdown hook finishes requests in flight, then exits
        try {
            gateway.onExit().get(STOP_MILLIS, TimeUnit.MILLISECONDS);
            System.out.println("[gateway] pid " + pid + " stopped");
        } catch (TimeoutException e) {
            gateway.destroyForcibly();
            throw new IOException("the gateway (pid " + pid + ") did not stop within " + STOP_MILLIS
                    + " ms after SIGTERM; killed it");
        } catch (ExecutionException e) {
            throw new IOException("waiting for the gateway (pid " + pid + ") failed", e.getCause());
        }
    }
}
