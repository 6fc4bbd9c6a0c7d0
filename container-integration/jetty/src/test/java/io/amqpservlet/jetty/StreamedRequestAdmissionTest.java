package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request that arrives in several transfer frames is admitted by the same decision as one that arrives whole
 * (docs/mapping.md, "Expiry"; docs/design.md §3 outcomes), taken once its header sections are in and before any
 * servlet sees it: expired (504, or rejected when one-way), a graceful stop or a used-up byte budget (released), a
 * client whose reply link backs up (released). Real sockets, a real Jetty; the client is our engine, which can send a
 * message's first bytes and pause before the rest.
 */
@Timeout(60)
class StreamedRequestAdmissionTest {
    private static final int FRAME = 16 * 1024;
    /** Larger than a frame: every request message of these tests arrives in several transfers. */
    private static final int BODY = 100 * 1024;
    /** Bytes of a message that hold only part of its header sections: the first transfer of a paused request. */
    private static final int PART_OF_HEAD = 40;

    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;
    private final AtomicInteger echoCalls = new AtomicInteger();
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** Reads the body and answers with its length, counting its calls. */
    final class CountingEcho extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            echoCalls.incrementAndGet();
            long n;
            try (InputStream in = request.getInputStream()) {
                n = in.transferTo(OutputStream.nullOutputStream());
            }
            response.getWriter().print(n);
        }
    }

    /** Holds its request (and so the connection's graceful stop) until the test lets it go; reads nothing. */
    final class Hold extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            holding.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.getWriter().print("held");
        }
    }

    private void start(EngineConfig engine) throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory(new HttpConfiguration(), engine.anonymousAllowed(true)
                .maxFrameSizeBytes(FRAME).sessionIncomingWindowFrames(16));
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new CountingEcho()), "/echo");
        context.addServlet(new ServletHolder(new Hold()), "/hold");
        server.setHandler(context);
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        if (server != null) {
            server.stop();
        }
    }

    private AmqpSocketClient connect() throws IOException {
        return AmqpSocketClient.connect(connector.getLocalPort(), "/echo");
    }

    /** A POST of {@link #BODY} bytes to {@code path}; {@code expiresAt} 0 for none, {@code replyTo} null for one-way. */
    private static AmqpWriter post(String path, String replyTo, long expiresAt) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w);
        m.startProperties().messageId("streamed").to(path).subject("POST");
        if (replyTo != null) {
            m.replyTo(replyTo);
        }
        if (expiresAt != 0) {
            m.absoluteExpiryTime(expiresAt);
        }
        m.endProperties();
        m.data(new byte[BODY], 0, BODY).end();
        return w;
    }

    private AmqpConnection serverConnection() {
        for (EndPoint endPoint : connector.getConnectedEndPoints()) {
            if (endPoint.getConnection() instanceof AmqpConnection amqp) {
                return amqp;
            }
        }
        throw new AssertionError("no AMQP connection on the server");
    }

    /** The request messages the server's AMQP connections have begun to receive, streamed ones from their first part. */
    private long messagesIn() {
        long messages = 0;
        for (EndPoint endPoint : connector.getConnectedEndPoints()) {
            if (endPoint.getConnection() instanceof AmqpConnection amqp) {
                messages += amqp.getMessagesIn();
            }
        }
        return messages;
    }

    @Test
    void anExpiredStreamedRequestIsAnswered504AndItsServletNeverRuns() throws Exception {
        start(new EngineConfig());
        try (AmqpSocketClient client = connect()) {
            AmqpSocketClient.Outcome expired = client.send(post("/echo", client.replyAddress(),
                    System.currentTimeMillis() - 1_000));
            client.awaitResponses(1);
            assertEquals("504", client.responses.get(0).subject);
            assertEquals("streamed", client.responses.get(0).correlationId.bytes().toString());
            client.pumpUntil(() -> expired.settled, "the expired request to be settled");
            assertEquals("accepted", expired.typeName, "answered, so a broker does not deliver it again");

            // A one-way request that expired is rejected: a broker would dead-letter it rather than retry it.
            AmqpSocketClient.Outcome oneWay = client.send(post("/echo", null, System.currentTimeMillis() - 1_000));
            client.pumpUntil(() -> oneWay.settled, "the expired one-way request to be settled");
            assertEquals("rejected", oneWay.typeName);
            assertEquals("amqp:precondition-failed", oneWay.condition);

            // Not expired yet: served as usual, its whole body read.
            client.send(post("/echo", client.replyAddress(), System.currentTimeMillis() + 60_000));
            client.awaitResponses(2);
            assertEquals("200", client.responses.get(1).subject);
            assertEquals(Integer.toString(BODY), new String(client.responses.get(1).body));
            assertEquals(1, echoCalls.get(), "only the fresh request reached the servlet");
            assertEquals(2, factory.getExpiredRequests(), "both expired requests were counted");
        }
    }

    @Test
    void aStreamedRequestWhoseHeadArrivesDuringAGracefulStopIsReleased() throws Exception {
        start(new EngineConfig());
        try (AmqpSocketClient client = connect()) {
            // A request in flight keeps the stopping connection open while the streamed one arrives.
            client.send(post("/hold", client.replyAddress(), 0));
            client.pumpUntil(() -> holding.getCount() == 0, "the held request to reach its servlet");
            AmqpWriter streamed = post("/echo", client.replyAddress(), 0);
            Delivery begun = client.begin(streamed, PART_OF_HEAD);
            // The first transfer, with part of the header sections, is in: the held request's and this one's.
            client.pumpUntil(() -> messagesIn() == 2, "the streamed request's first transfer to arrive");
            AmqpConnection connection = serverConnection();
            factory.getConnections().shutdown();
            client.pumpUntil(connection::isDraining, "the connection to begin its graceful stop");
            AmqpSocketClient.Outcome outcome = client.finish(begun, streamed, PART_OF_HEAD);
            client.pumpUntil(() -> outcome.settled, "the streamed request to be settled");
            assertEquals("released", outcome.typeName, "shutdown → released, the client may send it again");
            release.countDown();
            client.awaitResponses(1);
            assertEquals("held", new String(client.responses.get(0).body), "the request in flight was answered");
            assertEquals(0, echoCalls.get(), "the released request never reached its servlet");
        }
    }

    @Test
    void aStreamedRequestWhoseHeadArrivesWithTheByteBudgetUsedUpIsReleased() throws Exception {
        start(new EngineConfig());
        factory.setMaxBufferedBytes(64 * 1024);
        try (AmqpSocketClient client = connect(); AmqpSocketClient uploader = connect()) {
            AmqpWriter streamed = post("/echo", client.replyAddress(), 0);
            Delivery begun = client.begin(streamed, PART_OF_HEAD); // on credit granted while there was room
            client.pumpUntil(() -> messagesIn() == 1, "the streamed request's first transfer to arrive");
            // An upload its servlet does not read holds more than the whole budget.
            AmqpWriter upload = new AmqpWriter();
            new MessageWriter().wrap(upload).startProperties().to("/hold").subject("POST")
                    .replyTo(uploader.replyAddress()).endProperties().data(new byte[1024 * 1024], 0, 1024 * 1024)
                    .end();
            uploader.send(upload);
            uploader.pumpUntil(() -> factory.getServerBudget().isExhausted(), "the upload to use up the budget");
            AmqpSocketClient.Outcome outcome = client.finish(begun, streamed, PART_OF_HEAD);
            client.pumpUntil(() -> outcome.settled, "the streamed request to be settled");
            assertEquals("released", outcome.typeName, "overload → released, the client may send it again");
            assertEquals(0, echoCalls.get(), "the released request never reached its servlet");
            assertTrue(factory.getRequestsReleased() >= 1, "counted as released");
        }
    }

    @Test
    void aStreamedRequestOfAClientWhoseRepliesBackUpIsReleased() throws Exception {
        start(new EngineConfig().maxBufferedMessagesPerLink(2));
        // A client that grants no credit on its reply link: its responses queue on the server.
        try (AmqpSocketClient client = AmqpSocketClient.connect(connector.getLocalPort(), "/echo",
                AmqpSocketClient.defaultConfig(), 0)) {
            List<AmqpSocketClient.Outcome> gets = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                AmqpWriter get = new AmqpWriter();
                new MessageWriter().wrap(get).startProperties().to("/echo").subject("GET")
                        .replyTo(client.replyAddress()).endProperties().end();
                gets.add(client.send(get));
            }
            // The engine thread accepts each request right after it has queued the answer on the reply link; the
            // servlet's request ends earlier, as soon as the answer is handed over.
            client.pumpUntil(() -> gets.get(0).settled && gets.get(1).settled,
                    "two answers to queue on the reply link");
            assertEquals("accepted", gets.get(0).typeName);
            assertEquals("accepted", gets.get(1).typeName);
            AmqpSocketClient.Outcome outcome = client.send(post("/echo", client.replyAddress(), 0));
            client.pumpUntil(() -> outcome.settled, "the streamed request to be settled");
            assertEquals("released", outcome.typeName, "the client is not taking its responses: not acted on");
            assertEquals(2, echoCalls.get(), "the released request never reached its servlet");
            client.grantReplyCredit(10);
            client.awaitResponses(2);
        }
    }
}
