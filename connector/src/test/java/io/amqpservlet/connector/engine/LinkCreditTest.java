package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinkCreditTest {

    @Test
    void senderCreditAccountsForMessagesTheReceiverHasNotSeen() {
        LinkCredit sender = new LinkCredit(5);
        sender.onFlowAtSender(true, 5, 10, false);
        assertEquals(10, sender.credit());
        sender.onSent();
        sender.onSent();
        sender.onSent();
        // The receiver's next flow was written after it saw only the first message.
        sender.onFlowAtSender(true, 6, 10, false);
        assertEquals(8, sender.credit(), "6 + 10 - 8");
    }

    @Test
    void creditGrantedBeforeTheSendersAttachSurvivesItsInitialDeliveryCount() {
        LinkCredit receiver = new LinkCredit(0);
        receiver.grant(4, false);
        receiver.onSenderAttach(100);
        assertEquals(4, receiver.credit());
        assertEquals(100, receiver.deliveryCount());
        assertTrue(receiver.creditKnown());
        assertTrue(receiver.onReceived());
        assertEquals(101, receiver.deliveryCount());
    }

    @Test
    void deliveryCountWrapsNearTwoToThe32() {
        LinkCredit sender = new LinkCredit(0xFFFFFFFE);
        sender.onFlowAtSender(true, 0xFFFFFFFE, 4, false);
        assertEquals(0xFFFFFFFE, sender.onSent());
        assertEquals(0xFFFFFFFF, sender.onSent());
        assertEquals(0, sender.onSent());
        assertEquals(1, sender.deliveryCount());
        assertEquals(1, sender.credit());
        sender.onFlowAtSender(true, 0, 100, false);
        assertEquals(99, sender.credit(), "0 + 100 - 1 across the wrap");
    }

    @Test
    void flowBeforeTheReceiverSawOurAttachUsesOurInitialCount() {
        LinkCredit sender = new LinkCredit(1000);
        sender.onFlowAtSender(false, 0, 64, false);
        assertEquals(64, sender.credit());
    }

    @Test
    void drainWithNothingToSendConsumesCreditAndAsksForAFlow() {
        LinkCredit sender = new LinkCredit(0);
        sender.onFlowAtSender(true, 0, 10, true);
        sender.onSent();
        assertFalse(sender.drainIfIdle(true), "still has messages to send");
        assertTrue(sender.drainIfIdle(false));
        assertEquals(10, sender.deliveryCount());
        assertEquals(0, sender.credit());
        assertFalse(sender.drainIfIdle(false), "answered once");
    }

    @Test
    void receiverRejectsTransfersBeyondItsCredit() {
        LinkCredit receiver = new LinkCredit(0);
        receiver.grant(2, false);
        assertTrue(receiver.onReceived());
        assertTrue(receiver.onReceived());
        assertFalse(receiver.onReceived());
    }

    @Test
    void receiverLearnsDrainedCreditFromTheSendersFlow() {
        LinkCredit receiver = new LinkCredit(0xFFFFFFFF);
        receiver.grant(10, true);
        receiver.onReceived();
        assertEquals(0, receiver.deliveryCount());
        receiver.onFlowAtReceiver(9);
        assertEquals(0, receiver.credit());
        assertEquals(9, receiver.deliveryCount());
        assertFalse(receiver.drain());
    }

    @Test
    void flowsWithoutDeliveryCountCountFromOurInitialDeliveryCount() {
        // AMQP 1.0 §2.6.7: a receiver that has not seen our attach sends no delivery-count, and the sender reads its
        // view as our initial-delivery-count: messages sent since used the credit that flow grants.
        LinkCredit sender = new LinkCredit(7);
        sender.onFlowAtSender(false, 0, 3, false);
        assertEquals(3, sender.credit());
        sender.onSent();
        sender.onSent();
        sender.onSent();
        sender.onFlowAtSender(false, 0, 3, false); // a second such flow, written before the first message arrived
        assertEquals(0, sender.credit(), "7 + 3 - 10");
        sender.onFlowAtSender(false, 0, 5, false);
        assertEquals(2, sender.credit(), "7 + 5 - 10");
    }
}
