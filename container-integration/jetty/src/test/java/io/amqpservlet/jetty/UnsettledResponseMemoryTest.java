package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Responses a client has received and not settled cost the server memory until it does (the engine keeps each
 * delivery to apply the client's disposition to), and the byte budget counts it: a real Jetty and a raw peer that
 * sends requests and reads their responses, never settling one (and keeping nothing of them itself, so the heap
 * this JVM gains is the server's).
 */
@Timeout(120)
class UnsettledResponseMemoryTest {
    private Server server;
    private AmqpConnectionFactory factory;
    private int port;

    /** Answers with a status and no body. */
    static final class NoContent extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) {
            response.setStatus(204);
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
        context.addServlet(new ServletHolder(new NoContent()), "/none");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    /** A raw client: a reply link with all the credit it may need, and a request link. */
    private static final class Client implements AutoCloseable {
        final RawAmqpPeer peer;
        final byte[] request;
        long credit;
        int deliveryId;
        long responses;

        Client(int port) throws IOException {
            peer = new RawAmqpPeer(port);
            peer.writeHeader(ProtocolHeader.AMQP);
            peer.writeFrame(0, new Open().containerId("unsettling"));
            peer.readHeader();
            peer.readUntil(Open.class);
            peer.writeFrame(0, new Begin().nextOutgoingId(0).incomingWindow(Integer.MAX_VALUE)
                    .outgoingWindow(Integer.MAX_VALUE).handleMax(10));
            peer.readUntil(Begin.class);
            Attach replies = new Attach().name("replies").handle(0).role(Role.RECEIVER);
            replies.source().present(true).address("replies");
            replies.target().present(true);
            peer.writeFrame(0, replies);
            peer.readUntil(Attach.class);
            peer.writeFrame(0, new Flow().nextIncomingId(0).incomingWindow(Integer.MAX_VALUE).nextOutgoingId(0)
                    .outgoingWindow(Integer.MAX_VALUE).handle(0).deliveryCount(0).linkCredit(1_000_000));
            Attach requests = new Attach().name("requests").handle(1).role(Role.SENDER).initialDeliveryCount(0);
            requests.source().present(true);
            requests.target().present(true).address("/none");
            peer.writeFrame(0, requests);
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().to("/none").subject("GET").replyTo("replies")
                    .endProperties().end();
            request = w.toByteArray();
        }

        /** Reads one frame, noting the credit of the request link and the responses. */
        void read() throws IOException {
            DescribedList frame = peer.readFrame();
            if (frame instanceof Flow f && f.hasHandle() && f.handle() == 1 && f.hasLinkCredit()) {
                credit = f.deliveryCount() + f.linkCredit() - deliveryId;
            } else if (frame instanceof Transfer t && t.handle() == 0 && t.hasDeliveryId()) {
                responses++;
            }
        }

        /**
         * Sends {@code n} requests unsettled as credit comes, and reads their responses (leaving them unsettled);
         * stops early when no credit has come for two seconds.
         *
         * @return the requests sent
         */
        int exchange(int n) throws IOException {
            long goal = responses + n;
            int sent = 0;
            long quietSince = System.nanoTime();
            while (responses < goal) {
                if (credit > 0 && sent < n) {
                    byte[] tag = {(byte) deliveryId, (byte) (deliveryId >>> 8), (byte) (deliveryId >>> 16)};
                    peer.writeTransfer(0, new Transfer().handle(1).deliveryId(deliveryId).deliveryTag(tag, 0, 3)
                            .messageFormat(0), request, request.length);
                    deliveryId++;
                    credit--;
                    sent++;
                    quietSince = System.nanoTime();
                    continue;
                }
                try {
                    read();
                    quietSince = System.nanoTime();
                } catch (AssertionError timedOut) {
                    if (System.nanoTime() - quietSince > 2_000_000_000L) {
                        break; // no credit, no response: the server stopped taking requests
                    }
                }
            }
            return sent;
        }

        @Override
        public void close() throws IOException {
            peer.close();
        }
    }

    @Test
    void theBudgetCountsWhatAnUnsettledResponseCostsTheHeap() throws Exception {
        try (Client client = new Client(port)) {
            client.exchange(500);
            long heapBefore = IdleConnectionMemoryTest.heapUsedAfterGc();
            long countedBefore = factory.getServerBudget().getBufferedBytes();
            int n = 10_000;
            client.exchange(n);
            double heapPerResponse = (double) (IdleConnectionMemoryTest.heapUsedAfterGc() - heapBefore) / n;
            double counted = (double) (factory.getServerBudget().getBufferedBytes() - countedBefore) / n;
            System.out.printf("UnsettledResponseMemoryTest: an unsettled response takes %.0f bytes of heap; the budget "
                    + "counts %.0f%n", heapPerResponse, counted);
            assertTrue(counted >= 0.75 * heapPerResponse && counted <= 1.25 * heapPerResponse,
                    "an unsettled response takes " + heapPerResponse + " bytes; the budget counts " + counted);
        }
    }

    @Test
    void aClientThatNeverSettlesUsesTheBudgetUpNotTheHeap() throws Exception {
        // Without counting them, the engine kept 10,000 such responses (8 MB of heap) while the budget counted 0; a
        // connection may keep 16,384 (maxUnsettledSentDeliveries), so a few dozen connections would take a 256 MiB
        // gateway down.
        long budget = 1024 * 1024;
        factory.setMaxBufferedBytes(budget);
        factory.setMaxConnectionsPerAddress(0); // the server-wide budget: one address has half of it otherwise
        factory.setMaxHandshakesPerAddress(0);
        try (Client client = new Client(port)) {
            int n = 10_000;
            int sent = client.exchange(n);
            long fit = (budget - BudgetShare.SESSION_BYTES - 2 * BudgetShare.LINK_BYTES) / BudgetShare.DELIVERY_BYTES;
            assertTrue(sent < n, "the server stopped granting credit: all " + n + " were sent");
            // Responses are counted as each pass ends: a pass's worth (the credit it granted) may come on top.
            assertTrue(client.responses >= fit && client.responses <= fit + 200,
                    client.responses + " responses unsettled, " + fit + " fit the budget");
            assertTrue(factory.getServerBudget().isExhausted());
        }
        Eventually.until(() -> factory.getServerBudget().getBufferedBytes() == 0,
                () -> "the connection closed; still counted: " + factory.getServerBudget().getBufferedBytes());
    }
}
