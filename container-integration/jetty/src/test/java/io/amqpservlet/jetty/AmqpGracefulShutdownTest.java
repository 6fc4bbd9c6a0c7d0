package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.apache.qpid.protonj2.client.StreamTracker;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientConnectionRemotelyClosedException;
import org.apache.qpid.protonj2.client.exceptions.ClientIOException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A graceful stop ({@code Server.setStopTimeout}) with protonj2-client 1.1.0 connected: requests in flight are
 * answered, requests arriving meanwhile are released, then the connection is closed with
 * {@code amqp:connection:forced}, and the server stops as soon as that is done rather than at the stop timeout.
 */
@Timeout(60)
class AmqpGracefulShutdownTest {
    private static final long STOP_TIMEOUT_MILLIS = 20_000;

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private Server server;
    private AmqpConnectionFactory factory;
    private int port;
    private Client client;
    private final CompletableFuture<ClientIOException> disconnected = new CompletableFuture<>();
    private final AtomicInteger posts = new AtomicInteger();

    /** Counts the requests that reach it and reads their bodies. */
    final class Count extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            posts.incrementAndGet();
            try (InputStream in = request.getInputStream()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            response.getWriter().print("counted");
        }
    }

    /** Holds its request until the test releases it. */
    final class Hold extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.getWriter().print("held");
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        server.setStopTimeout(STOP_TIMEOUT_MILLIS);
        factory = new AmqpConnectionFactory();
        ServerConnector connector = new ServerConnector(server, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new Hold()), "/hold");
        context.addServlet(new ServletHolder(new Count()), "/count");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        try {
            client.close();
        } finally {
            server.stop();
        }
    }

    private void awaitDraining() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (org.eclipse.jetty.io.EndPoint endPoint : ((ServerConnector) server.getConnectors()[0])
                .getConnectedEndPoints()) {
            if (endPoint.getConnection() instanceof AmqpConnection amqp) {
                while (!amqp.isDraining() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertTrue(amqp.isDraining(), "a connection was not told about the stop");
            }
        }
    }

    private Connection connect() throws Exception {
        ConnectionOptions options = new ConnectionOptions();
        options.disconnectedHandler((connection, event) -> disconnected.complete(event.failureCause()));
        return client.connect("127.0.0.1", port, options);
    }

    private CompletableFuture<Long> stopInBackground() {
        return CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            try {
                server.stop();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return (System.nanoTime() - start) / 1_000_000;
        });
    }

    private void assertForcedClose() throws Exception {
        ClientIOException cause = disconnected.get(10, TimeUnit.SECONDS);
        ClientConnectionRemotelyClosedException closed =
                assertInstanceOf(ClientConnectionRemotelyClosedException.class, cause);
        assertNotNull(closed.getErrorCondition(), cause.toString());
        assertEquals("amqp:connection:forced", closed.getErrorCondition().condition());
    }

    @Test
    void inFlightRequestIsAnsweredNewOneReleasedThenConnectionForcedClosed() throws Exception {
        Connection connection = connect();
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        Sender sender = connection.openSender("/hold");
        Tracker first = sender.send(Message.create("").subject("GET").messageId("first").replyTo(replyTo));
        assertTrue(entered.await(10, TimeUnit.SECONDS), "the servlet never ran");

        CompletableFuture<Long> stopped = stopInBackground();
        Eventually.until(factory.getConnections()::isShutdown,
                () -> "the server did not shut the AMQP connections down");
        awaitDraining(); // the bean says shut down before it has told each connection

        // The stop takes the client's credit back (a flow with link-credit 0): once the client has seen it, nothing
        // more can be sent; a request that was already on its way when the flow left is released.
        long creditDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Tracker second;
        while ((second = sender.trySend(Message.create("").subject("GET").messageId("second")
                .replyTo(replyTo))) != null) {
            second.awaitSettlement(10, TimeUnit.SECONDS);
            assertEquals(DeliveryState.Type.RELEASED, second.remoteState().getType(), "arrived during shutdown");
            assertTrue(System.nanoTime() < creditDeadline, "the client still has credit during the stop");
        }
        assertFalse(disconnected.isDone(), "closed while a request was in flight");
        assertFalse(stopped.isDone());

        release.countDown();
        Delivery response = replies.receive(10, TimeUnit.SECONDS);
        assertNotNull(response, "the request in flight was not answered");
        assertEquals("200", response.message().subject());
        assertEquals("first", response.message().correlationId());
        assertTrue(first.awaitSettlement(10, TimeUnit.SECONDS).remoteSettled());
        assertEquals(DeliveryState.Type.ACCEPTED, first.remoteState().getType());

        assertForcedClose();
        long stopMillis = stopped.get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        assertTrue(stopMillis < STOP_TIMEOUT_MILLIS / 2, "stop took " + stopMillis + " ms");
    }

    @Test
    void underLoadEveryRequestIsAnsweredOrReleasedAndNoneIsLeftUnsettled() throws Exception {
        Connection connection = connect();
        Receiver replies = connection.openDynamicReceiver(
                new org.apache.qpid.protonj2.client.ReceiverOptions().creditWindow(1_000));
        String replyTo = replies.address();
        Sender sender = connection.openSender("/count");
        sender.openFuture().get(10, TimeUnit.SECONDS);
        java.util.List<Tracker> sent = new java.util.ArrayList<>();
        CompletableFuture<Long> stopped = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // Requests go out as fast as credit allows, before and during the stop, until the server closes.
        while (!disconnected.isDone() && System.nanoTime() < deadline) {
            Tracker t;
            try {
                t = sender.trySend(Message.create(new byte[100]).subject("POST").messageId("m" + sent.size())
                        .replyTo(replyTo));
            } catch (Exception closed) {
                break; // the forced close arrived while sending
            }
            if (t != null) {
                sent.add(t);
            } else {
                Thread.sleep(1); // no credit: during the stop, for good
            }
            if (stopped == null && sent.size() == 200) {
                stopped = stopInBackground();
            }
        }
        assertNotNull(stopped, "too few requests were sent to start the stop under load");
        assertForcedClose();
        int accepted = 0;
        int released = 0;
        for (Tracker t : sent) {
            assertTrue(t.remoteSettled(), "request " + sent.indexOf(t) + " of " + sent.size()
                    + " was left unsettled at the close");
            DeliveryState.Type type = t.remoteState().getType();
            if (type == DeliveryState.Type.ACCEPTED) {
                accepted++;
            } else {
                assertEquals(DeliveryState.Type.RELEASED, type, "request " + sent.indexOf(t));
                released++;
            }
        }
        assertTrue(accepted >= 1, "accepted " + accepted + ", released " + released);
        assertEquals(accepted, posts.get(), "a servlet ran for each accepted request and no other");
        assertTrue(stopped.get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS) < STOP_TIMEOUT_MILLIS / 2);
    }

    @Test
    void aClientThatNeverAnswersTheCloseIsDroppedWithinTheCloseTimeout() throws Exception {
        factory.setCloseTimeout(1_000);
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(io.amqpservlet.protocol.frame.ProtocolHeader.AMQP);
            peer.writeFrame(0, new io.amqpservlet.protocol.types.transport.Open().containerId("deaf-peer"));
            peer.readHeader();
            peer.readUntil(io.amqpservlet.protocol.types.transport.Open.class);
            long stopMillis = stopInBackground().get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            // Our close came, was never answered, and the server dropped the socket after about the close timeout.
            peer.readUntil(io.amqpservlet.protocol.types.transport.Close.class);
            peer.awaitEof(5_000);
            assertTrue(stopMillis < 4_000, "stop took " + stopMillis + " ms with a close timeout of 1 s");
        }
        // The close that went out is counted when the server drops the connection, though no answer came.
        Eventually.until(() -> factory.getErrorsSent("connection", "amqp:connection:forced") == 1,
                () -> "errors sent: " + factory.getConnectionErrorsSent());
    }

    @Test
    void aClientThatDropsItsSocketAtOurCloseStillCountsTheClose() throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(io.amqpservlet.protocol.frame.ProtocolHeader.AMQP);
            peer.writeFrame(0, new io.amqpservlet.protocol.types.transport.Open().containerId("leaving-peer"));
            peer.readHeader();
            peer.readUntil(io.amqpservlet.protocol.types.transport.Open.class);
            CompletableFuture<Long> stopped = stopInBackground();
            peer.readUntil(io.amqpservlet.protocol.types.transport.Close.class);
            peer.close(); // no close back: the socket goes
            stopped.get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        }
        Eventually.until(() -> factory.getErrorsSent("connection", "amqp:connection:forced") == 1,
                () -> "errors sent: " + factory.getConnectionErrorsSent());
    }

    @Test
    void idleConnectionIsForcedClosedAndStopDoesNotWaitForTheTimeout() throws Exception {
        Connection connection = connect();
        connection.openDynamicReceiver().address(); // the connection is open and idle
        long stopMillis = stopInBackground().get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        assertForcedClose();
        assertTrue(stopMillis < STOP_TIMEOUT_MILLIS / 2, "stop took " + stopMillis + " ms");
        assertEquals(0, factory.getConnections().size());
    }
}
