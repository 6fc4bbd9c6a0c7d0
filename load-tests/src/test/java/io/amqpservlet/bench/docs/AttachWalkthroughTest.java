package io.amqpservlet.bench.docs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/attach.md's walkthrough, run as written: the commands of its code blocks, each in a process of its own, with
 * the launchers' programs ({@code load-tests/bench broker} runs {@code ArtemisBroker --no-responder},
 * {@code bin/amqp-servlet} runs {@code GatewayMain}) from this module's test class path and the page's port
 * replaced by a free one. The requests print what the page says they print.
 */
@Timeout(120)
class AttachWalkthroughTest {
    private static final Path PAGE = Path.of("..", "docs", "attach.md");
    private static final String PAGE_PORT = "5673";

    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process p : started) {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            p.destroyForcibly();
        }
    }

    /** The command lines of the walkthrough's code blocks, in order. */
    private static List<String> commands() throws Exception {
        String page = Files.readString(PAGE);
        int start = page.indexOf("## Walkthrough");
        String section = page.substring(start, page.indexOf("\n## ", start + 1));
        List<String> commands = new ArrayList<>();
        Matcher m = Pattern.compile("(?ms)^```\\n(.*?)^```$").matcher(section);
        while (m.find()) {
            for (String line : m.group(1).split("\n")) {
                if (!line.isBlank()) {
                    commands.add(line.trim());
                }
            }
        }
        return commands;
    }

    /** A command line split as a shell splits it (words, single-quoted strings). */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        Matcher m = Pattern.compile("'([^']*)'|(\\S+)").matcher(line);
        while (m.find()) {
            words.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return words;
    }

    /** The process a launcher line runs: the same program and arguments, from the test class path. */
    private ProcessBuilder process(String line, int port) {
        List<String> w = words(line.replace(PAGE_PORT, String.valueOf(port)));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path")));
        if (w.get(0).equals("load-tests/bench") && w.get(1).equals("broker")) {
            command.addAll(List.of("io.amqpservlet.bench.broker.ArtemisBroker", "--no-responder"));
            command.addAll(w.subList(2, w.size()));
        } else if (w.get(0).equals("bin/amqp-servlet")) {
            command.add("io.amqpservlet.gateway.GatewayMain");
            command.addAll(w.subList(1, w.size()));
        } else {
            throw new AssertionError("not a launcher of this project: " + line);
        }
        return new ProcessBuilder(command);
    }

    /** Starts a long-running command and returns once it printed a line starting with {@code ready}. */
    private void startUntil(String line, int port, String ready, String name) throws Exception {
        Path err = dir.resolve(name + ".err");
        Process p = process(line, port).redirectError(err.toFile()).start();
        started.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String printed; (printed = out.readLine()) != null; ) {
            if (printed.startsWith(ready)) {
                return;
            }
        }
        throw new AssertionError(line + " ended without printing " + ready + ": " + Files.readString(err));
    }

    private String run(String line, int port) throws Exception {
        Process p = process(line, port).redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), line);
        assertEquals(0, p.exitValue(), line + ": " + printed);
        return printed;
    }

    @Test
    void theWalkthroughsCommandsDoWhatThePageSays() throws Exception {
        List<String> commands = commands();
        assertEquals(4, commands.size(), commands.toString());
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        startUntil(commands.get(0), port, "artemis listening amqp=" + port, "broker");
        startUntil(commands.get(1), port, "amqp-servlet listening", "gateway");

        // The gateway attaches a moment after it prints its ports: the request waits in the queue meanwhile.
        String created = run(commands.get(2), port);
        assertTrue(created.startsWith("HTTP/1.1 201\r\n"), created);
        assertTrue(created.contains("\r\nlocation: /orders/1\r\n"), created);
        assertTrue(created.endsWith("\r\n\r\n{\"id\":1}"), created);
        assertEquals("{\"id\":1,\"order\":\"one book\"}", run(commands.get(3), port).trim());
    }
}
