package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.budget.ServerBudget;
import io.amqpservlet.jetty.internal.exchange.RequestBody;
import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.OutputStreamOptions;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.ReceiverOptions;
import org.apache.qpid.protonj2.client.SenderOptions;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.apache.qpid.protonj2.client.StreamTracker;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientConnectionRemotelyClosedException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.logging.JettyLevel;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server-wide limits of an {@link AmqpConnectionFactory} ({@link AmqpServerBudget}), with protonj2-client 1.1.0
 * and raw sockets: a connection past the limit is opened and closed with {@code amqp:resource-limit-exceeded},
 * and its place comes back when a connection closes; one past the handshake limit is closed before any byte; concurrent uploads to a servlet that does not read stay within
 * the byte budget (up to a window per session), each ending in a response or a release, while an upload to a
 * servlet that reads completes meanwhile.
 */
@Timeout(90)
class AmqpServerBudgetTest {
    private static final int FRAME = 64 * 1024;
    private static final int WINDOW_FRAMES = 16;
    private Server server;
    private ServerConnector connector;
    private AmqpConnectionFactory factory;
    private Client client;
    private final CountDownLatch answerUnread = new CountDownLatch(1);

    /** Does not read its body; answers once the test lets it (the connector then drops the rest of the body). */
    final class NeverReads extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            try {
                answerUnread.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.getWriter().print("unread");
        }
    }

    /** Holds every request (asynchronous, no thread kept) until the test lets them go, then answers 204. */
    final class Holds extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            AsyncContext async = request.startAsync();
            async.setTimeout(0);
            held.add(async);
        }
    }

    private final java.util.Queue<AsyncContext> held = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Reads its whole body and answers how many bytes it read. */
    static final class Reads extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            long n;
            try (InputStream in = request.getInputStream()) {
                n = in.transferTo(OutputStream.nullOutputStream());
            }
            response.getWriter().print(n);
        }
    }

    /** Answers a GET with as many zero bytes as its {@code bytes} parameter says. */
    static final class Big extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            int n = Integer.parseInt(request.getParameter("bytes"));
            response.setContentLength(n);
            response.getOutputStream().write(new byte[n]);
        }
    }

    private void start() throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).maxFrameSizeBytes(FRAME)
                .maxMessageSizeBytes(256L * 1024 * 1024).sessionIncomingWindowFrames(WINDOW_FRAMES);
        factory = new AmqpConnectionFactory(new HttpConfiguration(), engine);
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new NeverReads()), "/unread");
        context.addServlet(new ServletHolder(new Reads()), "/read");
        context.addServlet(new ServletHolder(new Big()), "/big");
        ServletHolder holds = new ServletHolder(new Holds());
        holds.setAsyncSupported(true);
        context.addServlet(holds, "/hold");
        server.setHandler(context);
        server.start();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        answerUnread.countDown();
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (server != null) {
                server.stop();
            }
        }
    }

    private Connection connect() throws Exception {
        Connection c = client.connect("127.0.0.1", connector.getLocalPort());
        c.openFuture().get(10, TimeUnit.SECONDS);
        return c;
    }

    private void awaitConnections(int n) throws Exception {
        Eventually.until(() -> factory.getServerBudget().getConnections() == n,
                () -> "connections counted by the budget: " + factory.getServerBudget().getConnections() + ", not "
                        + n);
    }

    @Test
    void aConnectionPastTheLimitIsRefusedWithResourceLimitExceeded() throws Exception {
        start();
        factory.setMaxConnections(2);
        Connection first = connect();
        Connection second = connect();
        awaitConnections(2);

        CompletableFuture<org.apache.qpid.protonj2.client.exceptions.ClientIOException> dropped =
                new CompletableFuture<>();
        org.apache.qpid.protonj2.client.ConnectionOptions options =
                new org.apache.qpid.protonj2.client.ConnectionOptions();
        options.disconnectedHandler((connection, event) -> dropped.complete(event.failureCause()));
        Connection third = client.connect("127.0.0.1", connector.getLocalPort(), options);
        // AMQP 1.0 §2.4.2: the server answers open, then closes with the reason.
        ClientConnectionRemotelyClosedException closed = assertInstanceOf(
                ClientConnectionRemotelyClosedException.class, dropped.get(10, TimeUnit.SECONDS));
        assertNotNull(closed.getErrorCondition(), closed.toString());
        assertEquals("amqp:resource-limit-exceeded", closed.getErrorCondition().condition());
        third.close();
        assertEquals(1, factory.getServerBudget().getRefusedConnections());

        // A place comes back when a connection closes: the budget never leaks a count.
        first.close();
        awaitConnections(1);
        Connection fourth = connect();
        awaitConnections(2);
        fourth.close();
        second.close();
        awaitConnections(0);
        assertEquals(0, factory.getServerBudget().getHandshakingConnections());
    }

    @Test
    void aConnectionPastTheHandshakeLimitIsClosedBeforeAnyFrame() throws Exception {
        start();
        factory.setMaxHandshakingConnections(2);
        try (RawAmqpPeer first = new RawAmqpPeer(connector.getLocalPort());
             RawAmqpPeer second = new RawAmqpPeer(connector.getLocalPort())) {
            Eventually.until(() -> factory.getServerBudget().getHandshakingConnections() == 2,
                    () -> "two silent connections: " + factory.getServerBudget().getHandshakingConnections());
            try (RawAmqpPeer third = new RawAmqpPeer(connector.getLocalPort())) {
                assertEquals(0, third.awaitEof(5_000).length, "closed at once, before any byte");
            }
            assertEquals(1, factory.getServerBudget().getRefusedConnections());
        }
        // The silent ones are gone: their places come back, and a client that does finish its handshake is served.
        Eventually.until(() -> factory.getServerBudget().getHandshakingConnections() == 0,
                () -> "still handshaking: " + factory.getServerBudget().getHandshakingConnections());
        try (Connection c = connect()) {
            awaitConnections(1);
        }
    }

    @Test
    void uploadsToAServletThatDoesNotReadStayWithinTheByteBudgetWhileAReadingOneCompletes() throws Exception {
        start();
        int uploads = 8;
        // Each upload whose servlet does not read holds at most the unread threshold plus one session window.
        long perUpload = RequestBody.HOLD_BYTES + (long) WINDOW_FRAMES * FRAME;
        long budget = uploads * perUpload + 2L * 1024 * 1024;
        factory.setMaxBufferedBytes(budget);
        // Every upload comes from 127.0.0.1: the per-address share of the streams' reservations is not under test.
        factory.setMaxConnectionsPerAddress(0);
        factory.setMaxHandshakesPerAddress(0);
        int length = 24 * 1024 * 1024;
        List<CompletableFuture<String>> unread = new ArrayList<>();
        for (int i = 0; i < uploads; i++) {
            unread.add(upload("/unread", length, "u" + i));
        }
        awaitBufferedAtLeast(uploads * (long) RequestBody.HOLD_BYTES);
        assertEquals("200 " + length, upload("/read", length, "r").get(40, TimeUnit.SECONDS),
                "the reading servlet's upload, while " + uploads + " others are not read");
        answerUnread.countDown();
        for (CompletableFuture<String> f : unread) {
            assertEquals("200 unread", f.get(40, TimeUnit.SECONDS));
        }
        long seen = factory.getServerBudget().getMaxBufferedBytesSeen();
        assertTrue(seen <= budget, "buffered " + seen + " bytes at most, budget " + budget);
        awaitBufferedZero();
    }

    @Test
    void pastTheByteBudgetNoCreditIsGrantedUntilBytesAreGivenBack() throws Exception {
        start();
        long budget = 512L * 1024; // less than the unread threshold of three uploads together
        factory.setMaxBufferedBytes(budget);
        int uploads = 3;
        List<CompletableFuture<String>> unread = new ArrayList<>();
        for (int i = 0; i < uploads; i++) {
            unread.add(upload("/unread", 8 * 1024 * 1024, "u" + i));
        }
        Eventually.within(20, factory.getServerBudget()::isExhausted, () -> "three unread uploads did not use up the"
                + " budget: " + factory.getServerBudget().getBufferedBytes() + " bytes");
        // A new connection gets no credit while the budget is used up (the AMQP way to say "not now").
        try (Connection late = connect()) {
            org.apache.qpid.protonj2.client.Sender sender = late.openSender("/read");
            sender.openFuture().get(10, TimeUnit.SECONDS);
            // The server grants a link its first credit as it answers the attach, in the same write: once the answer
            // to a later attach on this connection is in, the client has seen any credit the sender was given.
            late.openDynamicReceiver().openFuture().get(10, TimeUnit.SECONDS);
            assertEquals(null, sender.trySend(Message.create(new byte[10]).subject("POST")),
                    "credit was granted with the budget used up");
            answerUnread.countDown(); // the servlets answer, the rest of their bodies is dropped: bytes come back
            org.apache.qpid.protonj2.client.Tracker sent = null;
            long creditDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (sent == null && System.nanoTime() < creditDeadline) {
                sent = sender.trySend(Message.create(new byte[10]).subject("POST"));
                Thread.sleep(10);
            }
            assertNotNull(sent, "no credit once the budget had room again");
        }
        for (CompletableFuture<String> f : unread) {
            // Released: it began on credit granted just before the budget ran out, and was refused at its head.
            String outcome = f.get(40, TimeUnit.SECONDS);
            assertTrue(outcome.equals("200 unread") || outcome.equals("released"), outcome);
        }
        // What was already in memory may pass the budget by the windows open when it ran out (AMQP 1.0 §2.5.6).
        long bound = budget + uploads * (RequestBody.HOLD_BYTES + (long) WINDOW_FRAMES * FRAME);
        long seen = factory.getServerBudget().getMaxBufferedBytesSeen();
        assertTrue(seen <= bound, "buffered " + seen + " bytes at most, bound " + bound);
        awaitBufferedZero();
    }

    @Test
    void theSessionsOfOneConnectionCannotTakeTheServerPastTwiceItsBudget() throws Exception {
        // Each session's window lets its frames in whether or not the budget has room: without a reservation of what
        // the windows may still bring, one connection's sessions could each buffer a window's worth (half a window
        // and the unread threshold, measured) however small the budget.
        start();
        long budget = 4L * 1024 * 1024;
        factory.setMaxBufferedBytes(budget);
        factory.setMaxConnectionsPerAddress(0); // the per-address share is the next test's
        factory.setMaxHandshakesPerAddress(0);
        int sessions = 24;
        int length = 4 * 1024 * 1024;
        Connection c = connect();
        List<StreamSender> senders = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            StreamSender sender = c.openStreamSender("/unread"); // a session of its own each
            sender.openFuture().get(10, TimeUnit.SECONDS);
            senders.add(sender);
        }
        List<CompletableFuture<String>> outcomes = new ArrayList<>();
        for (StreamSender sender : senders) {
            outcomes.add(streamPost(sender, length));
        }
        long perStream = (long) WINDOW_FRAMES * FRAME;
        Eventually.within(20, () -> factory.getRequestsReleased() >= sessions - budget / perStream,
                () -> "released " + factory.getRequestsReleased() + " of " + sessions + ", buffered "
                        + factory.getServerBudget().getBufferedBytes() + " bytes with a budget of " + budget);
        assertEquals(budget, factory.getServerBudget().getStreamWindowBytesReserved(), "one window each, within it");
        answerUnread.countDown(); // the admitted requests are answered: the rest of their bodies is dropped
        int released = 0;
        for (CompletableFuture<String> f : outcomes) {
            String outcome = f.get(60, TimeUnit.SECONDS);
            assertTrue(outcome.equals("accepted") || outcome.equals("released"), outcome);
            released += outcome.equals("released") ? 1 : 0;
        }
        assertEquals(sessions - budget / perStream, released, "a reservation of one window each, within the budget");
        long seen = factory.getServerBudget().getMaxBufferedBytesSeen();
        // Twice the budget, and a frame being read with the engine's working buffers.
        long bound = 2 * budget + FRAME + io.amqpservlet.connector.engine.Engine.SCRATCH_BYTES;
        assertTrue(seen <= bound, "buffered " + seen + " bytes at most, bound " + bound);
        c.close();
        awaitBufferedZero();
        assertEquals(0, factory.getServerBudget().getStreamWindowBytesReserved());
    }

    @Test
    void oneSourceAddressReservesAtMostHalfOfWhatTheStreamsMay() throws Exception {
        start();
        long budget = 4L * 1024 * 1024;
        factory.setMaxBufferedBytes(budget); // the per-address limits on, as by default
        int sessions = 8;
        Connection c = connect();
        List<CompletableFuture<String>> outcomes = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            StreamSender sender = c.openStreamSender("/unread");
            sender.openFuture().get(10, TimeUnit.SECONDS);
            // Larger than what arrives before the servlet would have to read: the stream stays open.
            outcomes.add(streamPost(sender, 4 * 1024 * 1024));
        }
        long perStream = (long) WINDOW_FRAMES * FRAME;
        long admitted = budget / 2 / perStream; // 127.0.0.1's half of the reservations
        Eventually.within(20, () -> factory.getRequestsReleased() == sessions - admitted,
                () -> "released " + factory.getRequestsReleased() + " of " + sessions);
        assertEquals(admitted * perStream, factory.getServerBudget().getStreamWindowBytesReserved());
        assertEquals(sessions - admitted, factory.getServerBudget().getStreamsRefusedPerAddress());
        answerUnread.countDown();
        for (CompletableFuture<String> f : outcomes) {
            String outcome = f.get(60, TimeUnit.SECONDS);
            assertTrue(outcome.equals("accepted") || outcome.equals("released"), outcome);
        }
        c.close();
        Eventually.until(() -> factory.getServerBudget().getStreamWindowBytesReserved() == 0,
                () -> "still reserved: " + factory.getServerBudget().getStreamWindowBytesReserved());
    }

    @Test
    void wholeRequestsAServletHoldsCountInTheBudgetAndThoseBeyondItAreReleased() throws Exception {
        // Bodies that came in one frame each, held by an asynchronous servlet (no thread kept): without counting them
        // one connection held 63 MiB of them while the budget counted nothing.
        start();
        long budget = 2L * 1024 * 1024;
        factory.setMaxBufferedBytes(budget);
        factory.setMaxConnectionsPerAddress(0); // the server-wide budget: one address has half of it otherwise
        factory.setMaxHandshakesPerAddress(0);
        int messages = 100;
        int length = 60_000;
        try (Connection c = connect()) {
            org.apache.qpid.protonj2.client.Sender sender = c.openSender("/hold");
            for (int i = 0; i < messages; i++) {
                sender.send(Message.create(new byte[length]).subject("POST"));
            }
            // A request is admitted while the budget has room: the one that reaches it is the last. (A frame still
            // arriving counts too while it does, so one or two fewer may be admitted.) Each counts its body and what
            // it costs beside it, and its delivery, unsettled while it is held, once the engine pass ends (so those
            // of the last pass may come on top).
            long each = length + BudgetShare.EXCHANGE_BYTES + BudgetShare.DELIVERY_BYTES;
            long admitted = (budget + each - 1) / each;
            long beforeDeliveries = (budget + each - BudgetShare.DELIVERY_BYTES - 1)
                    / (each - BudgetShare.DELIVERY_BYTES);
            Eventually.within(20, () -> held.size() + factory.getRequestsReleased() == messages,
                    () -> held.size() + " held, " + factory.getRequestsReleased() + " released of " + messages);
            int served = held.size();
            assertTrue(served >= admitted - 2 && served <= beforeDeliveries, served + " served, " + admitted + " fit");
            long requestBytes = length + BudgetShare.EXCHANGE_BYTES; // the rest is the connection's protocol state
            AmqpServerBudget b = factory.getServerBudget();
            Eventually.until(() -> b.getBufferedBytes() - b.getProtocolStateBytes() == served * requestBytes,
                    () -> "buffered " + (b.getBufferedBytes() - b.getProtocolStateBytes()) + ", held "
                            + served * requestBytes);
            AsyncContext async;
            while ((async = held.poll()) != null) {
                ((HttpServletResponse) async.getResponse()).setStatus(204);
                async.complete();
            }
            awaitBufferedZero();
        }
    }

    @Test
    void requestsAServletHoldsAfterTheirClientLeftCountUntilTheyAreDone() throws Exception {
        // Without it a client that closed its connections while a servlet held their requests got the budget back
        // at once, and opened new ones: a few rounds took a 256 MiB gateway out of memory.
        start();
        int requests = 10;
        int length = 60_000;
        long each = length + BudgetShare.EXCHANGE_BYTES;
        try (Connection c = connect()) {
            org.apache.qpid.protonj2.client.Sender sender = c.openSender("/hold");
            for (int i = 0; i < requests; i++) {
                sender.send(Message.create(new byte[length]).subject("POST"));
            }
            Eventually.until(() -> held.size() == requests, () -> held.size() + " held");
        }
        awaitConnections(0);
        Eventually.until(() -> factory.getServerBudget().getBufferedBytes() == requests * each,
                () -> "the client left; counted " + factory.getServerBudget().getBufferedBytes() + ", held "
                        + requests * each);
        assertEquals(1, factory.getServerBudget().getSourceAddresses(),
                "its address is remembered while its requests are held: they count in its share");
        AsyncContext async;
        while ((async = held.poll()) != null) {
            async.complete();
        }
        awaitBufferedZero();
        Eventually.until(() -> factory.getServerBudget().getSourceAddresses() == 0,
                () -> factory.getServerBudget().getSourceAddresses() + " addresses remembered");
    }

    @Test
    void aBodyKeptWholeCountsWhileItArrivesAndOneOverTheBudgetIsReleased() throws Exception {
        // An amqp-value body is kept whole until its last frame (it is not streamed): its bytes count as they come,
        // so one larger than the budget is released rather than kept uncounted.
        start();
        factory.setMaxBufferedBytes(1024 * 1024);
        try (Connection c = connect()) {
            Receiver replies = c.openDynamicReceiver();
            org.apache.qpid.protonj2.client.Sender sender = c.openSender("/read");
            org.apache.qpid.protonj2.client.Tracker large = sender.send(Message.create("a".repeat(3 * 1024 * 1024))
                    .subject("POST").replyTo(replies.address()));
            large.awaitSettlement(30, TimeUnit.SECONDS);
            assertEquals(DeliveryState.Type.RELEASED, large.remoteState().getType());
            awaitBufferedZero();
            org.apache.qpid.protonj2.client.Tracker small = sender.send(Message.create("a".repeat(200_000))
                    .subject("POST").replyTo(replies.address()));
            small.awaitSettlement(30, TimeUnit.SECONDS);
            assertEquals(DeliveryState.Type.ACCEPTED, small.remoteState().getType());
            Delivery response = replies.receive(30, TimeUnit.SECONDS);
            assertNotNull(response);
            assertEquals("200", response.message().subject());
            awaitBufferedZero();
        }
    }

    /** Streams a POST of {@code length} bytes on {@code sender}: its outcome ({@code accepted}, {@code released}). */
    private static CompletableFuture<String> streamPost(StreamSender sender, int length) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                StreamSenderMessage message = sender.beginMessage();
                message.subject("POST");
                byte[] block = new byte[FRAME];
                try (OutputStream out = message.body(new OutputStreamOptions().bodyLength(length))) {
                    for (int at = 0; at < length; at += block.length) {
                        out.write(block);
                    }
                }
                StreamTracker tracker = message.tracker();
                tracker.awaitSettlement(60, TimeUnit.SECONDS);
                return tracker.remoteState().getType().name().toLowerCase();
            } catch (Exception e) {
                return "failed: " + e;
            }
        });
    }

    private void awaitBufferedAtLeast(long bytes) throws Exception {
        Eventually.within(20, () -> factory.getServerBudget().getBufferedBytes() >= bytes,
                () -> "the uploads never filled their holds: " + factory.getServerBudget().getBufferedBytes());
    }

    @Test
    void oneSourceAddressBuffersAtMostHalfTheBudgetAndAnotherIsServedBeside() throws Exception {
        // Clients of 127.0.0.1 that grant their reply links no credit: their responses wait in the server. Without a
        // share per address they used the whole budget up, and a client of 127.0.0.2 was refused credit.
        start();
        long budget = 16L * 1024 * 1024;
        factory.setMaxBufferedBytes(budget);
        int connections = 64;
        int requests = 100;
        int length = 30_000;
        List<Connection> open = new ArrayList<>();
        List<org.apache.qpid.protonj2.client.Sender> senders = new ArrayList<>();
        List<String> replyTo = new ArrayList<>();
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, ServerBudget.class.getName())) {
            for (int i = 0; i < connections; i++) {
                Connection c = connect();
                open.add(c);
                Receiver replies = c.openDynamicReceiver(new ReceiverOptions().creditWindow(0));
                replies.openFuture().get(10, TimeUnit.SECONDS);
                org.apache.qpid.protonj2.client.Sender sender = c.openSender("/big?bytes=" + length);
                sender.openFuture().get(10, TimeUnit.SECONDS);
                senders.add(sender);
                replyTo.add(replies.address());
            }
            int sent = 0;
            for (int i = 0; i < connections; i++) {
                for (int r = 0; r < requests; r++) {
                    if (senders.get(i).trySend(Message.create().subject("GET").replyTo(replyTo.get(i))) == null) {
                        break; // no credit left: the server stopped granting it
                    }
                    sent++;
                }
            }
            long all = sent;
            Eventually.within(30, () -> factory.getRequestsServed() + factory.getRequestsReleased() == all,
                    () -> factory.getRequestsServed() + " served, " + factory.getRequestsReleased() + " released of "
                            + all);
            String line = log.await("AMQP requests from 127.0.0.1 released: its connections buffer ");
            assertTrue(line.contains("INFO") && line.contains("half the byte budget (maxBufferedBytes 16777216)"),
                    line);
            assertTrue(factory.getServerBudget().getRequestsReleasedPerAddress() > 0,
                    "127.0.0.1's requests past its share were released: " + factory.getRequestsReleased()
                            + " released, none for its address; buffered " + factory.getServerBudget()
                            .getBufferedBytes());

            // Meanwhile a client of 127.0.0.2 gets credit and its answer.
            ConnectionOptions options = new ConnectionOptions();
            options.transportOptions().localAddress("127.0.0.2");
            try (Connection other = client.connect("127.0.0.1", connector.getLocalPort(), options)) {
                Receiver replies = other.openDynamicReceiver();
                org.apache.qpid.protonj2.client.Sender sender = other.openSender("/big?bytes=1000",
                        new SenderOptions().sendTimeout(10_000));
                Tracker request = sender.send(Message.create().subject("GET").replyTo(replies.address()));
                Delivery answer = replies.receive(10, TimeUnit.SECONDS);
                assertNotNull(answer, "no answer for 127.0.0.2 while 127.0.0.1 buffers "
                        + factory.getServerBudget().getBufferedBytes() + " of " + budget);
                assertEquals("200", answer.message().subject());
                assertTrue(request.awaitSettlement(10, TimeUnit.SECONDS).remoteState().isAccepted());
            }
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        awaitBufferedZero();
    }

    /** Nothing counted but what the open connections' sessions, links and unsettled deliveries count. */
    private void awaitBufferedZero() throws Exception {
        AmqpServerBudget b = factory.getServerBudget();
        Eventually.until(() -> b.getBufferedBytes() == b.getProtocolStateBytes(),
                () -> "not every buffered byte was given back: "
                        + (b.getBufferedBytes() - b.getProtocolStateBytes()));
    }

    /** One connection streaming {@code length} bytes to {@code path}: "STATUS body" of the response, or the outcome. */
    private CompletableFuture<String> upload(String path, int length, String id) {
        return CompletableFuture.supplyAsync(() -> {
            try (Connection c = connect()) {
                Receiver replies = c.openDynamicReceiver();
                String replyTo = replies.address();
                StreamSender sender = c.openStreamSender(path);
                StreamSenderMessage message = sender.beginMessage();
                message.subject("POST").messageId(id).replyTo(replyTo);
                byte[] block = new byte[32 * 1024];
                try (OutputStream out = message.body(new OutputStreamOptions().bodyLength(length))) {
                    for (int at = 0; at < length; at += block.length) {
                        out.write(block, 0, Math.min(block.length, length - at));
                    }
                }
                StreamTracker tracker = message.tracker();
                tracker.awaitSettlement(60, TimeUnit.SECONDS);
                DeliveryState.Type type = tracker.remoteState().getType();
                if (type != DeliveryState.Type.ACCEPTED) {
                    return type.name().toLowerCase();
                }
                Delivery response = replies.receive(30, TimeUnit.SECONDS);
                assertNotNull(response, "no response to " + id);
                Message<Object> m = response.message();
                Object body = m.body();
                String text = body instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
                        : String.valueOf(body);
                return m.subject() + " " + text;
            } catch (Exception e) {
                throw new IllegalStateException(id + " failed", e);
            }
        });
    }
}
