package io.amqpservlet.micrometer;

import io.amqpservlet.client.AmqpClientException;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.AmqpServerBudget;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A listener's meters (docs/jetty.md, "Micrometer meters"): every counter of its factory is one, tagged with the
 * connector's name, and they count what the server does: requests by outcome, timeouts and late responses,
 * connections refused by the limit that refused them, the byte budget.
 */
@Timeout(60)
class AmqpConnectionFactoryMetricsTest {
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private Server server;
    private AmqpConnectionFactory factory;
    private ServerConnector connector;

    /** Answers 200 at once, or after 600 ms for {@code /slow}. */
    private static final class Answers extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            if ("/slow".equals(Request.getPathInContext(request))) {
                Thread.sleep(600);
            }
            response.setStatus(200);
            response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.UTF_8)), callback);
            return true;
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig().anonymousAllowed(true));
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setName("amqp");
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Answers());
        server.start();
        new AmqpConnectionFactoryMetrics(factory, connector.getName(), Tags.of("app", "test")).bindTo(registry);
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private AmqpRequestClient connect() throws IOException {
        return AmqpRequestClient.connect("127.0.0.1", connector.getLocalPort(), null,
                new EngineConfig().hostname("127.0.0.1").saslAnonymous(), AmqpRequestClient.now() + 10_000);
    }

    private static AmqpResponse get(AmqpRequestClient client, String target) throws IOException {
        return client.exchange("GET", target, Map.of(), null, null, AmqpRequestClient.now() + 10_000);
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags("connector.name", "amqp").tags(tags).functionCounter().count();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags("connector.name", "amqp").tags(tags).gauge().value();
    }

    /** Waits (up to 10 s) until {@code value} reads {@code expected}: some counts change after the client's answer. */
    private static void await(double expected, DoubleSupplier value, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.getAsDouble() != expected) {
            assertTrue(System.nanoTime() < deadline, what + " never became " + expected + ": " + value.getAsDouble());
            Thread.sleep(10);
        }
    }

    @Test
    void everyCounterOfTheFactoryIsAMeterTaggedWithItsConnector() {
        Set<String> ids = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            StringBuilder id = new StringBuilder(meter.getId().getName()).append(' ').append(meter.getId().getType());
            for (Tag tag : meter.getId().getTags()) {
                if (!tag.getKey().equals("connector.name") && !tag.getKey().equals("app")) {
                    id.append(' ').append(tag.getKey()).append('=').append(tag.getValue());
                }
            }
            assertEquals("amqp", meter.getId().getTag("connector.name"), meter.getId().toString());
            assertEquals("test", meter.getId().getTag("app"), "the application's tags too: " + meter.getId());
            ids.add(id.toString());
        }
        assertEquals(new TreeSet<>(List.of(
                "amqp.servlet.requests COUNTER outcome=served",
                "amqp.servlet.requests COUNTER outcome=refused",
                "amqp.servlet.requests COUNTER outcome=released",
                "amqp.servlet.requests COUNTER outcome=expired",
                "amqp.servlet.requests.timed.out COUNTER",
                "amqp.servlet.responses.late COUNTER",
                "amqp.servlet.requests.active GAUGE",
                "amqp.servlet.connections GAUGE state=open",
                "amqp.servlet.connections GAUGE state=handshaking",
                "amqp.servlet.connections.refused COUNTER limit=maxConnections",
                "amqp.servlet.connections.refused COUNTER limit=maxHandshakingConnections",
                "amqp.servlet.connections.refused COUNTER limit=maxConnectionsPerAddress",
                "amqp.servlet.connections.refused COUNTER limit=maxHandshakesPerAddress",
                "amqp.servlet.connections.refused COUNTER limit=maxFailedLoginsPerAddress",
                "amqp.servlet.handshakes.evicted COUNTER limit=maxHandshakingConnections",
                "amqp.servlet.handshakes.evicted COUNTER limit=maxHandshakesPerAddress",
                "amqp.servlet.source.addresses GAUGE",
                "amqp.servlet.budget.used GAUGE",
                "amqp.servlet.budget.free GAUGE",
                "amqp.servlet.budget.max GAUGE",
                "amqp.servlet.budget.peak GAUGE",
                "amqp.servlet.budget.partial.frames GAUGE",
                "amqp.servlet.budget.stream.windows GAUGE",
                "amqp.servlet.budget.address.share.reached COUNTER reservation=bytes",
                "amqp.servlet.budget.address.share.reached COUNTER reservation=partialFrames",
                "amqp.servlet.budget.address.share.reached COUNTER reservation=streams")), ids);
        for (String bytes : List.of("used", "free", "max", "peak", "partial.frames")) {
            assertEquals("bytes", registry.get("amqp.servlet.budget." + bytes).gauge().getId().getBaseUnit());
        }
    }

    @Test
    void requestsCountByOutcomeAndTheBudgetShowsItsLimit() throws Exception {
        try (AmqpRequestClient client = connect()) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, get(client, "/ok").status());
            }
            assertEquals(200, client.exchange("POST", "/ok", Map.of(), "application/octet-stream",
                    new byte[100_000], AmqpRequestClient.now() + 10_000).status());
            // Userinfo in an absolute-form target: answered 400 without the handler (docs/mapping.md).
            assertEquals(400, get(client, "http://user@example.com/ok").status());
            assertEquals(1, gauge("amqp.servlet.connections", "state", "open"));
            assertEquals(0, gauge("amqp.servlet.connections", "state", "handshaking"));
            assertEquals(1, gauge("amqp.servlet.source.addresses"));
        }
        assertEquals(4, count("amqp.servlet.requests", "outcome", "served"));
        assertEquals(1, count("amqp.servlet.requests", "outcome", "refused"));
        assertEquals(0, count("amqp.servlet.requests", "outcome", "released"));
        assertEquals(0, count("amqp.servlet.requests", "outcome", "expired"));
        assertEquals(factory.getRequestsServed() + factory.getRequestsRefused(),
                registry.get("amqp.servlet.requests").functionCounters().stream()
                        .mapToDouble(c -> c.count()).sum(), "the outcomes sum to every request message");
        await(0, () -> gauge("amqp.servlet.requests.active"), "requests active");
        await(0, () -> gauge("amqp.servlet.connections", "state", "open"), "connections open");
        assertEquals(AmqpServerBudget.DEFAULT_MAX_BUFFERED_BYTES, gauge("amqp.servlet.budget.max"));
        assertEquals(AmqpServerBudget.DEFAULT_MAX_BUFFERED_BYTES, gauge("amqp.servlet.budget.free")
                + gauge("amqp.servlet.budget.used"));
        assertTrue(gauge("amqp.servlet.budget.peak") > 0, "the body the handler left unread was buffered");
    }

    @Test
    void aRequestTheTimeoutAnsweredIsCountedAndSoIsItsLateResponse() throws Exception {
        factory.setRequestTimeout(200);
        try (AmqpRequestClient client = connect()) {
            assertEquals(503, get(client, "/slow").status());
            assertEquals(1, count("amqp.servlet.requests.timed.out"));
            await(1, () -> count("amqp.servlet.responses.late"), "late responses");
        }
        assertEquals(1, count("amqp.servlet.requests", "outcome", "served"), "a timed-out request was served");
    }

    /**
     * Sends the bare AMQP header to a server that requires SASL, as a misconfigured client would: the server answers
     * with its SASL header and ends the connection, which it counts as {@code amqp:unauthorized-access}. Returns once
     * the server has closed the socket.
     */
    static void connectWithoutSasl(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(new byte[] {'A', 'M', 'Q', 'P', 0, 1, 0, 0});
            out.flush();
            InputStream in = socket.getInputStream();
            while (in.read(new byte[64]) >= 0) {
                // the server's SASL header, then the end of the stream
            }
        }
    }

    @Test
    void errorsSentToClientsAreMetersByScopeAndConditionFromTheFirstOn() throws Exception {
        assertTrue(registry.find("amqp.servlet.errors.sent").meters().isEmpty(), "no meter before any error");
        connectWithoutSasl(connector.getLocalPort());
        // The meter is made as the first error of its kind is sent, and counts it.
        await(1, () -> registry.find("amqp.servlet.errors.sent").functionCounters().size(), "the errors' meters");
        await(1, () -> count("amqp.servlet.errors.sent", "scope", "connection", "condition", "amqp:unauthorized-access"),
                "unauthorized-access errors sent");
        assertEquals("test", registry.get("amqp.servlet.errors.sent").meter().getId().getTag("app"));
        connectWithoutSasl(connector.getLocalPort());
        await(2, () -> count("amqp.servlet.errors.sent", "scope", "connection", "condition", "amqp:unauthorized-access"),
                "unauthorized-access errors sent");
        assertEquals(1, registry.find("amqp.servlet.errors.sent").meters().size(), "one meter per kind");
    }

    /**
     * Logs in with SASL {@code mechanism} (no initial response) over a raw socket: the sasl-outcome's code. A
     * sasl-init frame by hand (AMQP 1.0 §2.3, §5.3.3.2): size, doff 2, type 1 (SASL), channel 0, then the described
     * list {@code sasl-init(mechanism)}.
     */
    static int saslOutcome(int port, String mechanism) throws IOException {
        byte[] name = mechanism.getBytes(StandardCharsets.US_ASCII);
        int size = 8 + 8 + name.length; // the frame header, then the body
        ByteBuffer frame = ByteBuffer.allocate(8 + size);
        frame.put(new byte[] {'A', 'M', 'Q', 'P', 3, 1, 0, 0});
        frame.putInt(size).put((byte) 2).put((byte) 1).putShort((short) 0);
        frame.put(new byte[] {0x00, 0x53, 0x41, (byte) 0xc0, (byte) (3 + name.length), 0x01, (byte) 0xa3,
            (byte) name.length}).put(name);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(frame.array(), 0, frame.position());
            out.flush();
            byte[] in = socket.getInputStream().readAllBytes();
            // The last frame is the outcome: 0x00 0x53 0x44 (sasl-outcome), a list, its first field the ubyte code.
            for (int i = in.length - 3; i >= 0; i--) {
                if (in[i] == 0x00 && in[i + 1] == 0x53 && in[i + 2] == 0x44) {
                    int at = i + 3;
                    at += in[at] == (byte) 0xc0 ? 3 : in[at] == (byte) 0xd0 ? 9 : 1;
                    assertEquals(0x50, in[at] & 0xFF, "a ubyte code");
                    return in[at + 1];
                }
            }
            throw new AssertionError("no sasl-outcome in " + in.length + " bytes");
        }
    }

    @Test
    void loginsRefusedByTheLimitOfFailedLoginsPerAddressCountUnderItsName() throws Exception {
        factory.setMaxFailedLoginsPerAddress(1);
        assertEquals(1, saslOutcome(connector.getLocalPort(), "CRAM-MD5"), "a mechanism not offered: auth");
        assertEquals(4, saslOutcome(connector.getLocalPort(), "ANONYMOUS"), "none left: sys-temp");
        await(1, () -> count("amqp.servlet.connections.refused", "limit", "maxFailedLoginsPerAddress"),
                "refused by maxFailedLoginsPerAddress");
        assertEquals(1, factory.getConnectionsRefusedPerAddress());
        assertEquals(factory.getConnectionsRefused(), registry.get("amqp.servlet.connections.refused")
                .functionCounters().stream().mapToDouble(c -> c.count()).sum(), "the limits sum to every refusal");
    }

    @Test
    void refusedConnectionsCountByTheLimitThatRefusedThem() throws Exception {
        factory.setMaxConnectionsPerAddress(1);
        try (AmqpRequestClient first = connect()) {
            assertThrows(AmqpClientException.class, this::connect);
            await(1, () -> count("amqp.servlet.connections.refused", "limit", "maxConnectionsPerAddress"),
                    "refused by maxConnectionsPerAddress");

            factory.setMaxConnectionsPerAddress(0);
            factory.setMaxConnections(1);
            assertThrows(AmqpClientException.class, this::connect);
            await(1, () -> count("amqp.servlet.connections.refused", "limit", "maxConnections"),
                    "refused by maxConnections");
            assertEquals(200, get(first, "/ok").status(), "the first connection goes on");
        }
        assertEquals(0, count("amqp.servlet.connections.refused", "limit", "maxHandshakingConnections"));
        assertEquals(0, count("amqp.servlet.connections.refused", "limit", "maxHandshakesPerAddress"));
        assertEquals(factory.getConnectionsRefused(), registry.get("amqp.servlet.connections.refused")
                .functionCounters().stream().mapToDouble(c -> c.count()).sum(), "the limits sum to every refusal");
        assertEquals(0, registry.get("amqp.servlet.handshakes.evicted").functionCounters().stream()
                .mapToDouble(c -> c.count()).sum());
    }
}
