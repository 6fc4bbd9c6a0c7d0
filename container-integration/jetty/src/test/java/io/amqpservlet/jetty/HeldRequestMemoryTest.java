package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.DeliveryMode;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.SenderOptions;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requests a servlet holds cost memory beside their bodies, and the byte budget counts it
 * ({@link BudgetShare#EXCHANGE_BYTES} per request being served): a real Jetty with an asynchronous servlet that holds
 * every request, and protonj2 sending pre-settled requests (which no in-flight limit of unsettled deliveries bounds,
 * and which leave nothing behind in the client to measure). The heap a held request takes, measured after full
 * collections, is what the budget counts for it within a quarter; and with a small budget the requests held stop
 * where it does, the rest released.
 */
@Timeout(120)
class HeldRequestMemoryTest {
    private static final int BODY = 10;
    private final Queue<AsyncContext> held = new ConcurrentLinkedQueue<>();
    private Server server;
    private AmqpConnectionFactory factory;
    private int port;
    private Client client;

    /** Holds every request (asynchronous, no thread kept) until the test ends. */
    final class Holds extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) {
            AsyncContext async = request.startAsync();
            async.setTimeout(0);
            held.add(async);
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).saslRequired(false));
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        ServletHolder holds = new ServletHolder(new Holds());
        holds.setAsyncSupported(true);
        context.addServlet(holds, "/hold");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
        client = Client.create();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            client.close();
        } finally {
            server.stop();
        }
    }

    /**
     * Sends up to {@code n} pre-settled requests as the server grants credit, until it has granted none for two
     * seconds.
     *
     * @return how many were sent
     */
    private int send(Sender sender, int n) throws Exception {
        int sent = 0;
        long lastSent = System.nanoTime();
        while (sent < n && System.nanoTime() - lastSent < TimeUnit.SECONDS.toNanos(2)) {
            if (sender.trySend(Message.create(new byte[BODY]).subject("POST")) != null) {
                sent++;
                lastSent = System.nanoTime();
            } else {
                Thread.sleep(1); // no credit now: the server grants it as it serves, and while its budget has room
            }
        }
        return sent;
    }

    private Sender presettledSender() throws Exception {
        Connection c = client.connect("127.0.0.1", port);
        c.openFuture().get(10, TimeUnit.SECONDS);
        Sender sender = c.openSender("/hold", new SenderOptions().deliveryMode(DeliveryMode.AT_MOST_ONCE));
        sender.openFuture().get(10, TimeUnit.SECONDS);
        return sender;
    }

    @Test
    void theBudgetCountsWhatAHeldRequestCostsTheHeap() throws Exception {
        int warmUp = 200;
        int n = 8_000;
        Sender sender = presettledSender();
        send(sender, warmUp); // the connection's buffers, the servlet's first use, Jetty's pools
        Eventually.until(() -> held.size() == warmUp, () -> "held " + held.size());
        long heapBefore = IdleConnectionMemoryTest.heapUsedAfterGc();
        long countedBefore = factory.getServerBudget().getBufferedBytes();
        send(sender, n);
        Eventually.until(() -> held.size() == warmUp + n, () -> "held " + held.size() + " of " + (warmUp + n));
        Eventually.until(() -> factory.getServerBudget().getBufferedBytes() - countedBefore
                        == (long) n * (BODY + BudgetShare.EXCHANGE_BYTES),
                () -> "counted " + (factory.getServerBudget().getBufferedBytes() - countedBefore));
        double heapPerRequest = (double) (IdleConnectionMemoryTest.heapUsedAfterGc() - heapBefore) / n;
        double counted = BODY + BudgetShare.EXCHANGE_BYTES;
        System.out.printf("HeldRequestMemoryTest: a held request takes %.0f bytes of heap; the budget counts %.0f%n",
                heapPerRequest, counted);
        assertTrue(counted >= 0.75 * heapPerRequest && counted <= 1.25 * heapPerRequest,
                "a held request takes " + heapPerRequest + " bytes; the budget counts " + counted);
    }

    @Test
    void requestsHeldStopAtTheBudgetAndTheRestAreReleased() throws Exception {
        // Pre-settled requests with 10-byte bodies: without counting what a request costs beside its body, 10,000
        // were all held (35 MB of heap) while the budget counted 100 KB.
        long budget = 4L * 1024 * 1024;
        factory.setMaxBufferedBytes(budget);
        factory.setMaxConnectionsPerAddress(0); // the server-wide budget: one address has half of it otherwise
        factory.setMaxHandshakesPerAddress(0);
        int n = 10_000;
        int sent = send(presettledSender(), n);
        Eventually.until(() -> factory.getRequestsServed() + factory.getRequestsReleased() == sent,
                () -> factory.getRequestsServed() + " served, " + factory.getRequestsReleased() + " released of "
                        + sent);
        long fit = (budget + BODY + BudgetShare.EXCHANGE_BYTES - 1) / (BODY + BudgetShare.EXCHANGE_BYTES);
        // The one that reaches the budget is the last held; a flow frame not yet written may count a few bytes too.
        assertTrue(held.size() >= fit - 1 && held.size() <= fit, held.size() + " held, " + fit + " fit");
        assertTrue(sent < n, "the server stopped granting credit: all " + n + " were sent");
        assertEquals(sent - held.size(), factory.getRequestsReleased(), "those that came on credit granted before");
    }
}
