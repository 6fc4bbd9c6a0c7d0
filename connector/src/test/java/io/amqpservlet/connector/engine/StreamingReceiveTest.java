package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A streaming receiver gets a large message frame by frame, and by holding its session window it stops the sender
 * in the middle of the message: no more than the window's frames arrive until it lets go.
 */
class StreamingReceiveTest {

    /** Streams every request link; optionally holds the window at the first chunk of a message. */
    static final class StreamingServer implements EngineHandler {
        final ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        int chunks;
        int wholeMessages;
        boolean lastSeen;
        boolean holdAtFirstChunk;
        boolean releaseAtFirstChunk;
        Session held;

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.streaming(true).autoCredit(10);
            }
            return null;
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            wholeMessages++;
            link.session().engine().accept(delivery);
        }

        @Override
        public void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length,
                                   boolean last) {
            if (chunks++ == 0 && holdAtFirstChunk) {
                held = link.session();
                held.holdIncoming();
            }
            if (chunks == 1 && releaseAtFirstChunk) {
                link.session().engine().release(delivery);
                return;
            }
            streamed.write(payload, offset, length);
            if (last) {
                lastSeen = true;
                link.session().engine().accept(delivery);
            }
        }
    }

    private static EngineConfig serverConfig(int windowFrames) {
        return new EngineConfig().containerId("server").saslRequired(false).maxFrameSizeBytes(512)
                .sessionIncomingWindowFrames(windowFrames);
    }

    private static EngineConfig clientConfig() {
        return new EngineConfig().containerId("client").saslRequired(false).maxFrameSizeBytes(512);
    }

    private static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return b;
    }

    @Test
    void aLargeMessageArrivesFrameByFrameAndASmallOneWhole() {
        StreamingServer server = new StreamingServer();
        EnginePair pair = new EnginePair(clientConfig(), new ClientRecorder(), serverConfig(8), server);
        pair.pump();
        Link requests = pair.client.beginSession().attachSender("requests", "/echo");
        pair.pump();
        byte[] big = EngineRequestReplyTest.request("big", "/echo", null, body(20_000));
        byte[] small = EngineRequestReplyTest.request("small", "/echo", null, body(10));
        requests.send(big, 0, big.length, false);
        requests.send(small, 0, small.length, false);
        pair.pump();
        assertTrue(server.lastSeen);
        assertTrue(server.chunks > 40, "about 20,000 / 500 frames: " + server.chunks);
        assertArrayEquals(big, server.streamed.toByteArray(), "the payloads are the encoded message, in order");
        assertEquals(1, server.wholeMessages, "a one-frame message on a streaming link still comes whole");
        assertEquals(0, pair.server.incomingUnsettled);
    }

    @Test
    void aMessageSettledAtItsFirstFrameHasItsOtherFramesDroppedAndOneDisposition() {
        // AMQP 1.0 §2.6.12: a receiver may settle before the last transfer; the rest are consumed and ignored.
        // The server's frame trace (to standard error, captured) shows every disposition it sends, including any
        // the client would ignore.
        PrintStream err = System.err;
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        System.setErr(new PrintStream(trace, true, StandardCharsets.UTF_8));
        try {
            StreamingServer server = new StreamingServer();
            server.releaseAtFirstChunk = true;
            ClientRecorder client = new ClientRecorder();
            EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(8).trace(true), server);
            pair.pump();
            Link requests = pair.client.beginSession().attachSender("requests", "/echo");
            pair.pump();
            byte[] big = EngineRequestReplyTest.request("big", "/echo", null, body(20_000));
            requests.send(big, 0, big.length, false);
            pair.pump();
            assertEquals(1, server.chunks, "no frame after the settlement reaches the application");
            assertEquals(List.of("outcome released settled"), outcomes(client));
            String traced = trace.toString(StandardCharsets.UTF_8);
            assertEquals(1, traced.split("-> @disposition", -1).length - 1, "one disposition: " + traced);
            assertEquals(0, pair.server.incomingUnsettled);

            server.releaseAtFirstChunk = false;
            byte[] next = EngineRequestReplyTest.request("next", "/echo", null, body(20_000));
            requests.send(next, 0, next.length, false);
            pair.pump();
            assertTrue(server.lastSeen, "the next message on the link is delivered");
            assertArrayEquals(next, server.streamed.toByteArray(), "nothing of the released message was handed on");
            assertEquals(List.of("outcome released settled", "outcome accepted settled"), outcomes(client));
            assertEquals(0, pair.server.incomingUnsettled);
        } finally {
            System.setErr(err);
        }
    }

    private static List<String> outcomes(ClientRecorder client) {
        List<String> outcomes = new ArrayList<>();
        for (String event : client.events) {
            if (event.startsWith("outcome")) {
                outcomes.add(event);
            }
        }
        return outcomes;
    }

    @Test
    void holdingTheWindowStopsTheSenderWithinTheWindow() {
        StreamingServer server = new StreamingServer();
        server.holdAtFirstChunk = true;
        int window = 6;
        EnginePair pair = new EnginePair(clientConfig(), new ClientRecorder(), serverConfig(window), server);
        pair.pump();
        Link requests = pair.client.beginSession().attachSender("requests", "/echo");
        pair.pump();
        byte[] big = EngineRequestReplyTest.request("big", "/echo", null, body(100_000));
        requests.send(big, 0, big.length, false);
        pair.pump();
        assertFalse(server.lastSeen);
        assertTrue(server.chunks <= window, "held: at most one window of frames arrived, got " + server.chunks);
        int before = server.chunks;
        pair.pump();
        assertEquals(before, server.chunks, "nothing more arrives while held");

        // Let go a window at a time, as an application that reads its buffered bytes would.
        int rounds = 0;
        while (!server.lastSeen) {
            int seen = server.chunks;
            server.held.releaseIncoming();
            server.held.holdIncoming();
            pair.pump();
            assertTrue(server.chunks - seen <= window, "one window per release: " + (server.chunks - seen));
            assertTrue(++rounds < 1_000);
        }
        server.held.releaseIncoming();
        assertArrayEquals(big, server.streamed.toByteArray());
        assertEquals(0, pair.server.incomingUnsettled);
    }
}
