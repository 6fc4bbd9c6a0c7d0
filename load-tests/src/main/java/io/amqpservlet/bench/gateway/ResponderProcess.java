package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.broker.EngineResponder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The hand-written responder ({@link EngineResponder}) in a JVM of its own, so that the broker's CPU per request and
 * the responder's are measured apart. Its standard error goes to {@code responder-NAME.log} in the work folder.
 */
final class ResponderProcess implements AutoCloseable {
    /** How the responder is set up, for the report. */
    static final String DESCRIPTION = "our engine, one connection, 256 credits, its own JVM";

    private final Process process;

    /**
     * Starts a responder on the broker at {@code port} consuming {@code queue} (the broker's address of it), logging
     * in as {@code user} ({@code name:password}, or null for ANONYMOUS); returns once both its links are attached.
     */
    ResponderProcess(Path workDir, String name, int port, String queue, String user) throws IOException {
        Files.createDirectories(workDir);
        Path log = workDir.resolve("responder-" + name + ".log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx256m", "-cp", System.getProperty("java.class.path"), EngineResponder.class.getName(),
                "--port", Integer.toString(port), "--queue", queue));
        if (user != null) {
            cmd.addAll(List.of("--user", user));
        }
        process = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("responder ready")) {
                return;
            }
        }
        process.destroyForcibly();
        throw new IOException("the responder did not attach to " + queue + "; see " + log);
    }

    /** The responder's process id. */
    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
