package io.amqpservlet.jetty;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Proton-C 0.37 through its Python binding (Debian's python3-qpid-proton), an AMQP 1.0 client from another
 * project, against the connector: {@code proton.utils.BlockingConnection} with {@code SyncRequestResponse} (an
 * anonymous sender, a dynamic reply receiver, a string correlation-id the client waits for), run as
 * {@code src/test/python/proton_client.py PORT SCENARIO}, which prints each response as a JSON line.
 *
 * <p>Missing Proton-C fails the class with a pointer to {@code .ci/install-peers}; it never skips.
 */
@Timeout(120)
class ProtonCPythonInteropTest {
    private static final long SCRIPT_SECONDS = 90;
    private static final int FIVE_MIB = 5 * 1024 * 1024;

    private InteropServer server;

    @BeforeAll
    static void protonIsInstalled() throws Exception {
        PeerClientProcess.requireProtonPython();
    }

    @BeforeEach
    void start() throws Exception {
        server = InteropServer.start(100);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private List<Map<String, Object>> run(String scenario) throws Exception {
        return PeerClientProcess.run(Path.of("src", "test", "python"), SCRIPT_SECONDS,
                PeerClientProcess.DEBIAN_PYTHON, "proton_client.py", Integer.toString(server.port()), scenario);
    }

    private Map<String, Object> runOne(String scenario) throws Exception {
        List<Map<String, Object>> lines = run(scenario);
        assertEquals(1, lines.size(), "one response expected: " + lines);
        Map<String, Object> response = lines.get(0);
        // SyncRequestResponse waits for a response whose correlation-id is the one it set; check it all the same.
        assertEquals(response.get("sent_correlation_id"), response.get("correlation_id"));
        assertEquals(response.get("reply_to"), response.get("to"), "the response goes to the request's reply-to");
        return response;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(Map<String, Object> response) {
        return (Map<String, Object>) response.get("properties");
    }

    @Test
    void aLinkPairAsRabbitMqsPythonClientAttachesItIsAnsweredOnItsReceiver() throws Exception {
        List<Map<String, Object>> lines = run("link-pair");
        assertEquals(1, lines.size(), lines.toString());
        Map<String, Object> response = lines.get(0);
        assertEquals(response.get("sender_name"), response.get("receiver_name"), "Proton names both halves alike");
        assertTrue(String.valueOf(response.get("sender_name")).endsWith("-/management"), response.toString());
        assertEquals(Boolean.TRUE, response.get("sender_paired"), "the server echoes paired=true");
        assertEquals(Boolean.TRUE, response.get("receiver_paired"));
        assertEquals(1L, response.get("receiver_settle_mode"), "the receiving half is settled (snd-settle-mode 1)");
        assertEquals("200", response.get("status"));
        assertEquals("py-pair-1", response.get("correlation_id"));
        assertEquals("/echo/queues/q1", properties(response).get("x-echo-path"));
    }

    @Test
    void getWithHeadersRoundTrips() throws Exception {
        Map<String, Object> response = runOne("echo-get");
        assertEquals("200", response.get("status"));
        Map<String, Object> props = properties(response);
        assertEquals("GET", props.get("x-echo-method"));
        assertEquals("/echo", props.get("x-echo-path"));
        assertEquals("py-get-1", props.get("x-trace"));
        assertEquals("blue", props.get("x-tenant"));
        assertEquals("1.1", props.get("http:response"));
        assertEquals(0L, response.get("body_length"));
        assertEquals(1, server.echo.calls.get());
    }

    @Test
    void postWithTextBodyAndHeadersRoundTrips() throws Exception {
        Map<String, Object> response = runOne("echo-post");
        assertEquals("200", response.get("status"));
        Map<String, Object> props = properties(response);
        assertEquals("POST", props.get("x-echo-method"));
        assertEquals("/echo", props.get("x-echo-path"));
        assertEquals("lang=py", props.get("x-echo-query"));
        assertEquals("py-post-1", props.get("x-trace"));
        // An amqp-value string body arrives as UTF-8 text; the echo is one data section, which Python reads as bytes.
        assertEquals("grüße, 世界", response.get("body_text"));
        assertEquals("bytes", response.get("body_type"));
        assertEquals(true, response.get("inferred"), "the body came as a data section");
        assertTrue(((String) response.get("content_type")).startsWith("text/plain"), (String) response.get("content_type"));
    }

    @Test
    void amqpValueBinaryBodyIsEchoedAsData() throws Exception {
        Map<String, Object> response = runOne("echo-binary");
        assertEquals("200", response.get("status"));
        assertEquals(256L, response.get("body_length"));
        assertEquals(response.get("sent_sha256"), response.get("body_sha256"));
        assertEquals(true, response.get("inferred"), "the echo is a data section");
    }

    @Test
    void amqpValueMapReachesTheServletAsJsonAndComesBackAsAMap() throws Exception {
        Map<String, Object> response = runOne("map-echo");
        assertEquals("200", response.get("status"));
        assertEquals("POST", properties(response).get("x-echo-method"));
        // The echo servlet answered with the JSON it read (application/json): back as an amqp-value map.
        assertEquals("dict", response.get("body_type"));
        assertEquals(false, response.get("inferred"), "an amqp-value, not data");
        @SuppressWarnings("unchecked")
        Map<String, Object> body = (Map<String, Object>) response.get("body_value");
        assertEquals(Set.of("name", "durable", "count", "ratio", "tags", "nested"), body.keySet());
        assertEquals("orders", body.get("name"));
        assertEquals(true, body.get("durable"));
        assertEquals(3L, body.get("count"));
        assertEquals(0.5, body.get("ratio"));
        assertArrayEquals(new Object[] {"a", "b"}, (Object[]) body.get("tags"));
        assertEquals(java.util.Collections.singletonMap("none", null), body.get("nested"));
        // Python sends int as an AMQP long, which the plain JSON form reads back as a long: the types survive.
        assertEquals(Map.of("name", "str", "durable", "bool", "count", "int", "ratio", "float", "tags", "list",
                "nested", "dict"), response.get("body_types"));
    }

    @Test
    void amqpValueMapToATypedServletGetsExactAmqpTypesBack() throws Exception {
        Map<String, Object> response = runOne("map-typed");
        assertEquals("201", response.get("status"));
        Map<String, Object> props = properties(response);
        assertEquals("application/json", props.get("x-request-content-type"));
        assertEquals("{\"durable\":true,\"arguments\":{\"x-queue-type\":\"quorum\"}}", props.get("x-request-json"));
        @SuppressWarnings("unchecked")
        Map<String, Object> queue = (Map<String, Object>) response.get("body_value");
        assertEquals("orders", queue.get("name"));
        assertEquals(Map.of("x-queue-type", "quorum"), queue.get("arguments"));
        assertEquals(0L, queue.get("message_count"));
        assertEquals(3L, queue.get("consumer_count"));
        @SuppressWarnings("unchecked")
        Map<String, Object> replicas = (Map<String, Object>) queue.get("replicas");
        assertEquals("string", replicas.get("array_of"), "an AMQP array of strings");
        assertArrayEquals(new Object[] {"rabbit@localhost", "rabbit@other"}, (Object[]) replicas.get("elements"));
        Map<String, Object> expectedTypes = new java.util.HashMap<>();
        expectedTypes.put("name", "str");
        expectedTypes.put("durable", "bool");
        expectedTypes.put("auto_delete", "bool");
        expectedTypes.put("exclusive", "bool");
        expectedTypes.put("type", "str");
        expectedTypes.put("arguments", "dict");
        expectedTypes.put("message_count", "ulong");
        expectedTypes.put("consumer_count", "uint");
        expectedTypes.put("leader", "str");
        expectedTypes.put("replicas", "Array");
        assertEquals(expectedTypes, response.get("body_types"));
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
        assertEquals(true, response.get("inferred"), "the body came as a data section");
        assertEquals("application/octet-stream", response.get("content_type"));
    }

    @Test
    void fiveMebibyteResponseArrivesWhole() throws Exception {
        Map<String, Object> response = runOne("big-get");
        assertEquals("200", response.get("status"));
        assertEquals((long) FIVE_MIB, response.get("body_length"));
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
