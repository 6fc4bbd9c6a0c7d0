package io.amqpservlet.jmeter;

import org.apache.jmeter.config.Arguments;
import org.apache.jmeter.protocol.java.sampler.JavaSamplerContext;
import org.apache.jmeter.samplers.SampleResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java Request sampler against the real gateway jar, started and stopped by {@link GatewayProcess} as the
 * jmeter-plans build does: samples that succeed, a sample that fails on its status, and a sample whose connection
 * cannot be made.
 */
@Timeout(120)
class AmqpRequestSamplerTest {
    @TempDir
    static Path dir;
    private static int amqpPort;
    private static long gatewayPid;

    @BeforeAll
    static void startGateway() throws Exception {
        Path jar = Path.of(System.getProperty("gateway.jar",
                "../container-integration/target/amqp-servlet-gateway.jar"));
        GatewayProcess.start(jar, dir, List.of("--amqp-port", "0", "--http-port", "-1", "--stop-timeout", "2000"));
        Properties ports = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve("gateway.properties"))) {
            ports.load(in);
        }
        amqpPort = Integer.parseInt(ports.getProperty("amqp.port"));
        assertEquals("-1", ports.getProperty("http.port"));
        gatewayPid = Long.parseLong(Files.readString(dir.resolve("gateway.pid")).trim());
    }

    @AfterAll
    static void stopGateway() throws Exception {
        GatewayProcess.stop(dir);
        assertFalse(ProcessHandle.of(gatewayPid).map(ProcessHandle::isAlive).orElse(false),
                "the gateway still runs after stop");
        assertFalse(Files.exists(dir.resolve("gateway.pid")));
    }

    private static JavaSamplerContext context(int port, String expectedStatus) {
        Arguments a = new Arguments();
        a.addArgument("host", "127.0.0.1");
        a.addArgument("port", Integer.toString(port));
        a.addArgument("path", "/echo?q=1");
        a.addArgument("method", "PUT");
        a.addArgument("body", "sampled body");
        a.addArgument("contentType", "text/plain; charset=utf-8");
        a.addArgument("timeoutMillis", "5000");
        a.addArgument("expectedStatus", expectedStatus);
        a.addArgument("x-jmeter", "thread-1");
        return new JavaSamplerContext(a);
    }

    @Test
    void samplesOnOneConnectionEchoBodyHeadersAndMethod() {
        AmqpRequestSampler sampler = new AmqpRequestSampler();
        JavaSamplerContext context = context(amqpPort, "200");
        sampler.setupTest(context);
        try {
            for (int i = 0; i < 3; i++) {
                SampleResult r = sampler.runTest(context);
                assertTrue(r.isSuccessful(), r.getResponseMessage() + " " + r.getResponseDataAsString());
                assertEquals("200", r.getResponseCode());
                assertEquals("sampled body", new String(r.getResponseData(), StandardCharsets.UTF_8));
                String headers = r.getResponseHeaders();
                assertTrue(headers.contains("x-echo-method: PUT\n"), headers);
                assertTrue(headers.contains("x-echo-path: /echo?q=1\n"), headers);
                assertTrue(headers.contains("x-jmeter: thread-1\n"), headers);
                assertTrue(headers.contains("content-type: text/plain"), headers);
                assertTrue(r.getTime() >= 0);
            }
        } finally {
            sampler.teardownTest(context);
        }
    }

    @Test
    void anUnexpectedStatusFailsTheSample() {
        AmqpRequestSampler sampler = new AmqpRequestSampler();
        JavaSamplerContext context = context(amqpPort, "201");
        sampler.setupTest(context);
        try {
            SampleResult r = sampler.runTest(context);
            assertFalse(r.isSuccessful());
            assertEquals("200", r.getResponseCode());
            assertEquals("unexpected status", r.getResponseMessage());
        } finally {
            sampler.teardownTest(context);
        }
    }

    @Test
    void aRefusedConnectionFailsEachSampleWithoutThrowing() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // free once closed: nothing listens there
        }
        AmqpRequestSampler sampler = new AmqpRequestSampler();
        JavaSamplerContext context = context(closedPort, "200");
        sampler.setupTest(context);
        try {
            for (int i = 0; i < 2; i++) {
                SampleResult r = sampler.runTest(context);
                assertFalse(r.isSuccessful());
                assertEquals("AmqpClientException", r.getResponseCode());
                assertTrue(r.getResponseMessage().contains("failed to connect"), r.getResponseMessage());
            }
        } finally {
            sampler.teardownTest(context);
        }
    }
}
