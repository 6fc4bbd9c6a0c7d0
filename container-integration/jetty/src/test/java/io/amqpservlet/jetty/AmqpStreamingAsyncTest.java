package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
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
import org.apache.qpid.protonj2.client.StreamReceiverOptions;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.apache.qpid.protonj2.client.Tracker;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
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
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Streaming with async servlets (a ReadListener fed by the streamed body) and the failure of a response that has
 * started to stream (aborted on the wire, the request modified), with protonj2-client 1.1.0.
 */
@Timeout(60)
class AmqpStreamingAsyncTest {
    private Server server;
    private ServerConnector connector;
    private Client client;

    private static byte pattern(long i) {
        return (byte) (i * 31 + (i / 251));
    }

    /** Reads the body with a ReadListener (non-blocking), then answers with its length and CRC. */
    static final class AsyncCounter extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            AsyncContext async = request.startAsync();
            ServletInputStream in = request.getInputStream();
            in.setReadListener(new ReadListener() {
                private final byte[] buffer = new byte[8192];
                private final CRC32 crc = new CRC32();
                private long count;

                @Override
                public void onDataAvailable() throws IOException {
                    while (in.isReady()) {
                        int n = in.read(buffer);
                        if (n < 0) {
                            return;
                        }
                        crc.update(buffer, 0, n);
                        count += n;
                    }
                }

                @Override
                public void onAllDataRead() {
                    response.setHeader("x-count", Long.toString(count));
                    response.setHeader("x-crc", Long.toString(crc.getValue()));
                    async.complete();
                }

                @Override
                public void onError(Throwable t) {
                    response.setStatus(500);
                    async.complete();
                }
            });
        }
    }

    /**
     * Declares 2 MiB, writes 1 MiB, then fails once the client has the response's first transfer
     * ({@link #clientHasTheResponse}): a flush completes when the bytes are queued for the engine, and a response
     * that failed before its first transfer left is dropped whole, not aborted.
     */
    static final class FailsMidway extends HttpServlet {
        static volatile CountDownLatch clientHasTheResponse = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response)
                throws IOException, ServletException {
            response.setContentLengthLong(2 * 1024 * 1024);
            ServletOutputStream out = response.getOutputStream();
            byte[] block = new byte[64 * 1024];
            for (int i = 0; i < 16; i++) {
                out.write(block);
            }
            out.flush();
            try {
                clientHasTheResponse.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new ServletException("failing after 1 MiB (expected by the test)");
        }
    }

    /** Never reads its body; sleeps past the request timeout. */
    static final class IgnoresBody extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            try {
                Thread.sleep(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final java.util.concurrent.CountDownLatch WRITER_DONE = new java.util.concurrent.CountDownLatch(1);
    private static final java.util.concurrent.atomic.AtomicReference<Throwable> WRITER_FAILURE =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Writes 5 MiB with Content-Length; records how its writing ended. */
    static final class Writer extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentLengthLong(5 * 1024 * 1024);
            try {
                ServletOutputStream out = response.getOutputStream();
                byte[] block = new byte[64 * 1024];
                for (int i = 0; i < 80; i++) {
                    out.write(block);
                }
            } catch (IOException | RuntimeException e) {
                WRITER_FAILURE.set(e);
                throw e;
            } finally {
                WRITER_DONE.countDown();
            }
        }
    }

    private void start(long requestTimeoutMillis) throws Exception {
        server = new Server();
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).sessionIncomingWindowFrames(16);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(), engine);
        factory.setRequestTimeout(requestTimeoutMillis);
        connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new AsyncCounter()), "/count");
        context.addServlet(new ServletHolder(new FailsMidway()), "/fails");
        context.addServlet(new ServletHolder(new IgnoresBody()), "/ignores");
        context.addServlet(new ServletHolder(new Writer()), "/writer");
        server.setHandler(context);
        server.start();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
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

    @Test
    void aServletWritingToAClientThatLeavesGetsAFailedWriteNotAHang() throws Exception {
        start(0); // no request timeout: only the connection's end can free the writer
        Connection connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        StreamReceiver replies = connection.openStreamReceiver("writer-replies",
                new StreamReceiverOptions().creditWindow(1).readBufferSize(64 * 1024));
        replies.openFuture().get(10, TimeUnit.SECONDS);
        connection.openSender("/writer").send(Message.create("").subject("GET").replyTo("writer-replies"));
        assertNotNull(replies.receive(30, TimeUnit.SECONDS), "the response started");
        Thread.sleep(300);
        assertEquals(1, WRITER_DONE.getCount(), "the writer waits for the client, which reads nothing");
        client.close(); // the client goes away with the response half sent
        client = null;
        assertTrue(WRITER_DONE.await(10, TimeUnit.SECONDS), "the blocked write ended");
        assertNotNull(WRITER_FAILURE.get(), "and it failed");
    }

    @Test
    void aRequestWhoseServletNeitherReadsNorAnswersIs503AndReleasedOnceItsBodyIsIn() throws Exception {
        start(500);
        Connection connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        StreamSender sender = connection.openStreamSender("/ignores");
        StreamSenderMessage request = sender.beginMessage();
        request.subject("POST").messageId("ignored").replyTo(replyTo);
        int length = 4 * 1024 * 1024;
        try (OutputStream out = request.body(new OutputStreamOptions().bodyLength(length))) {
            byte[] block = new byte[64 * 1024];
            for (int at = 0; at < length; at += block.length) {
                out.write(block); // blocks on the held window until the timeout lets the body drain
            }
        }
        Delivery delivery = replies.receive(30, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response");
        assertEquals("503", delivery.message().subject());
        request.tracker().awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.RELEASED, request.tracker().remoteState().getType());
    }

    @Test
    void anAsyncReadListenerGetsAStreamedBodyAsItArrives() throws Exception {
        start(30_000);
        Connection connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        Receiver replies = connection.openDynamicReceiver();
        String replyTo = replies.address();
        StreamSender sender = connection.openStreamSender("/count");
        int length = 3 * 1024 * 1024;
        StreamSenderMessage request = sender.beginMessage();
        request.subject("POST").messageId("async").replyTo(replyTo);
        CRC32 crc = new CRC32();
        byte[] block = new byte[40_000];
        try (OutputStream out = request.body(new OutputStreamOptions())) { // a data section per flush
            for (int at = 0; at < length; ) {
                int n = Math.min(block.length, length - at);
                for (int i = 0; i < n; i++) {
                    block[i] = pattern(at + i);
                }
                out.write(block, 0, n);
                crc.update(block, 0, n);
                at += n;
            }
        }
        Delivery delivery = replies.receive(30, TimeUnit.SECONDS);
        assertNotNull(delivery, "no response");
        Message<Object> response = delivery.message();
        assertEquals("200", response.subject());
        assertEquals(Integer.toString(length), response.property("x-count"));
        assertEquals(Long.toString(crc.getValue()), response.property("x-crc"));
        request.tracker().awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.ACCEPTED, request.tracker().remoteState().getType());
    }

    @Test
    void aStreamedResponseThatFailsIsAbortedAndItsRequestModified() throws Exception {
        start(30_000);
        Connection connection = client.connect("127.0.0.1", connector.getLocalPort(), new ConnectionOptions());
        StreamReceiver replies = connection.openStreamReceiver("fail-replies",
                new StreamReceiverOptions().creditWindow(10));
        replies.openFuture().get(10, TimeUnit.SECONDS);
        Sender sender = connection.openSender("/fails");
        FailsMidway.clientHasTheResponse = new CountDownLatch(1);
        Tracker tracker = sender.send(Message.create("").subject("GET").messageId("f-1").replyTo("fail-replies"));
        StreamDelivery delivery = replies.receive(30, TimeUnit.SECONDS);
        assertNotNull(delivery, "the response started to stream");
        FailsMidway.clientHasTheResponse.countDown();
        boolean failed = false;
        // The abort may surface while the body is read, or before it is opened: either way the read fails.
        try (InputStream body = delivery.message().body()) {
            byte[] buffer = new byte[64 * 1024];
            while (body.read(buffer) >= 0) {
                // read until the abort surfaces
            }
        } catch (IOException | org.apache.qpid.protonj2.client.exceptions.ClientException e) {
            failed = true;
        }
        assertTrue(failed, "the body could not be read whole");
        assertTrue(delivery.aborted(), "the partial response was aborted (AMQP 1.0 §2.6.14)");
        tracker.awaitSettlement(10, TimeUnit.SECONDS);
        assertEquals(DeliveryState.Type.MODIFIED, tracker.remoteState().getType());
    }
}
