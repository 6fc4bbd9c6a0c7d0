package io.amqpservlet.gateway;

import io.amqpservlet.jetty.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shaded jar as users run it: the gateway in one process (ports 0, the printed ports read back), the CLI in
 * another, then SIGTERM ({@link Process#destroy()}) or SIGINT and the gateway exits with the status its help and
 * docs/gateway.md give; the CLI's standard error carries its own messages only. Runs in {@code integration-test}
 * (failsafe), after {@code package} has built the jar.
 */
@Timeout(120)
class GatewayJarIT {
    private static final Path JAR = Path.of("target", "amqp-servlet-gateway.jar");
    private static final Pattern LISTENING = Pattern.compile("amqp-servlet listening amqp=(\\d+) http=(-?\\d+)");

    @TempDir
    Path dir;

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * docs/gateway.md's log switch as written: {@code -Dio.amqpservlet.LEVEL=DEBUG} before {@code -jar} shows each
     * connection's open and close; a wrong password is an INFO line without it.
     */
    @Test
    void theLogLevelSwitchShowsConnectionsAndAFailedLoginIsLoggedWithoutIt() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        Process gateway = new ProcessBuilder(java(), "-Dio.amqpservlet.LEVEL=DEBUG", "-jar", JAR.toString(),
                "--amqp-port", "0", "--http-port", "-1", "--user", "alice:secret")
                .redirectError(dir.resolve("gateway.err").toFile()).start();
        try {
            int amqpPort = -1;
            BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(),
                    StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null; ) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    amqpPort = Integer.parseInt(m.group(1));
                    break;
                }
            }
            assertTrue(amqpPort > 0, "no ports printed; stderr: " + Files.readString(dir.resolve("gateway.err")));
            for (String user : new String[] {"alice:wrong", "alice:secret"}) {
                Process cli = new ProcessBuilder(java(), "-jar", JAR.toString(), "request",
                        "amqp://127.0.0.1:" + amqpPort + "/echo", "-u", user, "-d", "x")
                        .redirectErrorStream(true).start();
                cli.getInputStream().readAllBytes();
                assertTrue(cli.waitFor(30, TimeUnit.SECONDS), "the CLI did not exit");
            }
            gateway.destroy();
            assertTrue(gateway.waitFor(30, TimeUnit.SECONDS), "the gateway did not exit after SIGTERM");
            String err = Files.readString(dir.resolve("gateway.err"));
            assertTrue(err.lines().anyMatch(l -> l.contains(":INFO :") && l.contains("AMQP login from 127.0.0.1:")
                    && l.endsWith("failed: invalid credentials for alice (PLAIN)")), err);
            assertTrue(err.lines().anyMatch(l -> l.contains(":DEBUG:") && l.contains("AMQP connection from 127.0.0.1:")
                    && l.contains(" open: container-id amqp-servlet-request") && l.contains("user alice")), err);
            assertTrue(err.lines().anyMatch(l -> l.contains(":DEBUG:") && l.contains(" closed: container-id "
                    + "amqp-servlet-request, requests: 1")), err);
        } finally {
            gateway.destroyForcibly();
        }
    }

    /** Starts the jar's gateway on free ports; returns once it printed them. */
    private Process startGateway(String name, String... options) throws Exception {
        return startGateway(name, List.of(), options);
    }

    /** The gateway run by {@code launcher} (a command that ends by running its arguments), then its ports read back. */
    private Process startGateway(String name, List<String> launcher, String... options) throws Exception {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(java(), "-jar", JAR.toString()));
        command.addAll(List.of(options));
        Process gateway = new ProcessBuilder(command).redirectError(dir.resolve(name + ".err").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(),
                StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith("amqp-servlet listening")) {
                listening = line;
                return gateway;
            }
        }
        gateway.destroyForcibly();
        throw new AssertionError("no ports printed; stderr: " + Files.readString(dir.resolve(name + ".err")));
    }

    private String listening;

    private int port(String name) {
        Matcher m = Pattern.compile(" " + name + "=(-?\\d+)").matcher(listening);
        assertTrue(m.find(), listening);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void ctrlCStopsGracefullyWithStatus130() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        // A JVM started with SIGINT ignored keeps ignoring it, and a background job of a non-interactive shell (a CI
        // run started with '&') starts so, as do its children. A terminal's Ctrl-C reaches a gateway that does not:
        // coreutils' env puts the default action back before it runs the gateway.
        List<String> launcher = signalIgnored(ProcessHandle.current().pid(), 2) && envCanDefaultSignals()
                ? List.of("env", "--default-signal=INT") : List.of();
        Process gateway = startGateway("sigint", launcher, "--amqp-port", "0", "--http-port", "-1");
        try {
            assumeTrue(!signalIgnored(gateway.pid(), 2), "SIGINT is ignored in this process tree");
            // The shell's own kill: a minimal Debian has no kill program (procps), but always a /bin/sh.
            Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -INT " + gateway.pid()).inheritIO().start();
            assertEquals(0, kill.waitFor());
            assertTrue(gateway.waitFor(30, TimeUnit.SECONDS), "the gateway did not exit after SIGINT");
            assertTrue(Files.readString(dir.resolve("sigint.err")).contains("amqp-servlet: stopping"));
            assertEquals(130, gateway.exitValue());
        } finally {
            gateway.destroyForcibly();
        }
    }

    /** Whether this machine's env can run a command with a signal's default action (GNU coreutils 8.31 and later). */
    private static boolean envCanDefaultSignals() throws Exception {
        Process env = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true).start();
        env.getInputStream().transferTo(OutputStream.nullOutputStream());
        return env.waitFor() == 0;
    }

    /** Whether {@code signal} is ignored by process {@code pid} (Linux: the SigIgn mask in /proc). */
    private static boolean signalIgnored(long pid, int signal) throws Exception {
        Path status = Path.of("/proc", String.valueOf(pid), "status");
        if (!Files.isReadable(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << (signal - 1))) != 0;
            }
        }
        return false;
    }

    @Test
    void theExitStatusesOfHelpAndTheSystemdUnitAreTheMeasuredOnes() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        Process help = new ProcessBuilder(java(), "-jar", JAR.toString(), "--help").start();
        String text = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, help.waitFor());
        assertTrue(text.contains("  143   stopped by SIGTERM"), text);
        assertTrue(text.contains("  130   stopped by Ctrl-C"), text);
        String doc = Files.readString(Path.of("..", "..", "docs", "gateway.md"));
        String unit = doc.substring(doc.indexOf("[Service]"), doc.indexOf("```", doc.indexOf("[Service]")));
        assertTrue(unit.contains("\nSuccessExitStatus=143\n"), unit);
        assertTrue(unit.contains("\nRestart=on-failure\n"), unit);
        assertTrue(unit.contains("-XX:+ExitOnOutOfMemoryError"), unit);
    }

    @Test
    void theClientKeepsJettysTlsLinesOffItsStandardError() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        TestCertificates certificates = TestCertificates.create(dir);
        Process gateway = startGateway("tls", "--amqp-port", "-1", "--http-port", "-1", "--amqps-port", "0",
                "--tls-keystore", certificates.serverKeyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD);
        try {
            Process cli = new ProcessBuilder(java(), "-jar", JAR.toString(), "request", "-k", "-i",
                    "amqps://localhost:" + port("amqps") + "/echo").redirectError(dir.resolve("tls-cli.err").toFile())
                    .start();
            String printed = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(cli.waitFor(30, TimeUnit.SECONDS), "the CLI did not exit");
            String err = Files.readString(dir.resolve("tls-cli.err"));
            assertEquals(0, cli.exitValue(), printed + err);
            assertTrue(printed.startsWith("HTTP/1.1 200\r\n"), printed);
            assertEquals("", err, "the client's standard error has its own messages only");
        } finally {
            gateway.destroyForcibly();
        }
    }

    @Test
    void jarServesTheDemoAndStopsOnSigterm() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        Process gateway = new ProcessBuilder(java(), "-jar", JAR.toString(), "--amqp-port", "0", "--http-port", "0")
                .redirectError(dir.resolve("gateway.err").toFile()).start();
        try {
            int amqpPort = -1;
            BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(),
                    StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null; ) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    amqpPort = Integer.parseInt(m.group(1));
                    assertTrue(Integer.parseInt(m.group(2)) > 0, line);
                    break;
                }
            }
            assertTrue(amqpPort > 0, "no ports printed; stderr: " + Files.readString(dir.resolve("gateway.err")));

            Process cli = new ProcessBuilder(java(), "-jar", JAR.toString(), "request",
                    "amqp://127.0.0.1:" + amqpPort + "/echo?from=jar", "-d", "hello", "-i")
                    .redirectError(dir.resolve("cli.err").toFile()).start();
            byte[] printed = cli.getInputStream().readAllBytes();
            assertTrue(cli.waitFor(30, TimeUnit.SECONDS), "the CLI did not exit");
            String text = new String(printed, StandardCharsets.UTF_8);
            assertEquals(0, cli.exitValue(), text + Files.readString(dir.resolve("cli.err")));
            assertTrue(text.startsWith("HTTP/1.1 200\r\n"), text);
            assertTrue(text.contains("\r\nx-echo-path: /echo?from=jar\r\n"), text);
            assertTrue(text.endsWith("\r\n\r\nhello"), text);

            gateway.destroy(); // SIGTERM: the shutdown hook stops the server
            assertTrue(gateway.waitFor(30, TimeUnit.SECONDS), "the gateway did not exit after SIGTERM");
            List<String> err = Files.readAllLines(dir.resolve("gateway.err"));
            assertTrue(err.stream().anyMatch(l -> l.contains("amqp-servlet: stopping")), String.join("\n", err));
            // 128 + SIGTERM, as --help and docs/gateway.md say (and the systemd unit there accepts as success).
            assertEquals(143, gateway.exitValue());
        } finally {
            gateway.destroyForcibly();
        }
    }
}
