package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Open;
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
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A frame that has not all arrived counts in the server's byte budget, and grows only while admitted to (half the
 * budget, a whole frame and the engine's working buffers per frame): a real Jetty server and raw sockets that each
 * send the first half of a 60,000-byte frame and stop. Once such a frame has waited a second without a byte, only its
 * bytes are held (the engine's working buffers go back to their pool), so the budget then counts exactly what the
 * peer sent. One source address takes at most half of the room partial frames have.
 */
@Timeout(60)
class PartialFrameBudgetTest {
    private static final int FRAME_BYTES = 60_000;
    private static final int HALF = 30_000;

    private Server server;
    private AmqpServerBudget budget;
    private int port;
    private final List<RawAmqpPeer> peers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new Server();
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).saslRequired(false));
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
        budget = factory.getServerBudget();
    }

    @AfterEach
    void stop() throws Exception {
        for (RawAmqpPeer peer : peers) {
            peer.close();
        }
        server.stop();
    }

    /** An open connection with a session, that has sent the first {@code bytes} of a frame of 60,000. */
    private RawAmqpPeer halfFrame(int bytes) throws IOException {
        return halfFrame(null, bytes);
    }

    /** {@link #halfFrame(int)} from {@code localAddress} (a loopback address such as 127.0.0.2), or any. */
    private RawAmqpPeer halfFrame(String localAddress, int bytes) throws IOException {
        RawAmqpPeer peer = new RawAmqpPeer(localAddress, port);
        peers.add(peer);
        peer.writeHeader(ProtocolHeader.AMQP);
        peer.writeFrame(0, new Open().containerId("half-frame-" + peers.size()));
        peer.readHeader();
        peer.readUntil(Open.class);
        peer.writeFrame(0, new Begin().nextOutgoingId(0).incomingWindow(1000).outgoingWindow(1000).handleMax(100));
        peer.readUntil(Begin.class);
        byte[] start = new byte[bytes];
        start[0] = (byte) (FRAME_BYTES >>> 24);
        start[1] = (byte) (FRAME_BYTES >>> 16);
        start[2] = (byte) (FRAME_BYTES >>> 8);
        start[3] = (byte) FRAME_BYTES;
        start[4] = 2; // data offset, in words
        peer.write(start);
        return peer;
    }

    /** What the budget counts beside the connections' sessions (each peer here begins one). */
    private long frameBytes() {
        return budget.getBufferedBytes() - budget.getProtocolStateBytes();
    }

    private void awaitBuffered(long bytes, String why) throws Exception {
        Eventually.until(() -> frameBytes() == bytes,
                () -> why + ": the budget counts " + frameBytes() + " bytes, not " + bytes);
    }

    @Test
    void aHalfSentFrameCountsItsWorkingBuffersThenOnlyItsBytesAndNothingOnceItsConnectionCloses() throws Exception {
        RawAmqpPeer peer = halfFrame(HALF);
        awaitBuffered(HALF, "a second after its last byte, its bytes only");
        assertTrue(budget.getMaxBufferedBytesSeen() > HALF + 16 * 1024,
                "before, the frame held the engine's buffers too: at most " + budget.getMaxBufferedBytesSeen());
        peer.close();
        awaitBuffered(0, "closed");
    }

    @Test
    void aHalfSentFrameBeyondWhatHalfTheBudgetAdmitsWaitsInItsSocketUntilAnAdmittedOneEnds() throws Exception {
        // Room for two partial frames: each reserves a whole frame and the engine's working buffers.
        long reservation = new EngineConfig().maxFrameSizeBytes() + Engine.SCRATCH_BYTES;
        budget.setMaxBufferedBytes(2 * 2 * reservation);
        // About the server's room: every peer here comes from 127.0.0.1, whose own share is another test's.
        budget.setMaxConnectionsPerAddress(0);
        budget.setMaxHandshakesPerAddress(0);
        RawAmqpPeer first = halfFrame(HALF);
        awaitBuffered(HALF, "the first frame admitted, read and parked");
        halfFrame(HALF);
        awaitBuffered(2L * HALF, "the second too");

        halfFrame(HALF);
        // The third read some of its frame, found it could not be admitted to grow, and stopped: the rest stays in
        // its socket, so what it parks a second later is less than it sent.
        awaitThirdHolds(2L * HALF, "the third frame, not admitted");

        first.close();
        // The first connection ends (its partial frame with it) and gives its room to the third, which reads on.
        awaitBuffered(2L * HALF, "the third frame read whole once admitted, the first gone");

        halfFrame(HALF);
        awaitThirdHolds(2L * HALF, "a fourth frame, not admitted");
        budget.setMaxBufferedBytes(100 * reservation); // raised while frames wait: they are admitted at once
        awaitBuffered(3L * HALF, "the fourth frame read whole once the budget was raised");
        assertEquals(3 * reservation, budget.getPartialFrameBytesReserved());

        for (RawAmqpPeer peer : peers) {
            peer.close();
        }
        awaitBuffered(0, "every connection closed");
        assertEquals(0, budget.getBufferedBytes(), "their sessions too");
        Eventually.until(() -> budget.getPartialFrameBytesReserved() == 0,
                () -> "closed connections still reserve " + budget.getPartialFrameBytesReserved());
    }

    @Test
    void oneSourceAddressTakesAtMostHalfOfTheRoomAndTheOthersFramesGrowBeside() throws Exception {
        // Room for four partial frames, two of them per source address.
        long reservation = new EngineConfig().maxFrameSizeBytes() + Engine.SCRATCH_BYTES;
        budget.setMaxBufferedBytes(2 * 4 * reservation);
        RawAmqpPeer first = halfFrame("127.0.0.1", HALF);
        awaitBuffered(HALF, "the first frame of 127.0.0.1, admitted");
        halfFrame("127.0.0.1", HALF);
        awaitBuffered(2L * HALF, "its second");

        halfFrame("127.0.0.1", HALF);
        awaitThirdHolds(2L * HALF, "127.0.0.1's third frame, held back by its address's share");
        assertEquals(1, budget.getPartialFramesHeldPerAddress());
        long third = frameBytes() - 2L * HALF;

        // The server has room for two more, and another address takes it while 127.0.0.1's third waits.
        halfFrame("127.0.0.2", HALF);
        awaitBuffered(3L * HALF + third, "the frame of 127.0.0.2, admitted beside them");
        halfFrame("127.0.0.2", HALF);
        awaitBuffered(4L * HALF + third, "127.0.0.2's second");
        assertEquals(4 * reservation, budget.getPartialFrameBytesReserved());

        first.close();
        // 127.0.0.1 gives a reservation back: its own waiting frame is admitted and read whole.
        awaitBuffered(4L * HALF, "127.0.0.1's third frame read whole once its address had room, the first gone");
        assertEquals(4 * reservation, budget.getPartialFrameBytesReserved());

        for (RawAmqpPeer peer : peers) {
            peer.close();
        }
        awaitBuffered(0, "every connection closed");
        assertEquals(0, budget.getBufferedBytes(), "their sessions too");
        Eventually.until(() -> budget.getPartialFrameBytesReserved() == 0,
                () -> "closed connections still reserve " + budget.getPartialFrameBytesReserved());
    }

    @Test
    void aFrameCutInTheHandshakeReservesWhatAHandshakeFrameMayBeAndGivesItBackWhenWhole() throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.AMQP);
            peer.readHeader();
            byte[] open = peer.frameBytes(0, new Open().containerId("slow-open").hostname("x".repeat(200)));
            int cut = open.length / 3;
            peer.write(java.util.Arrays.copyOfRange(open, 0, cut));
            awaitBuffered(cut, "the open's first part, parked");
            peer.write(java.util.Arrays.copyOfRange(open, cut, 2 * cut)); // read on: the frame asks to grow
            long handshakeFrame = 512 + Engine.SCRATCH_BYTES; // before our open, no frame may pass 512 bytes
            Eventually.until(() -> budget.getPartialFrameBytesReserved() == handshakeFrame,
                    () -> "reserved " + budget.getPartialFrameBytesReserved() + ", not " + handshakeFrame);
            peer.write(java.util.Arrays.copyOfRange(open, 2 * cut, open.length));
            peer.readUntil(Open.class);
            Eventually.until(() -> budget.getPartialFrameBytesReserved() == 0 && budget.getBufferedBytes() == 0,
                    () -> "reserved " + budget.getPartialFrameBytesReserved() + ", buffered "
                            + budget.getBufferedBytes());
        }
    }

    private void awaitThirdHolds(long others, String why) throws Exception {
        Eventually.until(() -> {
            long held = frameBytes() - others;
            return held > 0 && held <= 8 * 1024; // at most one read's bytes, parked
        }, () -> why + ": holds " + (frameBytes() - others) + " bytes");
    }
}
