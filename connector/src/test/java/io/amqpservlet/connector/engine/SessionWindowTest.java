package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionWindowTest {

    @Test
    void nextIncomingIdComesFromThePeersBegin() {
        SessionWindow w = new SessionWindow(100, 0, 100);
        w.onRemoteBegin(0xFFFFFFF0, 50, 60);
        assertEquals(0xFFFFFFF0, w.nextIncomingId());
        assertEquals(50, w.remoteIncomingWindow());
        for (int i = 0; i < 20; i++) {
            assertTrue(w.onTransferReceived());
        }
        assertEquals(4, w.nextIncomingId(), "transfer ids wrap past 2^32-1");
    }

    @Test
    void transferBeyondIncomingWindowIsAViolation() {
        SessionWindow w = new SessionWindow(2, 0, 10);
        w.onRemoteBegin(0, 10, 10);
        assertTrue(w.onTransferReceived());
        assertTrue(w.onTransferReceived());
        assertFalse(w.onTransferReceived());
    }

    @Test
    void asksForAFlowOnceHalfTheWindowIsUsed() {
        SessionWindow w = new SessionWindow(10, 0, 10);
        w.onRemoteBegin(0, 10, 10);
        for (int i = 0; i < 4; i++) {
            w.onTransferReceived();
            assertFalse(w.needsIncomingFlow(), "after " + (i + 1));
        }
        w.onTransferReceived();
        assertTrue(w.needsIncomingFlow());
        w.replenishIncoming();
        assertEquals(10, w.incomingWindow());
        assertFalse(w.needsIncomingFlow());
    }

    @Test
    void remoteIncomingWindowFollowsTheFlowFormula() {
        SessionWindow w = new SessionWindow(10, 0xFFFFFFFE, 10);
        w.onRemoteBegin(0, 3, 10);
        assertEquals(0xFFFFFFFE, w.onTransferSent());
        assertEquals(0xFFFFFFFF, w.onTransferSent());
        assertEquals(0, w.onTransferSent());
        assertFalse(w.canSend());
        assertThrows(IllegalStateException.class, w::onTransferSent);
        // The peer saw up to id 0xFFFFFFFF (next-incoming-id 0) and opens 5 more: ids 0..4; we are at 1 already.
        w.onRemoteFlow(true, 0, 5, 0, 10);
        assertEquals(4, w.remoteIncomingWindow());
        assertTrue(w.canSend());
    }

    @Test
    void staleFlowLeavesNoWindowRatherThanAHugeOne() {
        SessionWindow w = new SessionWindow(10, 100, 10);
        w.onRemoteBegin(0, 10, 10);
        for (int i = 0; i < 10; i++) {
            w.onTransferSent();
        }
        // A flow written before the peer received our last 10 transfers: window ends at 100 + 2.
        w.onRemoteFlow(true, 100, 2, 0, 10);
        assertEquals(0, w.remoteIncomingWindow());
    }

    @Test
    void flowWithoutNextIncomingIdUsesOurInitialOutgoingId() {
        SessionWindow w = new SessionWindow(10, 500, 10);
        w.onRemoteFlow(false, 0, 7, 0, 10);
        assertEquals(7, w.remoteIncomingWindow());
    }

    @Test
    void flowsWithoutNextIncomingIdCountTheTransfersSentSinceOurBegin() {
        // AMQP 1.0 §2.5.6: a flow without next-incoming-id was written before the peer had our begin, so its window
        // starts at our initial-outgoing-id: the transfers we sent since came out of that same window.
        SessionWindow w = new SessionWindow(10, 500, 10);
        w.onRemoteBegin(0, 3, 10);
        w.onRemoteFlow(false, 0, 3, 0, 10);
        for (int i = 0; i < 3; i++) {
            w.onTransferSent();
        }
        assertFalse(w.canSend());
        w.onRemoteFlow(false, 0, 3, 0, 10); // a second such flow, pipelined with the first (another link's credit)
        assertEquals(0, w.remoteIncomingWindow(), "the three transfers used the window it states");
        assertFalse(w.canSend());
        w.onRemoteFlow(false, 0, 5, 0, 10);
        assertEquals(2, w.remoteIncomingWindow());
    }
}
