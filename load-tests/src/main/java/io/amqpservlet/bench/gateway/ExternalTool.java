package io.amqpservlet.bench.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs an external program of the suite (wrk, h2load, jcmd) to its end, with a time limit. */
final class ExternalTool {
    private ExternalTool() {
    }

    /** Runs {@code cmd} and returns its standard output with standard error appended; fails on a non-zero exit. */
    static String run(List<String> cmd, double timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        if (!p.waitFor((long) timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd.get(0) + " did not finish in " + timeoutSeconds + " s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ":\n" + text);
        }
        return text;
    }
}
