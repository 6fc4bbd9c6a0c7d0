package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Role;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Settlements leave as disposition ranges (AMQP 1.0 §2.7.6: first..last share one state and settled flag): merged
 * only while consecutive and alike, never reordered against other frames, and never held past the next flush.
 */
class DispositionCoalescingTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    private RawPeer peerWithMessages(int count) {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.take();
        for (int i = 0; i < count; i++) {
            peer.transfer(0, peer.transfer(0, i, false), RawPeer.message("POST", 10));
        }
        peer.flush();
        assertEquals(count, handler.messages);
        return peer;
    }

    /** Each disposition as "first..last kind". */
    private static List<String> ranges(RawPeer peer) {
        List<String> out = new ArrayList<>();
        for (RawPeer.Frame f : peer.take()) {
            if (f.isEmpty()) {
                continue;
            }
            if (f.performative() instanceof Disposition d) {
                assertTrue(d.settled());
                assertEquals(Role.RECEIVER, d.role());
                out.add(d.first() + ".." + (d.hasLast() ? d.last() : d.first()) + " " + d.state().typeName());
            } else if (f.performative() instanceof Flow) {
                out.add("flow");
            }
        }
        return out;
    }

    @Test
    void messagesAcceptedWhileOneInputIsProcessedAreSettledInOneFrame() {
        RawPeer peer = peerWithMessages(5);
        assertEquals(List.of("0..4 accepted"), ranges(peer));
    }

    @Test
    void onlyConsecutiveAlikeSettlementsMerge() {
        handler.hold = true;
        RawPeer peer = peerWithMessages(6);
        Engine e = peer.engine;
        List<Delivery> held = handler.held;
        e.accept(held.get(0));
        e.accept(held.get(1));
        e.reject(held.get(2), ErrorConditions.DECODE_ERROR, "bad");
        e.accept(held.get(3));
        e.release(held.get(5));
        e.release(held.get(4));
        assertTrue(e.hasOutput(), "held settlements count as output");
        peer.collect();
        assertEquals(List.of("0..1 accepted", "2..2 rejected", "3..3 accepted", "5..5 released", "4..4 released"),
                ranges(peer));
        assertFalse(e.hasOutput());
    }

    @Test
    void aRangeIsWrittenBeforeTheFrameThatFollowsIt() {
        handler.hold = true;
        handler.autoCredit = 0;
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        handler.link("in").flow(3);
        peer.collect();
        peer.take();
        for (int i = 0; i < 3; i++) {
            peer.transfer(0, peer.transfer(0, i, false), RawPeer.message("POST", 10));
        }
        peer.flush();
        Engine e = peer.engine;
        e.accept(handler.held.get(0));
        e.accept(handler.held.get(1));
        handler.link("in").flow(2);
        e.accept(handler.held.get(2));
        peer.collect();
        assertEquals(List.of("0..1 accepted", "flow", "2..2 accepted"), ranges(peer));
    }
}
