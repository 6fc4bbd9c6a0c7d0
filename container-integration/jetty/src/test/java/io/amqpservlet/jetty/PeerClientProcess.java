package io.amqpservlet.jetty;

import org.eclipse.jetty.util.ajax.JSON;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * An AMQP client from another project (Proton-C through Python, rhea through Node.js) run as a subprocess: the
 * script prints one JSON object per line on stdout; a non-zero exit, a timeout or an unparsable line fails the test
 * with the script's stderr and stdout in the message.
 */
final class PeerClientProcess {
    /** Debian's interpreter: a pyenv {@code python3} earlier on PATH does not see Debian's dist-packages. */
    static final String DEBIAN_PYTHON = "/usr/bin/python3";
    /** The folder whose package.json and package-lock.json pin rhea; {@code .ci/install-peers} runs npm ci there. */
    static final Path NODE_PROJECT = Path.of("src", "test", "node");
    private static final String INSTALL_HINT = " (CI installs it: run .ci/install-peers from the repository root,"
            + " as .ci/run does)";

    private PeerClientProcess() {
    }

    /** Fails (never skips) unless Debian's python3 can import Proton-C's binding. */
    static void requireProtonPython() throws Exception {
        if (!Files.isExecutable(Path.of(DEBIAN_PYTHON))) {
            fail(DEBIAN_PYTHON + " is missing" + INSTALL_HINT);
        }
        Process probe = new ProcessBuilder(DEBIAN_PYTHON, "-c", "import proton").redirectErrorStream(true).start();
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!probe.waitFor(30, TimeUnit.SECONDS) || probe.exitValue() != 0) {
            probe.destroyForcibly();
            fail("python3-qpid-proton is not installed for " + DEBIAN_PYTHON + INSTALL_HINT + ": " + output);
        }
    }

    /** Fails (never skips) unless node runs and rhea is installed in {@link #NODE_PROJECT}. */
    static void requireRhea() throws Exception {
        Process probe;
        try {
            probe = new ProcessBuilder("node", "-e", "require('rhea')").directory(NODE_PROJECT.toFile())
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("node is not on PATH" + INSTALL_HINT, e);
        }
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!probe.waitFor(30, TimeUnit.SECONDS) || probe.exitValue() != 0) {
            probe.destroyForcibly();
            fail("rhea is not installed in " + NODE_PROJECT + INSTALL_HINT + ": " + output);
        }
    }

    /**
     * Runs {@code command} in {@code directory}, waits at most {@code timeoutSeconds}, and returns the JSON objects
     * it printed, one per line, in order.
     */
    static List<Map<String, Object>> run(Path directory, long timeoutSeconds, String... command) throws Exception {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).start();
        process.getOutputStream().close();
        // Both pipes drained at once, so a chatty stderr cannot block the script while we read stdout.
        StreamDrain stdout = new StreamDrain(process.getInputStream());
        StreamDrain stderr = new StreamDrain(process.getErrorStream());
        try {
            boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String out = stdout.text();
            String err = tail(stderr.text());
            String what = String.join(" ", command);
            if (!exited) {
                fail(what + " did not finish within " + timeoutSeconds + " s\n--- stderr\n" + err
                        + "\n--- stdout\n" + tail(out));
            }
            if (process.exitValue() != 0) {
                fail(what + " exited with " + process.exitValue() + "\n--- stderr\n" + err + "\n--- stdout\n" + tail(out));
            }
            List<Map<String, Object>> lines = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                Object parsed;
                try {
                    parsed = new JSON().fromJSON(line);
                } catch (RuntimeException e) {
                    throw new AssertionError(what + " printed a line that is not JSON: " + line + "\n--- stderr\n"
                            + err, e);
                }
                if (!(parsed instanceof Map)) {
                    fail(what + " printed a line that is not a JSON object: " + line);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) parsed;
                lines.add(object);
            }
            return lines;
        } finally {
            process.destroyForcibly();
        }
    }

    /** The end of a long output, enough for a traceback, so a failure message stays readable. */
    private static String tail(String text) {
        int keep = 8_000;
        return text.length() <= keep ? text : "[... " + (text.length() - keep) + " chars]" + text.substring(
                text.length() - keep);
    }

    /** Lowercase hex SHA-256, to compare a large body with what a script printed of the one it saw. */
    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Reads a stream to its end on its own thread. */
    private static final class StreamDrain {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final Thread thread;
        private volatile IOException failure;

        StreamDrain(InputStream in) {
            thread = new Thread(() -> {
                try (in) {
                    in.transferTo(bytes);
                } catch (IOException e) {
                    failure = e;
                }
            }, "peer-client-drain");
            thread.setDaemon(true);
            thread.start();
        }

        String text() throws InterruptedException {
            thread.join(10_000);
            if (failure != null) {
                throw new UncheckedIOException(failure);
            }
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
