package io.amqpservlet.micrometer;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker attachment's meters (docs/jetty.md, "Micrometer meters"): its state as a state set, its connections and
 * failures, and its factory's request meters, all tagged with the attachment's name; none of a listener's connection
 * or budget meters, which an attachment's factory does not count.
 */
@Timeout(60)
class AmqpBrokerAttachmentMetricsTest {
    private final MeterRegistry registry = new SimpleMeterRegistry();

    private Search attachment(String name) {
        return registry.find(name).tag("connector.name", "attach:orders");
    }

    @Test
    void everyStateTheAttachmentCanBeInIsAStateTag() throws Exception {
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(new Server());
        a.setName("attach:orders");
        new AmqpBrokerAttachmentMetrics(a).bindTo(registry);
        Set<String> states = attachment("amqp.servlet.attach.state").gauges().stream()
                .map(g -> g.getId().getTag("state")).collect(Collectors.toCollection(TreeSet::new));
        // The library's state enum is not exported (its getter gives the name): read where the tests run, on the
        // class path, so a state added there fails here rather than reading 0 on every gauge.
        Object[] library = Class.forName("io.amqpservlet.jetty.internal.attach.AttachmentState").getEnumConstants();
        assertEquals(Arrays.stream(library).map(String::valueOf).collect(Collectors.toCollection(TreeSet::new)),
                states);
        assertEquals(1, attachment("amqp.servlet.attach.state").tag("state", "STOPPED").gauge().value(),
                "not started");
    }

    /**
     * The errors an attachment sends its broker are meters of their own, made as the first of each scope and
     * condition is sent. The broker here is a real listener, whose open announces an idle-time-out (half its 60 s)
     * shorter than the attachment's factory lets a peer ask for: the attachment closes each connection with {@code
     * amqp:resource-limit-exceeded} (AMQP 1.0 §2.4.5), and connects again.
     */
    @Test
    void errorsSentToTheBrokerAreMetersByScopeAndConditionFromTheFirstOn() throws Exception {
        Server broker = new Server();
        ServerConnector listener = new ServerConnector(broker, 1, 1, new AmqpConnectionFactory(
                new HttpConfiguration(), new EngineConfig().anonymousAllowed(true)));
        listener.setHost("127.0.0.1");
        broker.addConnector(listener);
        broker.start();
        Server server = new Server();
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(server, new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().minPeerIdleTimeoutMillis(60_000)));
        a.setUri("amqp://127.0.0.1:" + listener.getLocalPort() + "/orders");
        a.setName("attach:orders");
        a.setReconnectDelay(50, 50);
        server.addConnector(a);
        new AmqpBrokerAttachmentMetrics(a).bindTo(registry);
        assertTrue(registry.find("amqp.servlet.attach.errors.sent").meters().isEmpty(), "no meter before any error");
        server.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (a.getErrorsSent("connection", "amqp:resource-limit-exceeded") < 2) {
                assertTrue(System.nanoTime() < deadline, "no error sent to the broker: " + a.getLastFailure());
                Thread.sleep(10);
            }
        } finally {
            server.stop();
            broker.stop();
        }
        FunctionCounter sent = attachment("amqp.servlet.attach.errors.sent").tag("scope", "connection")
                .tag("condition", "amqp:resource-limit-exceeded").functionCounter();
        assertEquals(a.getErrorsSent("connection", "amqp:resource-limit-exceeded"), sent.count());
        assertTrue(sent.count() >= 2, "counts every one: " + sent.count());
        assertEquals(1, registry.find("amqp.servlet.attach.errors.sent").meters().size(), "one meter per kind");
        assertTrue(registry.find("amqp.servlet.errors.sent").meters().isEmpty(), "a listener's meter, not this");
    }

    @Test
    void anAttachmentShowsItsStateAndItsFailedConnectionAttempts() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // nothing listens there once the socket is closed
        }
        Server server = new Server();
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(server);
        a.setUri("amqp://127.0.0.1:" + closedPort + "/orders");
        a.setName("attach:orders");
        a.setReconnectDelay(50, 50);
        server.addConnector(a);
        new AmqpBrokerAttachmentMetrics(a).bindTo(registry);
        server.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (attachment("amqp.servlet.attach.consecutive.failures").gauge().value() < 2) {
                assertTrue(System.nanoTime() < deadline, "the attachment never tried again");
                Thread.sleep(10);
            }
            // The state gauges are read one after another while the attachment goes from BACKING_OFF to CONNECTING
            // and back every few tens of milliseconds: a move between two reads would show no state or two. Until it
            // is attached, each failure counts one and moves it to BACKING_OFF, and with the count unchanged it can
            // only go on to CONNECTING, never back: the same count and state before and after the gauges were read
            // mean it stayed in that state meanwhile.
            int failures;
            String state;
            Map<String, Double> states;
            do {
                assertTrue(System.nanoTime() < deadline, "the state never held still while the gauges were read");
                failures = a.getFailures();
                state = a.getState();
                states = attachment("amqp.servlet.attach.state").gauges().stream().collect(Collectors.toMap(
                        g -> g.getId().getTag("state"), Gauge::value, (x, y) -> x, TreeMap::new));
            } while (!a.getState().equals(state) || a.getFailures() != failures);
            // Read after the gauges: no connection made, so it never attached (which starts the failures again at 0).
            assertEquals(0, attachment("amqp.servlet.attach.connects").functionCounter().count(),
                    "no connection was made");
            assertEquals(0, attachment("amqp.servlet.attach.state").tag("state", "ATTACHED").gauge().value());
            assertEquals(1, states.values().stream().mapToDouble(Double::doubleValue).sum(),
                    "exactly one state at a time: " + states);
            assertEquals(1, states.get(state), "the state it was in while the gauges were read: " + states);
            double delayMillis = attachment("amqp.servlet.attach.reconnect.delay").timeGauge()
                    .value(TimeUnit.MILLISECONDS);
            assertTrue(delayMillis > 0 && delayMillis <= 50, "a wait of at most the maximum delay: " + delayMillis);
            assertEquals(0, attachment("amqp.servlet.attach.outstanding.peak").gauge().value());
            assertEquals(0, attachment("amqp.servlet.attach.beyond.credit").functionCounter().count());
            assertEquals(0, attachment("amqp.servlet.attach.buffered").gauge().value());
            assertEquals("bytes", attachment("amqp.servlet.attach.buffered").gauge().getId().getBaseUnit());
            assertEquals(0, attachment("amqp.servlet.requests").tag("outcome", "served").functionCounter().count());
            assertEquals(0, attachment("amqp.servlet.requests.active").gauge().value());
        } finally {
            server.stop();
        }
        Set<String> names = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            assertEquals("attach:orders", meter.getId().getTag("connector.name"), meter.getId().toString());
            names.add(meter.getId().getName());
        }
        assertEquals(new TreeSet<>(Set.of("amqp.servlet.requests", "amqp.servlet.requests.timed.out",
                "amqp.servlet.responses.late", "amqp.servlet.requests.active", "amqp.servlet.attach.state",
                "amqp.servlet.attach.connects", "amqp.servlet.attach.consecutive.failures",
                "amqp.servlet.attach.reconnect.delay", "amqp.servlet.attach.outstanding.peak",
                "amqp.servlet.attach.beyond.credit", "amqp.servlet.attach.buffered")), names);
    }
}
