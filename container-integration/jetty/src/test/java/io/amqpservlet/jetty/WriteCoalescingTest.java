package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Write coalescing ({@link AmqpConnectionFactory#setWriteCoalescing}) on a real server and socket: a response waits
 * for the other requests its connection is serving, at most the hold time, and a request served alone never waits.
 * A servlet at {@code /gate} holds its request until the test opens the gate; {@code /echo} answers at once.
 */
@Timeout(60)
class WriteCoalescingTest {
    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;
    private final TestServlets.Gate gate = new TestServlets.Gate();
    private final TestServlets.Echo echo = new TestServlets.Echo();

    @AfterEach
    void stop() throws Exception {
        gate.open.countDown();
        if (server != null) {
            server.stop();
        }
    }

    private void start(long coalescingMicros) throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig().anonymousAllowed(true));
        factory.setWriteCoalescing(coalescingMicros);
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(gate), "/gate");
        context.addServlet(new ServletHolder(echo), "/echo");
        server.setHandler(context);
        server.start();
    }

    private static void send(AmqpSocketClient client, String id, String path) {
        AmqpWriter request = new AmqpWriter();
        new MessageWriter().wrap(request).startProperties().messageId(id).to(path).subject("GET")
                .replyTo(client.replyAddress()).endProperties().end();
        client.send(request);
    }

    /**
     * Opens the gate and waits for the gated request's answer, which comes after every response so far: the
     * connection served that request until now, rather than having ended it before (a request that had ended would
     * not be answered by its servlet).
     */
    private void openTheGateAndAwaitItsAnswer(AmqpSocketClient client) throws IOException {
        int before = client.responses.size();
        gate.open.countDown();
        client.awaitResponses(before + 1);
        AmqpSocketClient.Response held = client.responses.get(before);
        assertEquals("held", held.correlationId.toString());
        assertEquals("200", held.subject);
        assertEquals("gate", new String(held.body, StandardCharsets.UTF_8));
    }

    private static List<String> answered(AmqpSocketClient client) {
        List<String> ids = new ArrayList<>();
        for (AmqpSocketClient.Response r : client.responses) {
            ids.add(r.correlationId.toString());
        }
        return ids;
    }

    @Test
    void responsesWaitForTheRequestsTheirConnectionIsStillServing() throws Exception {
        start(AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS);
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), null)) {
            send(client, "held", "/gate");
            client.pumpUntil(() -> gate.entered.getCount() == 0, "the gated request to reach its servlet");
            send(client, "quick-1", "/echo");
            send(client, "quick-2", "/echo");
            // Once the echo has run twice and only the gated request is still served, both answers are with the
            // connection: from then on, only the hold keeps them from the client.
            client.pumpUntil(() -> echo.calls.get() == 2 && factory.getRequestsActive() == 1,
                    "both quick requests to be answered by their servlet");
            client.pumpFor(300);
            assertEquals(List.of(), answered(client),
                    "within the hold, no response leaves while the connection still serves the gated request");
            gate.open.countDown();
            client.awaitResponses(3);
            assertEquals(Set.of("quick-1", "quick-2", "held"), Set.copyOf(answered(client)),
                    "every response, each once, once the last request was served");
            assertEquals(3, client.responses.size());
        }
    }

    @Test
    void aSlowServletHoldsItsNeighboursResponsesForAtMostTheHoldTime() throws Exception {
        start(200_000); // 200 ms: long enough to see, short against the gate
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), null)) {
            send(client, "held", "/gate");
            client.pumpUntil(() -> gate.entered.getCount() == 0, "the gated request to reach its servlet");
            // Whatever the gated request's arrival left to write (a flow) is held from then: let that hold end, so
            // that the quick response starts a hold of its own.
            client.pumpFor(300);
            long sent = System.nanoTime();
            send(client, "quick", "/echo");
            client.awaitResponses(1);
            long waitedMillis = (System.nanoTime() - sent) / 1_000_000;
            assertEquals(List.of("quick"), answered(client), "the quick response, while the gate is still shut");
            assertTrue(waitedMillis >= 200, "the quick response was held the hold time, not less: " + waitedMillis
                    + " ms");
            openTheGateAndAwaitItsAnswer(client); // it was held for a request still served
        }
    }

    @Test
    void aRequestServedAloneIsAnsweredAtOnce() throws Exception {
        start(AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS);
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), null)) {
            for (int i = 0; i < 3; i++) {
                long sent = System.nanoTime();
                send(client, "alone-" + i, "/echo");
                client.awaitResponses(i + 1);
                long tookMillis = (System.nanoTime() - sent) / 1_000_000;
                assertTrue(tookMillis < 500, "a request its connection served alone waited " + tookMillis
                        + " ms; the hold is 1 s");
            }
        }
    }

    @Test
    void zeroWritesEachResponseAtOnce() throws Exception {
        start(0);
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), null)) {
            send(client, "held", "/gate");
            client.pumpUntil(() -> gate.entered.getCount() == 0, "the gated request to reach its servlet");
            send(client, "quick", "/echo");
            client.awaitResponses(1);
            assertEquals(List.of("quick"), answered(client));
            openTheGateAndAwaitItsAnswer(client); // answered while the connection still served the gated request
        }
    }

    @Test
    void theHoldTimeIsBounded() {
        AmqpConnectionFactory f = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig());
        assertEquals(AmqpConnectionFactory.DEFAULT_WRITE_COALESCING_MICROS, f.getWriteCoalescing());
        assertThrows(IllegalArgumentException.class, () -> f.setWriteCoalescing(-1));
        assertThrows(IllegalArgumentException.class,
                () -> f.setWriteCoalescing(AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS + 1));
        f.setWriteCoalescing(0);
        assertEquals(0, f.getWriteCoalescing());
    }
}
