package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.MeasuredPhase;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 load with wrk (Debian's wrk 4.1), POSTing the same body through {@code wrk-post.lua}. wrk keeps one
 * request in flight per connection, so it is given as many connections as the other protocols have requests in
 * flight. A fixed rate is paced by the script, one schedule per wrk thread; wrk measures latency from the actual send
 * (it is not wrk2), so under a backlog its percentiles flatter HTTP/1.1.
 */
final class WrkClient implements LoadClient {
    private final String url;
    private final int threads;
    private final int connections;
    private final int bodyBytes;
    private final Path script;

    WrkClient(String url, int threads, int connections, int bodyBytes, Path workDir) throws IOException {
        this.url = url;
        this.threads = Math.max(1, Math.min(threads, connections));
        this.connections = connections;
        this.bodyBytes = bodyBytes;
        Files.createDirectories(workDir);
        this.script = workDir.resolve("wrk-post.lua");
        try (InputStream in = WrkClient.class.getResourceAsStream("wrk-post.lua")) {
            if (in == null) {
                throw new IOException("wrk-post.lua is not in the jar");
            }
            Files.write(script, in.readAllBytes());
        }
    }

    @Override
    public ClientFigures run(double ratePerSecond, double seconds, MeasuredPhase phase) throws Exception {
        long intervalMicros = ratePerSecond > 0 ? Math.round(threads * 1e6 / ratePerSecond) : 0;
        List<String> cmd = List.of("wrk", "-t", Integer.toString(threads), "-c", Integer.toString(connections),
                "-d", String.format(Locale.ROOT, "%ds", Math.max(1, Math.round(seconds))), "--timeout", "10s",
                "-s", script.toString(), url, "--", Integer.toString(bodyBytes), Long.toString(intervalMicros));
        phase.begin();
        String out = ExternalTool.run(cmd, seconds + 30);
        phase.end();
        return WrkOutput.parse(out);
    }

    @Override
    public String describe() {
        return "wrk 4.1: " + threads + " threads, " + connections + " connections x 1 in flight, POST " + bodyBytes
                + " B";
    }
}
