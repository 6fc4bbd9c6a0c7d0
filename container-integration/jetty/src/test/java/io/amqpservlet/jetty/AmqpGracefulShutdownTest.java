package io.amqpservlet.jetty;

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
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!factory.getConnections().isShutdown() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(factory.getConnections().isShutdown(), "the server did not shut the AMQP connections down");

        Tracker second = sender.send(Message.create("").subject("GET").messageId("second").replyTo(replyTo));
        second.awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.RELEASED, second.remoteState().getType(), "arrived during shutdown");
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
    void streamedRequestStartedDuringShutdownIsReleasedWithoutRunningTheServlet() throws Exception {
        Connection connection = connect();
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        Sender sender = connection.openSender("/hold");
        sender.send(Message.create("").subject("GET").messageId("first").replyTo(replyTo));
        assertTrue(entered.await(10, TimeUnit.SECONDS), "the servlet never ran");
        StreamSender streams = connection.openStreamSender("/count");
        streams.openFuture().get(10, TimeUnit.SECONDS);

        CompletableFuture<Long> stopped = stopInBackground();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!factory.getConnections().isShutdown() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(factory.getConnections().isShutdown(), "the server did not shut the AMQP connections down");

        // Several frames (protonj2 splits the body at its frame size): the engine streams it in chunk by chunk.
        StreamSenderMessage streamed = streams.beginMessage();
        streamed.subject("POST").messageId("streamed").replyTo(replyTo);
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = streamed.body()) {
            for (int i = 0; i < 8; i++) {
                out.write(block);
            }
        }
        StreamTracker tracker = streamed.tracker();
        tracker.awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.RELEASED, tracker.remoteState().getType(), "streamed during shutdown");
        assertEquals(0, posts.get(), "the servlet ran for a request that arrived during shutdown");
        assertFalse(disconnected.isDone(), "closed while a request was in flight");

        release.countDown();
        Delivery response = replies.receive(10, TimeUnit.SECONDS);
        assertNotNull(response, "the request in flight was not answered");
        assertEquals("first", response.message().correlationId());
        assertForcedClose();
        assertTrue(stopped.get(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS) < STOP_TIMEOUT_MILLIS / 2);
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
