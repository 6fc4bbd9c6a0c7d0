package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.ReportJson;
import io.amqpservlet.bench.load.MeasuredPhase;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The floor row: asks the gateway ({@code --bench-floor}) to inject the same POST into its own server through Jetty's
 * {@code HttpChannel} with no wire ({@code GET /.amqp-servlet/floor}), closed loop or paced to the rate, for the
 * run's seconds, and reads what it measured (responses, errors, latency from the due time). The suite samples the
 * server's CPU and allocation around the call as for every other row; the call itself (one HTTP request and the
 * floor's two threads) is a few kilobytes against the run's hundreds of thousands of requests.
 */
final class FloorClient implements LoadClient {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String floorUrl;
    private final int threads;
    private final int bodyBytes;

    /** @param floorUrl the gateway's floor endpoint, {@code http://host:port/.amqp-servlet/floor} */
    FloorClient(String floorUrl, int threads, int bodyBytes) {
        this.floorUrl = floorUrl;
        this.threads = threads;
        this.bodyBytes = bodyBytes;
    }

    @Override
    public ClientFigures run(double ratePerSecond, double seconds, MeasuredPhase phase) throws Exception {
        String url = String.format(Locale.ROOT, "%s?seconds=%.3f&rate=%.3f&threads=%d&body=%d", floorUrl, seconds,
                ratePerSecond, threads, bodyBytes);
        phase.begin();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(Math.round(seconds) + 60)).build(), HttpResponse.BodyHandlers.ofString());
        phase.end();
        if (r.statusCode() != 200) {
            throw new IOException("GET " + url + " answered " + r.statusCode() + ": " + r.body());
        }
        return parse(r.body());
    }

    /** The floor endpoint's JSON as a client's figures. */
    static ClientFigures parse(String json) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) ReportJson.parse(json);
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) m.get("percentilesMicros");
        @SuppressWarnings("unchecked")
        Map<String, Object> e = (Map<String, Object>) m.get("errors");
        if (p == null || e == null || !(m.get("responses") instanceof Number) || !(m.get("seconds") instanceof Number)) {
            throw new IllegalArgumentException("not the floor's answer: " + json);
        }
        Map<Double, Double> curve = new LinkedHashMap<>();
        for (Map.Entry<String, Object> point : p.entrySet()) {
            curve.put(Double.parseDouble(point.getKey()), ((Number) point.getValue()).doubleValue());
        }
        Map<String, Double> latency = new LinkedHashMap<>();
        for (String k : ClientFigures.KEYS) {
            latency.put(k, k.equals("max") ? ((Number) m.get("maxMicros")).doubleValue()
                    : curve.getOrDefault(Double.parseDouble(k.substring(1)), Double.NaN));
        }
        Map<String, Long> errors = new LinkedHashMap<>();
        for (Map.Entry<String, Object> kind : e.entrySet()) {
            errors.put(kind.getKey(), ((Number) kind.getValue()).longValue());
        }
        long responses = ((Number) m.get("responses")).longValue();
        long failed = 0;
        for (long n : errors.values()) {
            failed += n;
        }
        // The floor counts every request it injected; one that failed is an error, not a response served.
        return new ClientFigures(responses - failed, ((Number) m.get("seconds")).doubleValue(), latency, errors,
                curve);
    }

    @Override
    public String describe() {
        return "the floor: the gateway injects the same POST (" + bodyBytes + " B) into its own server through "
                + "Jetty's HttpChannel with no wire, " + threads + " threads x 1 in flight, latency from the due time";
    }
}
