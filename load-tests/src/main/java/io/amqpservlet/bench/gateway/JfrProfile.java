package io.amqpservlet.bench.gateway;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code --profile}: a JFR recording of the gateway process during one measured run, started and stopped with
 * {@code jcmd} (JFR's "profile" settings: allocation samples with stack traces, GC events), then read with
 * {@link AllocationReport}.
 */
final class JfrProfile {
    private final long pid;
    private final Path file;

    private JfrProfile(long pid, Path file) {
        this.pid = pid;
        this.file = file;
    }

    static JfrProfile start(long pid, Path file) throws IOException, InterruptedException {
        Files.deleteIfExists(file);
        jcmd(pid, "JFR.start", "name=bench", "settings=profile");
        return new JfrProfile(pid, file);
    }

    /** Stops the recording and writes it to the file. */
    void stop() throws IOException, InterruptedException {
        jcmd(pid, "JFR.stop", "name=bench", "filename=" + file.toAbsolutePath());
    }

    /** Reads the recording, writes the report to {@code report} and returns its text. */
    String report(long requests, Path report) throws IOException {
        String text = AllocationReport.read(file, requests).text();
        Files.writeString(report, text);
        return text;
    }

    private static void jcmd(long pid, String... command) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        List<String> cmd = new java.util.ArrayList<>(List.of(jcmd, Long.toString(pid)));
        cmd.addAll(List.of(command));
        ExternalTool.run(cmd, 60);
    }
}
