package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.MeasuredPhase;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/2 (h2c, prior knowledge) load with h2load (nghttp2-client), the same connections and streams in flight per
 * connection as our AMQP window, POSTing the same body. A fixed rate uses {@code --rps} (per connection). The latency
 * percentiles come from h2load's per-request log file.
 */
final class H2loadClient implements LoadClient {
    private final String url;
    private final int threads;
    private final int connections;
    private final int streams;
    private final int bodyBytes;
    private final Path body;
    private final Path log;

    H2loadClient(String url, int threads, int connections, int streams, int bodyBytes, Path workDir)
            throws IOException {
        this.url = url;
        this.threads = Math.max(1, Math.min(threads, connections));
        this.connections = connections;
        this.streams = streams;
        this.bodyBytes = bodyBytes;
        Files.createDirectories(workDir);
        body = workDir.resolve("body.bin");
        byte[] b = new byte[bodyBytes];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ('a' + i % 26); // the bytes our generator and the wrk script send
        }
        Files.write(body, b);
        log = workDir.resolve("h2load.log");
    }

    @Override
    public ClientFigures run(double ratePerSecond, double seconds, MeasuredPhase phase) throws Exception {
        Files.deleteIfExists(log);
        long duration = Math.max(1, Math.round(seconds));
        List<String> cmd = new ArrayList<>(List.of("h2load", "-c", Integer.toString(connections), "-m",
                Integer.toString(streams), "-t", Integer.toString(threads), "-D", Long.toString(duration),
                "-d", body.toString(), "-H", "content-type: application/octet-stream",
                "--log-file=" + log));
        if (ratePerSecond > 0) {
            cmd.add(String.format(Locale.ROOT, "--rps=%.3f", ratePerSecond / connections));
        }
        cmd.add(url);
        phase.begin();
        String out = ExternalTool.run(cmd, duration + 30);
        phase.end();
        return H2loadOutput.parse(out, Files.readAllLines(log), duration);
    }

    @Override
    public String describe() {
        return "h2load 1.52: " + threads + " threads, " + connections + " connections x " + streams
                + " streams, POST " + bodyBytes + " B";
    }
}
