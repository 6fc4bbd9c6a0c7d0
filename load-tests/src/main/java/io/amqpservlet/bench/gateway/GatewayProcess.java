package io.amqpservlet.bench.gateway;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gateway under test, in its own JVM: {@code java -jar amqp-servlet-gateway.jar --amqp-port 0 --http-port 0
 * --stats}, started from a private copy of the jar (so a rebuild during a run cannot pull classes from under it),
 * its ports read from the line it prints once it serves. Its standard error goes to a log file.
 */
public final class GatewayProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("amqp-servlet listening amqp=(-?\\d+) http=(-?\\d+)");

    private final Process process;
    /** The AMQP listener's port. */
    public final int amqpPort;
    /** The HTTP/1.1 (and h2c) port. */
    public final int httpPort;

    GatewayProcess(Path jar, Path workDir, List<String> jvmOptions) throws IOException, InterruptedException {
        this(jar, workDir, jvmOptions, List.of());
    }

    /** As above, with more gateway options after the ports (e.g. its connection limits, the floor's flag). */
    public GatewayProcess(Path jar, Path workDir, List<String> jvmOptions, List<String> gatewayOptions)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path copy = workDir.resolve("gateway-under-test.jar");
        Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+ExitOnOutOfMemoryError"); // as bin/amqp-servlet starts it (docs/gateway.md)
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", copy.toString(), "--amqp-port", "0", "--http-port", "0", "--stats"));
        cmd.addAll(gatewayOptions);
        process = new ProcessBuilder(cmd).redirectError(workDir.resolve("gateway.log").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        Matcher m = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((line = out.readLine()) != null) {
            m = LISTENING.matcher(line);
            if (m.find()) {
                break;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        if (m == null || !m.find(0)) {
            process.destroyForcibly();
            throw new IOException("the gateway did not start; see " + workDir.resolve("gateway.log"));
        }
        amqpPort = Integer.parseInt(m.group(1));
        httpPort = Integer.parseInt(m.group(2));
    }

    /** The gateway's process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the gateway is still running (an OutOfMemoryError ends it: -XX:+ExitOnOutOfMemoryError). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * How the gateway ended, for a failure's message: {@code running}, or its exit code (3 is the JVM's for an
     * OutOfMemoryError under -XX:+ExitOnOutOfMemoryError).
     */
    public String exitStatus() {
        return process.isAlive() ? "running" : "exited with " + process.exitValue()
                + (process.exitValue() == 3 ? " (out of memory)" : "");
    }

    /** The gateway's {@code --stats} endpoint. */
    public String statsUrl() {
        return "http://127.0.0.1:" + httpPort + "/.amqp-servlet/stats";
    }

    /**
     * The floor endpoint (served only when the gateway was given {@code --bench-floor}): requests injected into the
     * gateway's server with no wire.
     */
    String floorUrl() {
        return "http://127.0.0.1:" + httpPort + "/.amqp-servlet/floor";
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: the gateway's graceful stop
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
