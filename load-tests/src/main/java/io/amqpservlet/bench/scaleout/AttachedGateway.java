package io.amqpservlet.bench.scaleout;

import io.amqpservlet.bench.ReportJson;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A gateway process in attach mode, in its own control group: {@code java -jar amqp-servlet-gateway.jar --amqp-port
 * -1 --http-port 0 --stats --attach QUEUE_URL}, from a private copy of the jar (a rebuild during the run cannot
 * change it). Its {@code --stats} endpoint says when it has attached and how many requests it served.
 */
final class AttachedGateway implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("amqp-servlet listening amqp=(-?\\d+) http=(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final GroupedProcess process;
    private final String statsUrl;

    private AttachedGateway(GroupedProcess process, String statsUrl) {
        this.process = process;
        this.statsUrl = statsUrl;
    }

    /** Starts gateway {@code name} in {@code group}, attached to {@code queueUrl}; returns once it serves. */
    static AttachedGateway start(String name, QuotaGroup group, String queueUrl, Path workDir, ScaleOutSettings s)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path copy = workDir.resolve(name + ".jar");
        Files.copy(s.gatewayJar(), copy, StandardCopyOption.REPLACE_EXISTING);
        List<String> cmd = new ArrayList<>(List.of(BrokerKind.java(), "-XX:+ExitOnOutOfMemoryError"));
        cmd.addAll(s.gatewayJvm());
        cmd.add("-XX:ActiveProcessorCount=" + s.jvmProcessors());
        cmd.addAll(List.of("-jar", copy.toString(), "--amqp-port", "-1", "--http-port", "0", "--stats", "--attach",
                queueUrl));
        // A quarter of a core starts a JVM slowly.
        GroupedProcess p = GroupedProcess.start(name, group, cmd, workDir, READY, 120);
        return new AttachedGateway(p, "http://127.0.0.1:" + p.ready().group(2) + "/.amqp-servlet/stats");
    }

    /** Waits until the attachment's links are attached to the broker. */
    void awaitAttached(double timeoutSeconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Math.round(timeoutSeconds * 1e9);
        while (true) {
            Map<String, Object> a = attachment();
            if (Boolean.TRUE.equals(a.get("attached"))) {
                return;
            }
            process.checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IOException("a gateway did not attach within " + timeoutSeconds + " s: " + a);
            }
            Thread.sleep(100);
        }
    }

    /** Requests its attachment has served so far. */
    long requestsServed() throws IOException, InterruptedException {
        Object v = attachment().get("requestsServed");
        if (!(v instanceof Number n)) {
            throw new IOException("the gateway's stats lack requestsServed: " + v);
        }
        return n.longValue();
    }

    void checkAlive() throws IOException {
        process.checkAlive();
    }

    private Map<String, Object> attachment() throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(statsUrl))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + statsUrl + " answered " + r.statusCode());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> stats = (Map<String, Object>) ReportJson.parse(r.body());
        List<?> attachments = (List<?>) stats.get("attachments");
        if (attachments == null || attachments.size() != 1) {
            throw new IOException("the gateway should have one attachment: " + stats);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> a = (Map<String, Object>) attachments.get(0);
        return a;
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
