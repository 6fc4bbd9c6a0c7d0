package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.exchange.RequestBody;
import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
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
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.StreamDelivery;
import org.apache.qpid.protonj2.client.StreamReceiver;
import org.apache.qpid.protonj2.client.StreamReceiverMessage;
import org.apache.qpid.protonj2.client.StreamReceiverOptions;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.apache.qpid.protonj2.client.Tracker;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request bodies stream into servlets as their frames arrive, with memory bounded by flow control, and a servlet
 * that takes too long is answered 503 with its request released; all with protonj2-client 1.1.0 over real sockets.
 */
@Timeout(120)
class AmqpStreamingTest {
    private static final int FRAME = 64 * 1024;
    private static final int WINDOW_FRAMES = 64;

    private Server server;
    private ServerConnector connector;
    private Client client;
    private final CountDownLatch readGate = new CountDownLatch(1);
    private final CountDownLatch reading = new CountDownLatch(1);
    private final AtomicLong bytesSeenBeforeFirstRead = new AtomicLong(-1);

    private static byte pattern(long i) {
        return (byte) (i * 31 + (i / 251));
    }

    /** Writes back every block as soon as it has read it. */
    static final class EchoWhileReading extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("application/octet-stream");
            ServletInputStream in = request.getInputStream();
            ServletOutputStream out = response.getOutputStream();
            byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        }
    }

    /** Starts before the body has arrived, waits for the test's gate, then counts and checksums the body. */
    final class LateReader extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            reading.countDown();
            try {
                assertTrue(readGate.await(60, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            ServletInputStream in = request.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long count = 0;
            CRC32 crc = new CRC32();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                crc.update(buffer, 0, n);
                count += n;
            }
            response.setHeader("x-count", Long.toString(count));
            response.setHeader("x-crc", Long.toString(crc.getValue()));
        }
    }

    /** Never answers: an async request nobody completes. */
    static final class NeverAnswers extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) {
            AsyncContext async = request.startAsync();
            async.setTimeout(0); // only the connector's request timeout ends it
        }
    }

    /** Blocks its thread for longer than the request timeout, then tries to answer 200. */
    static final class TooSlow extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            try {
                Thread.sleep(1_500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.getWriter().write("late");
        }
    }

    private final AtomicLong responseBytesWritten = new AtomicLong();

    /** GET: {@code x-bytes} pattern bytes in 64 KiB writes, with Content-Length when {@code x-length} is set. */
    final class BigResponse extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            int n = Integer.parseInt(request.getHeader("x-bytes"));
            response.setContentType("application/octet-stream");
            if (request.getHeader("x-length") != null) {
                response.setContentLengthLong(n);
            }
            ServletOutputStream out = response.getOutputStream();
            byte[] block = new byte[64 * 1024];
            for (int written = 0; written < n; ) {
                int len = Math.min(block.length, n - written);
                for (int i = 0; i < len; i++) {
                    block[i] = pattern(written + i);
                }
                out.write(block, 0, len);
                written += len;
                responseBytesWritten.set(written);
            }
        }
    }

    private void start(long requestTimeoutMillis) throws Exception {
        start(requestTimeoutMillis, AmqpConnectionFactory.DEFAULT_RESPONSE_BUFFER_BYTES);
    }

    private void start(long requestTimeoutMillis, int responseBufferBytes) throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).maxMessageSizeBytes(128 * 1024 * 1024)
                .maxFrameSizeBytes(FRAME).sessionIncomingWindowFrames(WINDOW_FRAMES);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(), engine);
        factory.setRequestTimeout(requestTimeoutMillis);
        factory.setResponseBufferSize(responseBufferBytes);
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new EchoWhileReading()), "/echo");
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/all");
        context.addServlet(new ServletHolder(new LateReader()), "/late");
        context.addServlet(new ServletHolder(new NeverAnswers()), "/never");
        context.addServlet(new ServletHolder(new TooSlow()), "/slow");
        context.addServlet(new ServletHolder(new BigResponse()), "/big");
        server.setHandler(context);
        server.start();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        readGate.countDown();
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

    private int port() {
        return connector.getLocalPort();
    }

    private AmqpConnection serverConnection() {
        for (EndPoint endPoint : connector.getConnectedEndPoints()) {
            if (endPoint.getConnection() instanceof AmqpConnection) {
                return (AmqpConnection) endPoint.getConnection();
            }
        }
        throw new AssertionError("no AMQP connection on the server");
    }

    /** Streams {@code length} pattern bytes as the body of a request; counts what the client managed to write. */
    private static void writeBody(StreamSenderMessage message, long length, boolean oneSection, AtomicLong written)
            throws Exception {
        OutputStreamOptions options = new OutputStreamOptions();
        if (oneSection) {
            options.bodyLength((int) length);
        }
        byte[] block = new byte[32 * 1024];
        try (OutputStream out = message.body(options)) {
            for (long at = 0; at < length; ) {
                int n = (int) Math.min(block.length, length - at);
                for (int i = 0; i < n; i++) {
                    block[i] = pattern(at + i);
                }
                out.write(block, 0, n);
                at += n;
                written.set(at);
            }
        }
    }

    @Test
    void fiveMebibytesStreamToAServletThatEchoesWhileReading() throws Exception {
        start(60_000);
        Connection connection = client.connect("127.0.0.1", port(), new ConnectionOptions());
        StreamReceiver replies = connection.openStreamReceiver("echo-replies",
                new StreamReceiverOptions().creditWindow(1));
        replies.openFuture().get(10, TimeUnit.SECONDS);
        StreamSender sender = connection.openStreamSender("/echo");
        int length = 5 * 1024 * 1024;
        StreamSenderMessage request = sender.beginMessage();
        request.subject("POST").messageId("big-echo").replyTo("echo-replies");
        writeBody(request, length, true, new AtomicLong());

        StreamDelivery delivery = replies.receive(30, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response");
        StreamReceiverMessage response = delivery.message();
        assertEquals("200", response.subject());
        assertEquals("big-echo", response.correlationId());
        long count = 0;
        try (InputStream body = response.body()) {
            byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = body.read(buffer)) >= 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] != pattern(count + i)) {
                        throw new AssertionError("response byte " + (count + i) + " differs");
                    }
                }
                count += n;
            }
        }
        assertEquals(length, count);
        delivery.accept();
        request.tracker().awaitSettlement(10, TimeUnit.SECONDS);
        assertInstanceOf(DeliveryState.class, request.tracker().remoteState());
        assertEquals(DeliveryState.Type.ACCEPTED, request.tracker().remoteState().getType());
    }

    @Test
    void aServletThatReadsAllBytesFirstGetsTheWholeStreamedBody() throws Exception {
        start(60_000);
        Connection connection = client.connect("127.0.0.1", port(), new ConnectionOptions());
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        StreamSender sender = connection.openStreamSender("/all");
        int length = 5 * 1024 * 1024;
        StreamSenderMessage request = sender.beginMessage();
        request.subject("POST").messageId("all").replyTo(replyTo);
        long began = System.nanoTime();
        writeBody(request, length, true, new AtomicLong());
        Delivery delivery = replies.receive(30, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response");
        assertEquals("200", delivery.message().subject());
        byte[] body = (byte[]) delivery.message().body();
        assertEquals(length, body.length);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began) < 10_000, "no stall");
    }

    @Test
    void aServletThatDoesNotReadStopsTheSenderThenReadsEverything() throws Exception {
        start(120_000);
        Connection connection = client.connect("127.0.0.1", port(), new ConnectionOptions());
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        StreamSender sender = connection.openStreamSender("/late");
        long length = 64L * 1024 * 1024;
        AtomicLong written = new AtomicLong();
        AtomicReference<Throwable> sendFailure = new AtomicReference<>();
        StreamSenderMessage request = sender.beginMessage();
        request.subject("POST").messageId("lazy").replyTo(replyTo);
        Thread writer = new Thread(() -> {
            try {
                writeBody(request, length, false, written);
            } catch (Throwable t) {
                sendFailure.set(t);
            }
        }, "streaming-writer");
        writer.start();
        try {
            assertTrue(reading.await(30, TimeUnit.SECONDS), "the servlet runs before the body has arrived");
            // Wait until the client can write no more: its writes block on the session window we hold.
            long last = -1;
            long stableSince = System.nanoTime();
            while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stableSince) < 1_000) {
                long now = written.get();
                if (now != last) {
                    last = now;
                    stableSince = System.nanoTime();
                }
                Thread.sleep(50);
                assertTrue(writer.isAlive() || sendFailure.get() != null, "the whole body went out unread");
            }
            long bound = (long) WINDOW_FRAMES * FRAME + RequestBody.HOLD_BYTES;
            long buffered = serverConnection().getMaxBufferedRequestBytes();
            assertTrue(buffered <= bound, "server buffered " + buffered + " bytes, bound " + bound);
            assertTrue(written.get() < 16L * 1024 * 1024, "the client wrote " + written.get()
                    + " bytes of 64 MiB while the servlet read nothing");
            assertTrue(writer.isAlive(), "the client's write blocks");
        } finally {
            readGate.countDown();
        }
        writer.join(60_000);
        assertEquals(null, sendFailure.get());
        Delivery delivery = replies.receive(60, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response");
        Message<Object> response = delivery.message();
        assertEquals("200", response.subject());
        assertEquals(Long.toString(length), response.property("x-count"));
        CRC32 crc = new CRC32();
        byte[] block = new byte[64 * 1024];
        for (long at = 0; at < length; at += block.length) {
            for (int i = 0; i < block.length; i++) {
                block[i] = pattern(at + i);
            }
            crc.update(block, 0, (int) Math.min(block.length, length - at));
        }
        assertEquals(Long.toString(crc.getValue()), response.property("x-crc"));
        long bound = (long) WINDOW_FRAMES * FRAME + RequestBody.HOLD_BYTES;
        assertTrue(serverConnection().getMaxBufferedRequestBytes() <= bound);
    }

    private static long readPattern(InputStream body) throws IOException {
        long count = 0;
        byte[] buffer = new byte[64 * 1024];
        int n;
        while ((n = body.read(buffer)) >= 0) {
            for (int i = 0; i < n; i++) {
                if (buffer[i] != pattern(count + i)) {
                    throw new AssertionError("response byte " + (count + i) + " differs");
                }
            }
            count += n;
        }
        return count;
    }

    private void bigResponseToASlowReader(boolean contentLength) throws Exception {
        Connection connection = client.connect("127.0.0.1", port(), new ConnectionOptions());
        StreamReceiver replies = connection.openStreamReceiver("big-replies",
                new StreamReceiverOptions().creditWindow(1).readBufferSize(64 * 1024));
        replies.openFuture().get(10, TimeUnit.SECONDS);
        Sender sender = connection.openSender("/big");
        int length = 5 * 1024 * 1024;
        Message<String> request = Message.create("").subject("GET").messageId("big-1").replyTo("big-replies")
                .property("x-bytes", Integer.toString(length));
        if (contentLength) {
            request.property("x-length", "yes");
        }
        Tracker tracker = sender.send(request);
        StreamDelivery delivery = replies.receive(30, TimeUnit.SECONDS);
        assertNotNull(delivery, "the response starts before the servlet has written it all");
        // The client reads nothing for a while: the servlet's writes must stop, held by the client's window.
        long last = -1;
        long stableSince = System.nanoTime();
        while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stableSince) < 1_000) {
            long now = responseBytesWritten.get();
            if (now != last) {
                last = now;
                stableSince = System.nanoTime();
            }
            Thread.sleep(50);
        }
        assertTrue(responseBytesWritten.get() < 2 * 1024 * 1024, "the servlet wrote " + responseBytesWritten.get()
                + " of 5 MiB while the client read nothing");
        StreamReceiverMessage response = delivery.message();
        assertEquals("200", response.subject());
        assertEquals("big-1", response.correlationId());
        try (InputStream body = response.body()) {
            assertEquals(length, readPattern(body));
        }
        delivery.accept();
        tracker.awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.ACCEPTED, tracker.remoteState().getType());
    }

    @Test
    void aFiveMebibyteResponseWithContentLengthStreamsAsTheClientGrantsRoom() throws Exception {
        start(60_000);
        bigResponseToASlowReader(true);
    }

    @Test
    void aFiveMebibyteResponseWithoutContentLengthStreamsInDataSectionsBeyondTheBuffer() throws Exception {
        start(60_000, 256 * 1024);
        bigResponseToASlowReader(false);
    }

    @Test
    void qpidJmsGetsAStreamedResponseWholeAndStreamsARequest() throws Exception {
        start(60_000);
        java.util.Hashtable<String, String> env = new java.util.Hashtable<>();
        env.put(javax.naming.Context.INITIAL_CONTEXT_FACTORY, "org.apache.qpid.jms.jndi.JmsInitialContextFactory");
        env.put("connectionfactory.x", "amqp://127.0.0.1:" + port() + "?jms.validatePropertyNames=false");
        javax.naming.InitialContext jndi = new javax.naming.InitialContext(env);
        jakarta.jms.Connection jms = ((jakarta.jms.ConnectionFactory) jndi.lookup("x")).createConnection();
        try {
            jms.start();
            jakarta.jms.Session session = jms.createSession(false, jakarta.jms.Session.AUTO_ACKNOWLEDGE);
            jakarta.jms.TemporaryQueue replies = session.createTemporaryQueue();
            jakarta.jms.MessageConsumer consumer = session.createConsumer(replies);

            // A 5 MiB response with Content-Length streams as ONE data section, the only kind proton-j reads whole.
            jakarta.jms.MessageProducer big = session.createProducer(session.createQueue("/big"));
            jakarta.jms.BytesMessage request = session.createBytesMessage();
            request.setJMSType("GET");
            request.setJMSReplyTo(replies);
            request.setStringProperty("x-bytes", Integer.toString(5 * 1024 * 1024));
            request.setStringProperty("x-length", "yes");
            big.send(request);
            jakarta.jms.BytesMessage response = assertInstanceOf(jakarta.jms.BytesMessage.class,
                    consumer.receive(30_000));
            assertEquals("200", response.getJMSType());
            byte[] body = new byte[(int) response.getBodyLength()];
            response.readBytes(body);
            assertEquals(5 * 1024 * 1024, body.length);
            for (int i = 0; i < body.length; i++) {
                if (body[i] != pattern(i)) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }

            // A 600 KiB request spans many frames: it streams into the servlet, which echoes it (under the
            // response buffer, so one data section again).
            byte[] sent = new byte[600 * 1024];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = pattern(i);
            }
            jakarta.jms.MessageProducer echo = session.createProducer(session.createQueue("/echo"));
            jakarta.jms.BytesMessage post = session.createBytesMessage();
            post.writeBytes(sent);
            post.setJMSType("POST");
            post.setJMSReplyTo(replies);
            echo.send(post);
            jakarta.jms.BytesMessage echoed = assertInstanceOf(jakarta.jms.BytesMessage.class, consumer.receive(30_000));
            byte[] back = new byte[(int) echoed.getBodyLength()];
            echoed.readBytes(back);
            org.junit.jupiter.api.Assertions.assertArrayEquals(sent, back);
        } finally {
            jms.close();
            jndi.close();
        }
    }

    /** Calls {@code path}, which outlives the request timeout; returns the receiver the 503 came on. */
    private Receiver callExpectingTimeout(String path) throws Exception {
        Connection connection = client.connect("127.0.0.1", port(), new ConnectionOptions());
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        Sender sender = connection.openSender(path);
        long began = System.nanoTime();
        Tracker tracker = sender.send(Message.create("").subject("GET").messageId("slow-1").replyTo(replyTo));
        Delivery delivery = replies.receive(10, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response");
        assertEquals("503", delivery.message().subject());
        assertEquals("slow-1", delivery.message().correlationId());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began) >= 250);
        tracker.awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.RELEASED, tracker.remoteState().getType(), "a timed-out request is released");
        return replies;
    }

    @Test
    void anAsyncRequestNobodyCompletesIs503AndReleased() throws Exception {
        start(300);
        callExpectingTimeout("/never");
    }

    @Test
    void aBlockingServletThatOverrunsIs503AndReleasedAndItsLateAnswerGoesNowhere() throws Exception {
        start(300);
        Receiver replies = callExpectingTimeout("/slow");
        // The servlet sleeps on past the 503; its request ends only once it has returned and its 200 was dropped.
        AmqpConnection amqp = serverConnection();
        Eventually.until(() -> amqp.getActiveRequests() == 0,
                () -> amqp.getActiveRequests() + " requests still active");
        assertEquals(1, connector.getConnectionFactory(AmqpConnectionFactory.class).getLateResponses(),
                "the servlet's answer came after the 503");
        // Its 200 must not reach the client. Had it gone out, it would be ahead of the answer to a request sent on
        // the same connection now: so the next response is that answer.
        replies.connection().openSender("/all").send(Message.create("").subject("GET").messageId("after")
                .replyTo(replies.address()));
        Delivery next = replies.receive(10, TimeUnit.SECONDS);
        assertNotNull(next, "no response to the request after");
        assertEquals("after", next.message().correlationId(), "the late answer reached the client: "
                + next.message().subject());
    }
}
