package io.amqpservlet.gateway;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.ClientTls;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.gateway.metrics.GatewayMetrics;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpServerBudget;
import io.amqpservlet.jetty.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --metrics}: the gateway's Prometheus endpoint, scraped and parsed as Prometheus would (docs/gateway.md,
 * "Metrics"): requests by status class and protocol with a duration histogram from Micrometer's Jetty timer, the
 * AMQP meters of amqp-servlet-micrometer ({@code amqp_servlet_*}, labelled {@code connector_name} as Jetty's
 * connection meters are), Jetty's connection and thread-pool meters, the attachment's state; and
 * {@code --metrics-port}, which serves them on a port of its own and nowhere else.
 */
@Timeout(60)
class GatewayMetricsTest {
    /** One sample line of the text format: name, labels in braces (optional), value. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** The Prometheus names of an AMQP port's meters (docs/jetty.md, "Micrometer meters"). */
    private static final List<String> LISTENER_METERS = List.of("amqp_servlet_requests_total",
            "amqp_servlet_requests_timed_out_total", "amqp_servlet_responses_late_total",
            "amqp_servlet_requests_active", "amqp_servlet_connections", "amqp_servlet_connections_refused_total",
            "amqp_servlet_handshakes_evicted_total", "amqp_servlet_source_addresses",
            "amqp_servlet_budget_used_bytes", "amqp_servlet_budget_free_bytes", "amqp_servlet_budget_max_bytes",
            "amqp_servlet_budget_peak_bytes", "amqp_servlet_budget_partial_frames_bytes",
            "amqp_servlet_budget_stream_windows_bytes", "amqp_servlet_budget_address_share_reached_total");

