package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine encodes transfer frames only {@link EngineConfig#maxPendingOutputBytes()} ahead of the transport,
 * whatever credit and session window the peer granted: a peer that stops reading its socket costs that bound, and
 * the rest waits in the link (open messages) or is refused by the connection's queue limit (whole messages).
 */
class OutputBackPressureTest {

    /** Grants a lot of credit and receives whole messages. */
    static final class Receiver implements EngineHandler {
        final List<Integer> sizes = new ArrayList<>();

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.autoCredit(1_000);
            }
            return null;
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            sizes.add(message.length());
            link.session().engine().accept(delivery);
        }
    }

    private static final int BOUND = 32 * 1024;
    private final Receiver server = new Receiver();
    private final ClientRecorder client = new ClientRecorder();

    private EnginePair pair() {
        EngineConfig s = new EngineConfig().containerId("server").saslRequired(false)
                .sessionIncomingWindowFrames(100_000).maxMessageSizeBytes(64L * 1024 * 1024);
        EngineConfig c = new EngineConfig().containerId("client").saslRequired(false).maxPendingOutputBytes(BOUND);
        EnginePair pair = new EnginePair(c, client, s, server);
        pair.pump();
        return pair;
    }

    @Test
    void anOpenMessageIsEncodedOnlyUpToTheBoundWhileTheTransportDoesNotWrite() {
        EnginePair pair = pair();
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[] head = {0x00, 0x53, 0x75, (byte) 0xb0, 0x00, 0x40, 0x00, 0x00}; // data section of 4 MiB
        int body = 4 * 1024 * 1024;
        Delivery d = link.beginMessage(head, 0, head.length, false);
        assertNotNull(d);
        byte[] chunk = new byte[256 * 1024];
        for (int at = 0; at < body; at += chunk.length) {
            link.appendMessage(d, chunk, 0, chunk.length);
            // Nobody writes: the output must not grow past the bound plus one frame.
            assertTrue(pair.client.outputBytes() <= BOUND + 65_536,
                    "output " + pair.client.outputBytes() + " after " + (at + chunk.length) + " bytes appended");
        }
        assertTrue(link.unsentBytes(d) >= body - BOUND - 65_536, "the rest waits in the link: " + link.unsentBytes(d));
        link.endMessage(d);
        pair.pump(); // the transport writes again: everything goes
        assertEquals(0, link.unsentBytes(d));
        assertEquals(1, server.sizes.size());
        assertEquals(head.length + body, server.sizes.get(0));
    }

    @Test
    void wholeMessagesQueueInTheLinkInsteadOfTheOutput() {
        EnginePair pair = pair();
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[] message = {0x00, 0x53, 0x75, (byte) 0xa0, (byte) 200};
        byte[] whole = new byte[5 + 200];
        System.arraycopy(message, 0, whole, 0, message.length);
        for (int i = 0; i < 1_000; i++) {
            assertNotNull(link.send(whole, 0, whole.length, false));
        }
        assertTrue(pair.client.outputBytes() <= BOUND + 1_024, "output " + pair.client.outputBytes());
        assertTrue(pair.client.queuedBytes() > 0, "the rest is queued (and counted against the queue limit)");
        pair.pump();
        assertEquals(1_000, server.sizes.size());
        assertEquals(0, pair.client.queuedBytes());
    }

    @Test
    void revokedCreditStillAcceptsWhatWasInFlight() {
        EnginePair pair = pair();
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[] whole = {0x00, 0x53, 0x75, (byte) 0xa0, 1, 7};
        // Sent before the revoke reaches the client: already on the wire when the server takes its credit back.
        for (int i = 0; i < 5; i++) {
            link.send(whole, 0, whole.length, false);
        }
        ByteBuffer inFlight = pair.client.beginFlush();
        pair.server.stopCredit();
        pair.server.ingest(inFlight, pair.now);
        pair.client.endFlush();
        pair.pump();
        assertEquals(5, server.sizes.size(), "in-flight messages are received, not a transfer-limit violation");
        assertEquals(0, link.credit().credit(), "the client saw credit 0");
        assertTrue(link.isOpen());
    }
}
