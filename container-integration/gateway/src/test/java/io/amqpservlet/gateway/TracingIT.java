package io.amqpservlet.gateway;

import org.eclipse.jetty.util.ajax.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The gateway jar run with the OpenTelemetry Java agent, as docs/gateway.md ("Tracing") shows: an AMQP request whose
 * application-properties carry a W3C {@code traceparent} and {@code tracestate} gives a server span of that trace,
 * child of the client's span, as an HTTP request with those headers would. The agent's {@code logging-otlp} exporter
 * writes each batch of spans as one line of OTLP JSON to standard error, which the test reads back.
 */
@Timeout(180)
class TracingIT {
    private static final Path JAR = Path.of("target", "amqp-servlet-gateway.jar");
    private static final Path AGENT = Path.of("target", "otel", "opentelemetry-javaagent.jar");
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_SPAN_ID = "00f067aa0ba902b7";
    private static final Pattern LISTENING = Pattern.compile("amqp-servlet listening amqp=(\\d+)");
    private static final String EXPORTER = "OtlpJsonLoggingSpanExporter - ";

    @TempDir
    Path dir;

    @Test
    void anAmqpRequestWithATraceparentIsAServerSpanOfThatTrace() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        assertTrue(Files.isRegularFile(AGENT), "no " + AGENT.toAbsolutePath() + " (copied in pre-integration-test)");
        Path err = dir.resolve("gateway.err");
        Process gateway = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + AGENT, "-Dotel.service.name=amqp-servlet", "-Dotel.traces.exporter=logging-otlp",
                "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none", "-Dotel.bsp.schedule.delay=100",
                "-jar", JAR.toString(), "--amqp-port", "0", "--http-port", "-1")
                .redirectError(err.toFile()).start();
        try {
            int port = -1;
            BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(),
                    StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null; ) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                    break;
                }
            }
            assertTrue(port > 0, "no ports printed; stderr: " + Files.readString(err));

            Cli r = Cli.request("-H", "traceparent: 00-" + TRACE_ID + "-" + PARENT_SPAN_ID + "-01",
                    "-H", "tracestate: rojo=00f067aa0ba902b7", "amqp://127.0.0.1:" + port + "/echo/traced");
            assertEquals(0, r.exit, r.toString());

            Map<String, Object> span = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (span == null) {
                assertTrue(System.nanoTime() < deadline, "no span of trace " + TRACE_ID + " exported; stderr: "
                        + Files.readString(err));
                Thread.sleep(100);
                span = spanOf(TRACE_ID, Files.readAllLines(err));
            }
            assertEquals(PARENT_SPAN_ID, span.get("parentSpanId"), span.toString());
            assertEquals(2L, ((Number) span.get("kind")).longValue(), "SPAN_KIND_SERVER: " + span);
            assertEquals("rojo=00f067aa0ba902b7", span.get("traceState"), span.toString());
            assertTrue(String.valueOf(span.get("name")).startsWith("GET "), span.toString());
            assertEquals("/echo/traced", attribute(span, "url.path"), span.toString());
        } finally {
            gateway.destroy();
            gateway.waitFor(30, TimeUnit.SECONDS);
            gateway.destroyForcibly();
        }
    }

    /** The first exported span of {@code traceId} in the exporter's lines, or null. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> spanOf(String traceId, List<String> lines) {
        for (String line : lines) {
            int at = line.indexOf(EXPORTER);
            if (at < 0 || !line.contains(traceId)) {
                continue;
            }
            Map<String, Object> batch = (Map<String, Object>) new JSON().fromJSON(line.substring(at + EXPORTER.length()));
            for (Object scope : list(batch.get("scopeSpans"))) {
                for (Object span : list(((Map<String, Object>) scope).get("spans"))) {
                    if (traceId.equals(((Map<String, Object>) span).get("traceId"))) {
                        return (Map<String, Object>) span;
                    }
                }
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static String attribute(Map<String, Object> span, String key) {
        for (Object a : list(span.get("attributes"))) {
            Map<String, Object> attribute = (Map<String, Object>) a;
            if (key.equals(attribute.get("key"))) {
                Object value = ((Map<String, Object>) attribute.get("value")).get("stringValue");
                assertNotNull(value, attribute.toString());
                return value.toString();
            }
        }
        return null;
    }

    /** Jetty's JSON gives arrays as Object[]. */
    private static List<Object> list(Object array) {
        List<Object> l = new ArrayList<>();
        if (array instanceof Object[] a) {
            l.addAll(List.of(a));
        } else if (array instanceof List<?> already) {
            l.addAll(already);
        }
        return l;
    }
}
