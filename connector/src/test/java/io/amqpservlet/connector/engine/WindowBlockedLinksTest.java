package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Sending links that wait for the peer's session window (AMQP 1.0 §2.5.6) all resume when a session flow reopens
 * it, while links that wait for credit keep waiting.
 */
class WindowBlockedLinksTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    private static List<Integer> transferHandles(RawPeer peer) {
        return peer.take().stream().filter(f -> !f.isEmpty() && f.performative() instanceof Transfer)
                .map(f -> ((Transfer) f.performative()).handle()).toList();
    }

    @Test
    void aSessionFlowThatReopensTheWindowResumesEveryLinkWaitingForIt() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 1); // room for one transfer frame
        peer.attachReceiver(0, 0, "a", "/a");
        peer.attachReceiver(0, 1, "b", "/b");
        peer.attachReceiver(0, 2, "c", "/c");
        for (int h = 0; h < 2; h++) {
            Flow credit = peer.p().flow().clear().nextIncomingId(0).incomingWindow(1).nextOutgoingId(0)
                    .outgoingWindow(1000).handle(h).deliveryCount(0).linkCredit(5);
            peer.frame(0, credit);
        }
        peer.flush();
        peer.take();
        byte[] m = RawPeer.message("200", 10);
        for (String name : new String[] {"a", "b"}) {
            for (int i = 0; i < 2; i++) {
                assertNotNull(handler.link(name).send(m, 0, m.length, true));
            }
        }
        assertNotNull(handler.link("c").send(m, 0, m.length, true), "queued until credit comes");
        peer.collect();
        assertEquals(List.of(0), transferHandles(peer), "one frame fits the window");
        // Link c has no credit: a flow that opens the window must not make it send.
        Flow open = peer.p().flow().clear().nextIncomingId(1).incomingWindow(100).nextOutgoingId(0)
                .outgoingWindow(1000);
        peer.frame(0, open).flush();
        assertEquals(List.of(0, 1, 1), transferHandles(peer), "both waiting links resumed, in link order");
        assertEquals(0, handler.link("a").queued());
        assertEquals(0, handler.link("b").queued());
        assertEquals(1, handler.link("c").queued(), "still waiting for credit");
    }
}
