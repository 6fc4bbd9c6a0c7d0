package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pre-settled message sent at once (AMQP 1.0 §2.7.5 settled=true) is over when it is written: the delivery handed
 * back is settled and has no link, settling it again does nothing, and the deliveries of later messages (pooled
 * or not) are unaffected.
 */
class PresettledSendTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    @Test
    void aPresettledDeliveryIsOverOnceWritten() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachReceiver(0, 0, "out", "/out");
        Flow credit = peer.p().flow().clear().nextIncomingId(0).incomingWindow(100).nextOutgoingId(0)
                .outgoingWindow(1000).handle(0).deliveryCount(0).linkCredit(10);
        peer.frame(0, credit).flush();
        Link link = handler.link("out");
        byte[] m = RawPeer.message("200", 10);

        Delivery settled = link.send(m, 0, m.length, true);
        assertNotNull(settled);
        assertNull(settled.link(), "settled on both sides: no longer on a link");
        assertTrue(settled.locallySettled());
        assertTrue(settled.complete());
        assertEquals(0, settled.deliveryId());
        assertFalse(peer.engine.settle(settled, null), "nothing left to settle");

        Delivery unsettled = link.send(m, 0, m.length, false);
        assertNotSame(settled, unsettled);
        assertEquals(link, unsettled.link());
        assertEquals(1, unsettled.deliveryId());
        assertTrue(peer.engine.settle(unsettled, null));

        peer.collect();
        List<Transfer> transfers = peer.take().stream().filter(f -> !f.isEmpty() && f.performative() instanceof Transfer)
                .map(f -> (Transfer) f.performative()).toList();
        assertEquals(2, transfers.size());
        assertTrue(transfers.get(0).settled());
        assertFalse(transfers.get(1).hasSettled() && transfers.get(1).settled());
        assertEquals(1, transfers.get(1).deliveryId());
    }

    @Test
    void aLinkWhoseReceiverAskedForUnsettledSendsNothingPresettled() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        io.amqpservlet.protocol.types.transport.Attach a = peer.p().attach().clear().name("out").handle(0)
                .role(io.amqpservlet.protocol.types.transport.Role.RECEIVER)
                .sndSettleMode(io.amqpservlet.protocol.types.transport.SenderSettleMode.UNSETTLED);
        a.source().clear().present(true).address("/out");
        a.target().clear().present(true).address("out");
        peer.frame(0, a).flush();
        assertEquals(io.amqpservlet.protocol.types.transport.SenderSettleMode.UNSETTLED,
                peer.first(io.amqpservlet.protocol.types.transport.Attach.class).sndSettleMode(), "the mode is agreed");
        peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(100).nextOutgoingId(0)
                .outgoingWindow(1000).handle(0).deliveryCount(0).linkCredit(10)).flush();
        Link link = handler.link("out");
        byte[] m = RawPeer.message("200", 10);
        // §2.8.2: snd-settle-mode unsettled promises every delivery is sent unsettled, whatever the application asks.
        Delivery whole = link.send(m, 0, m.length, true);
        Delivery parts = link.beginMessage(m, 0, m.length, true);
        link.endMessage(parts);
        peer.collect();
        List<Transfer> transfers = peer.take().stream().filter(f -> !f.isEmpty() && f.performative() instanceof Transfer)
                .map(f -> (Transfer) f.performative()).toList();
        assertEquals(3, transfers.size(), "the whole message, then the message in parts: its bytes, then its end");
        for (Transfer t : transfers) {
            assertFalse(t.hasSettled() && t.settled(), t.toString());
        }
        assertEquals(link, whole.link(), "unsettled: awaits the peer's settlement");
        assertEquals(link, parts.link());
    }
}