    /** A sample: the metric's name, its labels and its value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** Parses Prometheus' text format, failing on any line that is neither a comment nor a sample. */
    static List<Sample> parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "not a Prometheus sample: " + line);
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return samples;
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels}; fails when there is none. */
    static double value(List<Sample> samples, String name, Map<String, String> labels) {
        double sum = 0;
        boolean found = false;
        for (Sample s : samples) {
            if (s.name.equals(name) && s.labels.entrySet().containsAll(labels.entrySet())) {
                sum += s.value;
                found = true;
            }
        }
        assertTrue(found, "no " + name + labels + " among " + names(samples));
        return sum;
    }

    private static List<String> names(List<Sample> samples) {
        List<String> names = new ArrayList<>();
        for (Sample s : samples) {
            if (!names.contains(s.name)) {
                names.add(s.name);
            }
        }
        return names;
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels}; 0 when there is none. */
    static double sum(List<Sample> samples, String name, Map<String, String> labels) {
        double sum = 0;
        for (Sample s : samples) {
            if (s.name.equals(name) && s.labels.entrySet().containsAll(labels.entrySet())) {
                sum += s.value;
            }
        }
        return sum;
    }

    /** Scrapes until {@code done} holds (up to 10 s) and returns that scrape. */
    private static List<Sample> awaitScrape(int port, Predicate<List<Sample>> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<Sample> samples = scrape(port);
        while (!done.test(samples)) {
            assertTrue(System.nanoTime() < deadline, "the scrape never showed what was expected: " + samples);
            Thread.sleep(20);
            samples = scrape(port);
        }
        return samples;
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<Sample> scrape(int port) throws Exception {
        HttpResponse<String> r = get(port, GatewayMetrics.PATH);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                r.headers().toString());
        return parse(r.body());
    }

    /**
     * Micrometer's connection meters count each client connection once: not once more for its TLS layer, nor for
     * the detector that reads its first bytes on a shared port. One AMQP client on each of a port with a detector
     * (HTTP), a TLS port (AMQPS) and a port with both (HTTPS).
     */
    @Test
    void eachClientConnectionCountsOnceInJettysConnectionMeters(@TempDir Path dir) throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        Gateway g = GatewayConfigurationsTest.start("--amqp-port", "-1", "--http-port", "0", "--amqp-on-http-port",
                "--amqps-port", "0", "--https-port", "0", "--amqp-on-https-port",
                "--tls-keystore", certificates.serverKeyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD, "--metrics-port", "0");
        List<String> ports = List.of("http", "amqps", "https");
        try {
            ClientTls tls = ClientTls.create(dir.resolve("server.crt"), false, null, null);
            long deadline = AmqpRequestClient.now() + 10_000;
            try (AmqpRequestClient http = AmqpRequestClient.connect("127.0.0.1", g.httpPort(), "/echo",
                    new EngineConfig(), deadline);
                 AmqpRequestClient amqps = AmqpRequestClient.connect("127.0.0.1", g.amqpsPort(), "/echo",
                    new EngineConfig(), deadline, tls);
                 AmqpRequestClient https = AmqpRequestClient.connect("127.0.0.1", g.httpsPort(), "/echo",
                    new EngineConfig(), deadline, tls)) {
                for (AmqpRequestClient client : List.of(http, amqps, https)) {
                    assertEquals(200, client.exchange("GET", "/echo", Map.of(), null, null, deadline).status());
                }
                List<Sample> open = scrape(g.metricsPort());
                for (String port : ports) {
                    Map<String, String> on = Map.of("connector_name", port);
                    assertEquals(1, value(open, "jetty_connections_current_connections", on), port);
                    assertEquals(1, value(open, "jetty_connections_max_connections", on), port);
                }
            }
            // Closed: one connection's duration each (its timer is stopped just after it leaves the current ones).
            List<Sample> closed = awaitScrape(g.metricsPort(), s -> ports.stream().allMatch(port ->
                    sum(s, "jetty_connections_current_connections", Map.of("connector_name", port)) == 0
                    && sum(s, "jetty_connections_request_seconds_count", Map.of("connector_name", port)) >= 1));
            for (String port : ports) {
                assertEquals(1, sum(closed, "jetty_connections_request_seconds_count", Map.of("connector_name", port)),
                        port);
            }
        } finally {
            g.stop();
        }
    }

    @Test
    void aScrapeShowsRequestsByStatusClassAndProtocolTheirDurationsAndTheAmqpCounters() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--metrics"}));
        try {
            g.start();
            String amqp = "amqp://127.0.0.1:" + g.amqpPort();
            for (int i = 0; i < 3; i++) {
                assertEquals(0, Cli.request(amqp + "/echo", "-d", "x").exit);
            }
            assertEquals(0, Cli.request(amqp + "/status/404").exit);
            assertEquals(0, Cli.request(amqp + "/status/503").exit);
            assertEquals(200, get(g.httpPort(), "/echo").statusCode());

            String requests = "jetty_server_requests_seconds_count";
            // A request is timed when Jetty ends it, and a connection's messages counted when it closes: both can
            // be after the client has its answer.
            List<Sample> samples = awaitScrape(g.httpPort(), s -> sum(s, requests, Map.of()) >= 6
                    && sum(s, "jetty_connections_messages_in_messages_total", Map.of("connector_name", "amqp")) >= 5);
            assertEquals(3, value(samples, requests, Map.of("protocol", "amqp", "method", "POST", "status", "200",
                    "outcome", "SUCCESS")));
            assertEquals(1, value(samples, requests, Map.of("protocol", "amqp", "outcome", "CLIENT_ERROR")));
            assertEquals(1, value(samples, requests, Map.of("protocol", "amqp", "outcome", "SERVER_ERROR")));
            assertEquals(1, value(samples, requests, Map.of("protocol", "http", "method", "GET", "outcome",
                    "SUCCESS")));
            // The duration histogram: cumulative buckets, the last (+Inf) holding every request.
            assertEquals(3, value(samples, "jetty_server_requests_seconds_bucket", Map.of("protocol", "amqp",
                    "status", "200", "le", "+Inf")));
            assertTrue(samples.stream().filter(s -> s.name.equals("jetty_server_requests_seconds_bucket")
                    && "amqp".equals(s.labels.get("protocol")) && "200".equals(s.labels.get("status"))).count() > 10,
                    "a histogram has many buckets");
            assertTrue(value(samples, "jetty_server_requests_seconds_sum", Map.of("protocol", "amqp")) > 0);

            // The AMQP meters, labelled with the port's connector name as Jetty's connection meters are.
            Map<String, String> port = Map.of("connector_name", "amqp");
            for (String name : LISTENER_METERS) {
                value(samples, name, port);
            }
            assertEquals(5, value(samples, "amqp_servlet_requests_total", Map.of("connector_name", "amqp",
                    "outcome", "served")));
            assertEquals(5, value(samples, "amqp_servlet_requests_total", port), "every outcome but served is 0");
            assertEquals(AmqpServerBudget.DEFAULT_MAX_BUFFERED_BYTES,
                    value(samples, "amqp_servlet_budget_max_bytes", port));
            assertEquals(0, value(samples, "amqp_servlet_connections_refused_total", port));
            assertEquals(5, samples.stream().filter(s -> s.name.equals("amqp_servlet_connections_refused_total"))
                    .count(), "one sample per limit");
            for (Sample s : samples) {
                assertFalse(s.name.startsWith("amqp_") && !s.name.startsWith("amqp_servlet_"),
                        "one prefix for the AMQP meters: " + s);
            }
            // Micrometer's Jetty binders: AMQP connections are Jetty connections, and the thread pool.
            assertTrue(value(samples, "jetty_connections_messages_in_messages_total",
                    Map.of("connector_name", "amqp")) >= 5);
            assertTrue(value(samples, "jetty_threads_config_max", Map.of()) > 0);
            assertTrue(value(samples, "jvm_memory_used_bytes", Map.of()) > 0);
        } finally {
            g.stop();
        }
    }

    @Test
    void requestsInFlightShowWhileTheyAreServed() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--metrics"}));
        try {
            g.start();
            CompletableFuture<Cli> slow = CompletableFuture.supplyAsync(() ->
                    Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/slow?ms=3000"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            double active = 0;
            while (active < 1) {
                assertTrue(System.nanoTime() < deadline, "the slow request never showed in flight");
                active = value(scrape(g.httpPort()), "amqp_servlet_requests_active", Map.of("connector_name", "amqp"));
                Thread.sleep(20);
            }
            assertEquals(1, active);
            assertEquals(0, slow.get(20, TimeUnit.SECONDS).exit);
            awaitScrape(g.httpPort(), s -> value(s, "amqp_servlet_requests_active", Map.of("connector_name", "amqp"))
                    == 0);
        } finally {
            g.stop();
        }
    }

    @Test
    void aPortOfItsOwnServesTheMetricsAndNothingElse() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--metrics-port", "0"}));
        try {
            g.start();
            assertTrue(g.metricsPort() > 0);
            List<Sample> samples = scrape(g.metricsPort());
            value(samples, "amqp_servlet_connections", Map.of("connector_name", "amqp", "state", "open"));
            assertEquals(404, get(g.metricsPort(), "/echo").statusCode(), "no application on the metrics port");
            assertEquals(404, get(g.httpPort(), GatewayMetrics.PATH).statusCode(), "the HTTP port's /metrics is the "
                    + "application's");
        } finally {
            g.stop();
        }
    }

    @Test
    void anAttachmentShowsItsStateAndItsFailedConnectionAttempts() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // nothing listens there once the socket is closed
        }
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0",
            "--metrics", "--attach", "amqp://127.0.0.1:" + closedPort + "/orders"}));
        try {
            g.start();
            Map<String, String> attachment = Map.of("connector_name", "attach:orders");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            List<Sample> samples = scrape(g.httpPort());
            while (value(samples, "amqp_servlet_attach_consecutive_failures", attachment) < 2) {
                assertTrue(System.nanoTime() < deadline, "the attachment never tried again");
                Thread.sleep(50);
                samples = scrape(g.httpPort());
            }
            // A scrape reads the state gauges one after another while the attachment goes from BACKING_OFF to
            // CONNECTING and back: a move between two reads would show no state or two. Until it is attached, each
            // failure counts one and moves it to BACKING_OFF, and with the count unchanged it can only go on to
            // CONNECTING, never back: the same count and state before and after a scrape mean it stayed in that
            // state throughout.
            AmqpBrokerAttachment orders = g.attachments().get(0);
            int failures;
            String state;
            do {
                assertTrue(System.nanoTime() < deadline, "the state never held still through a scrape");
                failures = orders.getFailures();
                state = orders.getState();
                samples = scrape(g.httpPort());
            } while (!orders.getState().equals(state) || orders.getFailures() != failures);
            // Read after the scrape: no connection made, so it never attached (which starts the failures again at 0).
            assertEquals(0, orders.getConnectCount(), "no connection was made");
            assertEquals(0, value(samples, "amqp_servlet_attach_connects_total", attachment),
                    "no connection was made");
            assertEquals(0, value(samples, "amqp_servlet_attach_state", Map.of("connector_name", "attach:orders",
                    "state", "ATTACHED")));
            assertEquals(1, value(samples, "amqp_servlet_attach_state", attachment), "exactly one state at a time");
            assertEquals(1, value(samples, "amqp_servlet_attach_state", Map.of("connector_name", "attach:orders",
                    "state", state)), "the state it was in throughout the scrape");
            assertTrue(value(samples, "amqp_servlet_attach_reconnect_delay_seconds", attachment) > 0,
                    "backing off between attempts");
            assertEquals(0, value(samples, "amqp_servlet_requests_total", Map.of("connector_name", "attach:orders",
                    "outcome", "served")));
            value(samples, "amqp_servlet_requests_active", attachment);
            // A listener's connection and budget meters are not an attachment's (docs/jetty.md).
            assertEquals(0, sum(samples, "amqp_servlet_budget_max_bytes", Map.of()));
            assertFalse(samples.stream().anyMatch(s -> "amqp".equals(s.labels.get("connector_name"))),
                    "no AMQP port");
        } finally {
            g.stop();
        }
    }
}
