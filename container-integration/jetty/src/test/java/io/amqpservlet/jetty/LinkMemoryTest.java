package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sessions and links cost the server memory, and the byte budget counts it ({@link BudgetShare#SESSION_BYTES},
 * {@link BudgetShare#LINK_BYTES}): a real Jetty and a raw peer that begins sessions and attaches links and does
 * nothing else. The heap each takes is what the budget counts within a quarter; and with a small budget, a link
 * attached once it is used up is refused with {@code amqp:resource-limit-exceeded}.
 */
@Timeout(120)
class LinkMemoryTest {
    private Server server;
    private AmqpConnectionFactory factory;
    private int port;

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).saslRequired(false).channelMax(1023));
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private RawAmqpPeer open() throws IOException {
        RawAmqpPeer peer = new RawAmqpPeer(port);
        peer.writeHeader(ProtocolHeader.AMQP);
        peer.writeFrame(0, new Open().containerId("links").channelMax(65535));
        peer.readHeader();
        peer.readUntil(Open.class);
        return peer;
    }

    private static void begin(RawAmqpPeer peer, int channel) throws IOException {
        peer.writeFrame(channel, new Begin().nextOutgoingId(0).incomingWindow(1000).outgoingWindow(1000)
                .handleMax(4095));
    }

    private static void attach(RawAmqpPeer peer, int channel, int handle) throws IOException {
        Attach a = new Attach().name("link-" + channel + "-" + handle).handle(handle).role(Role.SENDER)
                .initialDeliveryCount(0);
        a.source().present(true);
        a.target().present(true).address("/echo");
        peer.writeFrame(channel, a);
    }

    /**
     * Reads frames until {@code n} of {@code type} have come; {@return the error of the last detach among them,
     * {@code condition: description}, or null}
     */
    private static String await(RawAmqpPeer peer, Class<? extends DescribedList> type, int n) throws IOException {
        String refused = null;
        for (int got = 0; got < n; ) {
            DescribedList frame = peer.readFrame();
            if (type.isInstance(frame)) {
                got++;
            }
            if (frame instanceof Detach d && d.error() != null) {
                refused = d.error().condition() + ": " + d.error().description(); // the peer reuses its frames
            }
        }
        return refused;
    }

    @Test
    void theBudgetCountsWhatSessionsAndLinksCostTheHeap() throws Exception {
        try (RawAmqpPeer warmUp = open()) { // the code paths' first use, out of the measurement
            for (int c = 0; c < 20; c++) {
                begin(warmUp, c);
                attach(warmUp, c, 0);
            }
            await(warmUp, Attach.class, 20);
        }
        Eventually.until(() -> factory.getServerBudget().getBufferedBytes() == 0, () -> "warm-up still counted");
        try (RawAmqpPeer peer = open()) {
            int sessions = 500;
            long heap = IdleConnectionMemoryTest.heapUsedAfterGc();
            for (int c = 0; c < sessions; c++) {
                begin(peer, c);
            }
            await(peer, Begin.class, sessions);
            Eventually.until(() -> factory.getServerBudget().getBufferedBytes()
                    == (long) sessions * BudgetShare.SESSION_BYTES, () -> "sessions counted "
                    + factory.getServerBudget().getBufferedBytes());
            long afterSessions = IdleConnectionMemoryTest.heapUsedAfterGc();
            int links = 1000;
            for (int h = 0; h < links; h++) {
                attach(peer, 0, h);
            }
            await(peer, Attach.class, links);
            Eventually.until(() -> factory.getServerBudget().getBufferedBytes()
                    == (long) sessions * BudgetShare.SESSION_BYTES + (long) links * BudgetShare.LINK_BYTES,
                    () -> "links counted " + factory.getServerBudget().getBufferedBytes());
            double perSession = (double) (afterSessions - heap) / sessions;
            double perLink = (double) (IdleConnectionMemoryTest.heapUsedAfterGc() - afterSessions) / links;
            System.out.printf("LinkMemoryTest: a session takes %.0f bytes of heap, a link %.0f; the budget counts "
                    + "%d and %d%n", perSession, perLink, BudgetShare.SESSION_BYTES, BudgetShare.LINK_BYTES);
            assertTrue(BudgetShare.SESSION_BYTES >= 0.75 * perSession && BudgetShare.SESSION_BYTES <= 1.25 * perSession,
                    "a session takes " + perSession + " bytes");
            assertTrue(BudgetShare.LINK_BYTES >= 0.75 * perLink && BudgetShare.LINK_BYTES <= 1.25 * perLink,
                    "a link takes " + perLink + " bytes");
        }
    }

    @Test
    void aLinkAttachedOnceTheBudgetIsUsedUpEndsItsSession() throws Exception {
        // A connection may have 1,024 links (about 750 KB), and one address 512 connections: without counting them,
        // one machine's links alone could take a few hundred megabytes. A refused attach would still make a link
        // (kept until the client's detach): the session ends instead, which frees its links.
        long budget = 256 * 1024;
        factory.setMaxBufferedBytes(budget);
        factory.setMaxConnectionsPerAddress(0); // the server-wide budget: one address has half of it otherwise
        factory.setMaxHandshakesPerAddress(0);
        try (RawAmqpPeer peer = open()) {
            begin(peer, 0);
            peer.readUntil(Begin.class);
            int links = 1000; // in one write: the server reads many attaches in one pass
            for (int h = 0; h < links; h++) {
                attach(peer, 0, h);
            }
            int attached = 0;
            End end;
            while (true) {
                DescribedList frame = peer.readFrame();
                if (frame instanceof Attach) {
                    attached++;
                } else if (frame instanceof End e) {
                    end = e;
                    break;
                }
            }
            assertEquals(ErrorConditions.RESOURCE_LIMIT_EXCEEDED + ": no new link: the server's byte budget is used "
                    + "up (maxBufferedBytes)", end.error().condition() + ": " + end.error().description());
            long fit = (budget - BudgetShare.SESSION_BYTES + BudgetShare.LINK_BYTES - 1) / BudgetShare.LINK_BYTES;
            assertEquals(fit, attached, "links attached before the budget was used up");
            Eventually.until(() -> factory.getServerBudget().getBufferedBytes() <= BudgetShare.SESSION_BYTES,
                    () -> "the session ended, its links freed; still counted: "
                            + factory.getServerBudget().getBufferedBytes());
        }
        Eventually.until(() -> factory.getServerBudget().getBufferedBytes() == 0,
                () -> "closed; still counted: " + factory.getServerBudget().getBufferedBytes());
    }
}
