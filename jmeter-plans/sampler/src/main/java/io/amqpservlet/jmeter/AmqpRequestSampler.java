package io.amqpservlet.jmeter;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;

import org.apache.jmeter.config.Arguments;
import org.apache.jmeter.protocol.java.sampler.AbstractJavaSamplerClient;
import org.apache.jmeter.protocol.java.sampler.JavaSamplerContext;
import org.apache.jmeter.samplers.SampleResult;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A JMeter Java Request sampler that sends HTTP-over-AMQP requests with our initiator engine
 * ({@link AmqpRequestClient}): one AMQP connection per JMeter thread, opened in {@link #setupTest} and closed in
 * {@link #teardownTest}, one request message per sample on it. It drives more load than JMeter's JMS sampler
 * because it skips JNDI, the JMS layers and the per-sample temporary queue handling.
 *
 * <p>Parameters: {@code host}, {@code port}, {@code path} (the request-target, sent as {@code to}), {@code method}
 * ({@code subject}), {@code body} (one data section; none when empty), {@code contentType}, {@code timeoutMillis}
 * (per connect and per request), {@code expectedStatus} (the sample fails on any other status). Every other
 * parameter whose name starts with {@code x-} is sent as a header (an application-property). The sample's response
 * code is the status, its data the body and its headers the response's application-properties, one per line.
 */
public final class AmqpRequestSampler extends AbstractJavaSamplerClient {
    private static final String HEADER_PREFIX = "x-";

    private String host;
    private int port;
    private String path;
    private String method;
    private byte[] body;
    private String contentType;
    private long timeoutMillis;
    private int expectedStatus;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private AmqpRequestClient client;
    /** Why the connection could not be opened, reported by every sample until a reconnect succeeds. */
    private IOException connectFailure;

    /** The parameters and their defaults as the Java Request sampler's GUI shows them. */
    @Override
    public Arguments getDefaultParameters() {
        Arguments a = new Arguments();
        a.addArgument("host", "127.0.0.1");
        a.addArgument("port", "5672");
        a.addArgument("path", "/echo");
        a.addArgument("method", "POST");
        a.addArgument("body", "hello");
        a.addArgument("contentType", "text/plain; charset=utf-8");
        a.addArgument("timeoutMillis", "10000");
        a.addArgument("expectedStatus", "200");
        a.addArgument("x-test", "1");
        return a;
    }

    /** Reads the parameters and opens this thread's connection. */
    @Override
    public void setupTest(JavaSamplerContext context) {
        host = context.getParameter("host", "127.0.0.1");
        port = context.getIntParameter("port", 5672);
        path = context.getParameter("path", "/echo");
        method = context.getParameter("method", "POST");
        String text = context.getParameter("body", "");
        body = text.isEmpty() ? null : text.getBytes(StandardCharsets.UTF_8);
        contentType = emptyToNull(context.getParameter("contentType", null));
        timeoutMillis = context.getLongParameter("timeoutMillis", 10_000);
        expectedStatus = context.getIntParameter("expectedStatus", 200);
        headers.clear();
        for (Iterator<String> names = context.getParameterNamesIterator(); names.hasNext(); ) {
            String name = names.next();
            if (name.toLowerCase(Locale.ROOT).startsWith(HEADER_PREFIX)) {
                headers.put(name, context.getParameter(name));
            }
        }
        connect();
    }

    private void connect() {
        EngineConfig config = new EngineConfig().containerId("amqp-servlet-jmeter").hostname(host).saslAnonymous();
        try {
            client = AmqpRequestClient.connect(host, port, path, config, AmqpRequestClient.now() + timeoutMillis);
            connectFailure = null;
        } catch (IOException e) {
            client = null;
            connectFailure = e;
        }
    }

    /** Sends one request on this thread's connection and checks its status. */
    @Override
    public SampleResult runTest(JavaSamplerContext context) {
        SampleResult result = new SampleResult();
        result.setSampleLabel(context.getJMeterContext().getCurrentSampler() == null ? "AMQP " + method + " " + path
                : context.getJMeterContext().getCurrentSampler().getName());
        result.setSamplerData(method + " amqp://" + host + ":" + port + path + "\n" + headers);
        result.setDataType(SampleResult.TEXT);
        result.sampleStart();
        if (client == null) {
            connect(); // the previous connection failed or broke: each sample tries once more
        }
        if (client == null) {
            result.sampleEnd();
            fail(result, connectFailure);
            return result;
        }
        try {
            AmqpResponse response = client.exchange(method, path, headers, contentType, body,
                    AmqpRequestClient.now() + timeoutMillis);
            result.sampleEnd();
            result.setResponseCode(Integer.toString(response.status()));
            result.setResponseMessage(response.status() == expectedStatus ? "OK" : "unexpected status");
            result.setResponseData(response.body());
            result.setResponseHeaders(headerLines(response));
            result.setContentType(response.contentType());
            result.setSuccessful(response.status() == expectedStatus);
        } catch (IOException e) {
            result.sampleEnd();
            fail(result, e);
            closeClient(); // the connection's state is unknown after a failed exchange: start afresh
        }
        return result;
    }

    private static String headerLines(AmqpResponse response) {
        StringBuilder lines = new StringBuilder();
        if (response.contentType() != null) {
            lines.append("content-type: ").append(response.contentType()).append('\n');
        }
        for (Map.Entry<String, String> e : response.headers().entrySet()) {
            lines.append(e.getKey()).append(": ").append(e.getValue()).append('\n');
        }
        return lines.toString();
    }

    private static void fail(SampleResult result, IOException e) {
        result.setSuccessful(false);
        result.setResponseCode(e.getClass().getSimpleName());
        result.setResponseMessage(String.valueOf(e.getMessage()));
        result.setResponseData(String.valueOf(e), StandardCharsets.UTF_8.name());
    }

    /** Closes this thread's connection. */
    @Override
    public void teardownTest(JavaSamplerContext context) {
        closeClient();
    }

    private void closeClient() {
        if (client == null) {
            return;
        }
        try {
            client.close();
        } catch (IOException e) {
            getNewLogger().warn("closing the AMQP connection failed: {}", e.toString());
        } finally {
            client = null;
        }
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
