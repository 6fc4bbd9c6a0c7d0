package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.exchange.RequestBody;
import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.OutputStreamOptions;
import org.apache.qpid.protonj2.client.StreamSender;
import org.apache.qpid.protonj2.client.StreamSenderMessage;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A measurement, not part of the build (run with {@code -Damqp.measure=true}): {@code amqp.uploads} clients (100 by
 * default) each stream a 100 MiB body to a servlet that never reads it, against the factory's defaults (16-frame
 * session window, 64 MiB byte budget); it reports the bytes the server buffers for them once they have all stalled.
 *
 * <pre>
 * mvn -B -ntp -pl container-integration/jetty -am verify -Dtest=AmqpUploadMemoryMeasurementTest \
 *     -Damqp.measure=true -Dsurefire.failIfNoSpecifiedTests=false -DskipITs -Djmeter.skip=true
 * </pre>
 */
@EnabledIfSystemProperty(named = "amqp.measure", matches = "true")
@Timeout(300)
class AmqpUploadMemoryMeasurementTest {
    private final CountDownLatch never = new CountDownLatch(1);

    /** Never reads; answers when the measurement is over. */
    final class NeverReads extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            try {
                never.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void concurrentUploadsToAServletThatDoesNotRead() throws Exception {
        int uploads = Integer.getInteger("amqp.uploads", 100);
        int length = 100 * 1024 * 1024;
        Server server = new Server(new org.eclipse.jetty.util.thread.QueuedThreadPool(uploads + 50));
        EngineConfig engine = new EngineConfig().anonymousAllowed(true).saslRequired(false)
                .sessionIncomingWindowFrames(AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES)
                .maxMessageSizeBytes(128L * 1024 * 1024);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(), engine);
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new NeverReads()), "/unread");
        server.setHandler(context);
        server.start();
        Client client = Client.create();
        List<Thread> writers = new ArrayList<>();
        try {
            for (int i = 0; i < uploads; i++) {
                Thread t = new Thread(() -> {
                    try {
                        Connection c = client.connect("127.0.0.1", connector.getLocalPort());
                        StreamSender sender = c.openStreamSender("/unread");
                        StreamSenderMessage m = sender.beginMessage();
                        m.subject("POST");
                        byte[] block = new byte[64 * 1024];
                        try (OutputStream out = m.body(new OutputStreamOptions().bodyLength(length))) {
                            for (int at = 0; at < length; at += block.length) {
                                out.write(block);
                            }
                        }
                    } catch (Exception stopped) {
                        // the measurement ended and the server closed
                    }
                }, "upload-" + i);
                t.setDaemon(true);
                t.start();
                writers.add(t);
            }
            AmqpServerBudget budget = factory.getServerBudget();
            long last = -1;
            long stableSince = System.nanoTime();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < deadline) {
                long now = budget.getBufferedBytes();
                if (now != last) {
                    last = now;
                    stableSince = System.nanoTime();
                } else if (System.nanoTime() - stableSince > TimeUnit.SECONDS.toNanos(3)) {
                    break;
                }
                Thread.sleep(100);
            }
            long window = (long) AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES * engine.maxFrameSizeBytes();
            System.out.printf("%d uploads of 100 MiB to a servlet that does not read: server buffers %.1f MiB "
                            + "(most seen %.1f MiB; budget %.0f MiB, session window %.2f MiB), %d connections%n",
                    uploads, budget.getBufferedBytes() / 1048576.0, budget.getMaxBufferedBytesSeen() / 1048576.0,
                    budget.getMaxBufferedBytes() / 1048576.0, window / 1048576.0, budget.getConnections());
            assertTrue(budget.getMaxBufferedBytesSeen() <= budget.getMaxBufferedBytes()
                    + uploads * (window + RequestBody.HOLD_BYTES));
        } finally {
            never.countDown();
            server.stop();
            client.close();
        }
    }
}
