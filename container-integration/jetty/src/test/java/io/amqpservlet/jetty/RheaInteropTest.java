package io.amqpservlet.jetty;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rhea 3.0.5 (Node.js, pinned by {@code src/test/node/package-lock.json}), an AMQP 1.0 client from another project,
 * against the connector: a dynamic reply receiver, an anonymous sender routed by {@code to}, run as
 * {@code src/test/node/rhea-client.js PORT SCENARIO}, which prints each response as a JSON line. rhea opens
 * without SASL unless given a user, which the default {@link AmqpConnectionFactory} accepts as anonymous; one test
 * uses SASL ANONYMOUS instead.
 *
 * <p>Missing node or rhea fails the class with a pointer to {@code .ci/install-peers}; it never skips.
 */
@Timeout(120)
class RheaInteropTest {
    private static final long SCRIPT_SECONDS = 90;
    private static final int FIVE_MIB = 5 * 1024 * 1024;

    private InteropServer server;

    @BeforeAll
    static void rheaIsInstalled() throws Exception {
        PeerClientProcess.requireRhea();
    }

    @BeforeEach
    void start() throws Exception {
        server = InteropServer.start(100);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private List<Map<String, Object>> run(String... scenarioAndOptions) throws Exception {
        String[] command = new String[3 + scenarioAndOptions.length];
        command[0] = "node";
        command[1] = "rhea-client.js";
        command[2] = Integer.toString(server.port());
        System.arraycopy(scenarioAndOptions, 0, command, 3, scenarioAndOptions.length);
        return PeerClientProcess.run(PeerClientProcess.NODE_PROJECT, SCRIPT_SECONDS, command);
    }

    private Map<String, Object> runOne(String... scenarioAndOptions) throws Exception {
        List<Map<String, Object>> lines = run(scenarioAndOptions);
        assertEquals(1, lines.size(), "one response expected: " + lines);
        Map<String, Object> response = lines.get(0);
        assertEquals(response.get("sent_correlation_id"), response.get("correlation_id"));
        assertEquals(response.get("reply_to"), response.get("to"), "the response goes to the request's reply-to");
        return response;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(Map<String, Object> response) {
        return (Map<String, Object>) response.get("properties");
    }

    @Test
    void getWithHeadersRoundTrips() throws Exception {
        Map<String, Object> response = runOne("echo-get");
        assertEquals("rhea-get-1", response.get("correlation_id"), "the message-id becomes the correlation-id");
        assertEquals("200", response.get("status"));
        Map<String, Object> props = properties(response);
        assertEquals("GET", props.get("x-echo-method"));
        assertEquals("/echo", props.get("x-echo-path"));
        assertEquals("rhea-get-1", props.get("x-trace"));
        assertEquals("green", props.get("x-tenant"));
        assertEquals("1.1", props.get("http:response"));
        assertEquals(0L, response.get("body_length"));
        assertEquals(1, server.echo.calls.get());
    }

    @Test
    void saslAnonymousConnectionWorksToo() throws Exception {
        Map<String, Object> response = runOne("echo-get", "sasl-anonymous");
        assertEquals("200", response.get("status"));
        assertEquals("rhea-get-1", properties(response).get("x-trace"));
    }

    @Test
    void postWithTextBodyAndHeadersRoundTrips() throws Exception {
        Map<String, Object> response = runOne("echo-post");
        assertEquals("order-77", response.get("correlation_id"), "the request's correlation-id wins");
        assertEquals("200", response.get("status"));
        Map<String, Object> props = properties(response);
        assertEquals("POST", props.get("x-echo-method"));
        assertEquals("/echo", props.get("x-echo-path"));
        assertEquals("lang=js", props.get("x-echo-query"));
        assertEquals("rhea-post-1", props.get("x-trace"));
        // An amqp-value string body arrives as UTF-8 text and comes back as one data section.
        assertEquals("grüße, 世界", response.get("body_text"));
        assertEquals("data", response.get("body_type"));
        assertTrue(((String) response.get("content_type")).startsWith("text/plain"), (String) response.get("content_type"));
    }

    @Test
    void amqpValueMapReachesTheServletAsJsonAndComesBackAsAMap() throws Exception {
        Map<String, Object> response = runOne("map-echo");
        assertEquals("rhea-map-1", response.get("correlation_id"));
        assertEquals("200", response.get("status"));
        assertEquals("POST", properties(response).get("x-echo-method"));
        // The echo servlet answered with the JSON it read (application/json): back as an amqp-value map.
        assertEquals("map", response.get("body_type"));
        @SuppressWarnings("unchecked")
        Map<String, Object> body = (Map<String, Object>) response.get("body_value");
        assertEquals(Set.of("name", "durable", "count", "ratio", "tags", "nested"), body.keySet());
        assertEquals("orders", body.get("name"));
        assertEquals(true, body.get("durable"));
        assertEquals(3L, body.get("count"));
        assertEquals(0.5, body.get("ratio"));
        assertArrayEquals(new Object[] {"a", "b"}, (Object[]) body.get("tags"));
        assertEquals(java.util.Collections.singletonMap("none", null), body.get("nested"));
        assertEquals(null, response.get("content_type"), "an amqp-value answer has no content-type");
    }

    @Test
    void amqpValueMapToATypedServletGetsATypedMapBack() throws Exception {
        Map<String, Object> response = runOne("map-typed");
        assertEquals("201", response.get("status"));
        Map<String, Object> props = properties(response);
        assertEquals("application/json", props.get("x-request-content-type"));
        assertEquals("{\"durable\":true,\"arguments\":{\"x-queue-type\":\"quorum\"}}", props.get("x-request-json"));
        assertEquals("java.util.LinkedHashMap", props.get("x-request-value-class"));
        assertEquals("map", response.get("body_type"));
        @SuppressWarnings("unchecked")
        Map<String, Object> queue = (Map<String, Object>) response.get("body_value");
        assertEquals("orders", queue.get("name"));
        assertEquals(true, queue.get("durable"));
        assertEquals(Map.of("x-queue-type", "quorum"), queue.get("arguments"));
        assertEquals(0L, queue.get("message_count"));
        assertEquals(3L, queue.get("consumer_count"));
        assertEquals("rabbit@localhost", queue.get("leader"));
        assertArrayEquals(new Object[] {"rabbit@localhost", "rabbit@other"}, (Object[]) queue.get("replicas"));
    }

    @Test
    void unknownPathIs404() throws Exception {
        assertEquals("404", runOne("missing").get("status"));
    }

    @Test
    void throwingServletIs500() throws Exception {
        assertEquals("500", runOne("throw").get("status"));
    }

    @Test
    void fiveMebibyteRequestIsEchoedWhole() throws Exception {
        Map<String, Object> response = runOne("big-post");
        assertEquals("200", response.get("status"));
        assertEquals((long) FIVE_MIB, response.get("sent_length"));
        assertEquals((long) FIVE_MIB, response.get("body_length"));
        assertEquals(response.get("sent_sha256"), response.get("body_sha256"));
        assertEquals("data", response.get("body_type"), "one data section");
        assertEquals("application/octet-stream", response.get("content_type"));
    }

    @Test
    void fiveMebibyteResponseArrivesWhole() throws Exception {
        Map<String, Object> response = runOne("big-get");
        assertEquals("200", response.get("status"));
        assertEquals((long) FIVE_MIB, response.get("body_length"));
        assertEquals("data", response.get("body_type"), "one data section however often the servlet flushed");
        assertEquals(PeerClientProcess.sha256(InteropServer.patternedBytes(FIVE_MIB)), response.get("body_sha256"));
    }

    @Test
    void hundredRequestsInFlightOnOneConnection() throws Exception {
        List<Map<String, Object>> lines = run("in-flight");
        assertEquals(101, lines.size(), "100 responses and the settlement count expected: " + lines);
        Set<String> answered = new HashSet<>();
        for (Map<String, Object> response : lines.subList(0, 100)) {
            assertEquals("200", response.get("status"), "the barrier saw fewer than 100 requests at once");
            String request = (String) properties(response).get("x-request");
            assertNotNull(request);
            assertEquals("m-" + request, response.get("correlation_id"), "the response answers its own request");
            assertEquals(response.get("reply_to"), response.get("to"));
            assertTrue(answered.add(request), "request " + request + " answered twice");
        }
        assertEquals(100, answered.size());
        assertEquals(100L, lines.get(100).get("settled"), "every request settled after its response");
    }
}
