package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.apache.qpid.protonj2.test.driver.codec.transport.ReceiverSettleMode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our acceptor against the protonj2 test driver, a scripted peer that checks every frame we send against its
 * expectations and fails on anything unexpected (AMQP 1.0 §2, §5.3).
 */
class ScriptedPeerConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    private static EngineConfig plain() {
        return new EngineConfig().containerId("server").idleTimeoutMillis(0)
                .plainAuthenticator((z, user, password) -> "alice".equals(user) && "secret".equals(password) ? user : null);
    }

    /** §2.8.3: first is the default, so it may be sent as an absent field. */
    private static boolean settlesFirst(org.apache.qpid.protonj2.test.driver.codec.transport.Attach a) {
        return a.getReceiverSettleMode() == null || a.getReceiverSettleMode().intValue() == 0;
    }

    private ScriptedPeer opened(EngineConfig config) {
        ScriptedPeer s = new ScriptedPeer(config, handler);
        s.peer.expectAMQPHeader();
        s.peer.expectOpen().withContainerId("server");
        s.peer.remoteHeader(org.apache.qpid.protonj2.test.driver.codec.transport.AMQPHeader.getAMQPHeader()).now();
        s.peer.remoteOpen().withContainerId("driver").now();
        s.complete();
        return s;
    }

    @Test
    void saslPlainThenOpenAgainstTheScriptedClient() {
        try (ScriptedPeer s = new ScriptedPeer(plain(), handler)) {
            s.peer.expectSASLHeader();
            s.peer.expectSaslMechanisms().withSaslServerMechanisms("PLAIN");
            s.peer.remoteSASLHeader().now();
            s.pump();
            s.peer.expectSaslOutcome().withCode((byte) 0);
            s.peer.remoteSaslInit().withMechanism("PLAIN")
                    .withInitialResponse(s.peer.saslPlainInitialResponse("alice", "secret")).now();
            s.pump();
            s.peer.expectAMQPHeader();
            s.peer.expectOpen().withContainerId("server").withOfferedCapabilities("ANONYMOUS-RELAY");
            s.peer.remoteAMQPHeader().now();
            s.peer.remoteOpen().withContainerId("driver").now();
            s.complete();
            assertEquals("alice", s.engine.identity());
            assertTrue(s.engine.isOpen());
        }
    }

    @Test
    void closeIsAnsweredWithClose() {
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectClose();
            s.peer.remoteClose().now();
            s.complete();
            assertTrue(s.engine.isDone());
        }
    }

    @Test
    void messagesFromTheDriverAreDeliveredAndAccepted() {
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            handler.autoCredit = 10;
            s.peer.expectBegin().withRemoteChannel(0);
            s.peer.expectAttach().ofReceiver().withName("requests").withPredicate(ScriptedPeerConformanceTest::settlesFirst);
            s.peer.expectFlow().withLinkCredit(10).withDeliveryCount(0);
            s.peer.remoteBegin().now();
            s.peer.remoteAttach().ofSender().withName("requests").withHandle(0).withSource().also()
                    .withTarget().withAddress("/echo").also().withInitialDeliveryCount(0)
                    .withReceivervSettlesSecond().now();
            s.complete();
            for (int i = 0; i < 3; i++) {
                s.peer.expectDisposition().withFirst(i).withSettled(true).withState().accepted();
                s.peer.remoteTransfer().withHandle(0).withDeliveryId(i).withDeliveryTag(new byte[] {(byte) i})
                        .withMessageFormat(0).withPayload(RawPeer.message("POST", 10)).now();
            }
            s.complete();
            assertEquals(3, handler.messages);
        }
    }

    @Test
    void aRefusedSessionIsBegunThenEnded() {
        handler.refuseSessions = new ErrorCondition().condition(ErrorConditions.RESOURCE_LIMIT_EXCEEDED).description("busy");
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin().withRemoteChannel(0);
            s.peer.expectEnd().withError("amqp:resource-limit-exceeded", "busy");
            s.peer.remoteBegin().now();
            s.complete();
            assertTrue(s.engine.isOpen());
        }
    }

    @Test
    void aRefusedLinkIsAttachedWithANullTargetThenDetached() {
        handler.refuseLinks = new ErrorCondition().condition(ErrorConditions.NOT_FOUND).description("no node");
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin();
            s.peer.expectAttach().ofReceiver().withNullTarget();
            s.peer.expectDetach().withClosed(true).withError("amqp:not-found", "no node");
            s.peer.remoteBegin().now();
            s.peer.remoteAttach().ofSender().withName("nowhere").withHandle(0).withSource().also()
                    .withTarget().withAddress("/nowhere").also().withInitialDeliveryCount(0).now();
            s.complete();
        }
    }

    @Test
    void aTransferForAnUnknownHandleEndsTheSessionWithUnattachedHandle() {
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin();
            s.peer.remoteBegin().now();
            s.complete();
            s.peer.expectEnd().withError("amqp:session:unattached-handle");
            s.peer.remoteTransfer().withHandle(9).withDeliveryId(0).withDeliveryTag(new byte[] {1})
                    .withMessageFormat(0).withPayload(RawPeer.message("POST", 1)).now();
            s.complete();
            assertTrue(s.engine.isOpen());
        }
    }

    @Test
    void aTransferWithoutCreditDetachesWithTransferLimitExceeded() {
        handler.autoCredit = 0;
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin();
            s.peer.expectAttach().ofReceiver();
            s.peer.remoteBegin().now();
            s.peer.remoteAttach().ofSender().withName("greedy").withHandle(0).withSource().also()
                    .withTarget().withAddress("/q").also().withInitialDeliveryCount(0).now();
            s.complete();
            s.peer.expectDetach().withError("amqp:link:transfer-limit-exceeded");
            s.peer.remoteTransfer().withHandle(0).withDeliveryId(0).withDeliveryTag(new byte[] {1})
                    .withMessageFormat(0).withPayload(RawPeer.message("POST", 1)).now();
            s.complete();
        }
    }

    @Test
    void drainWithNothingToSendIsAnsweredAndEchoIsAnswered() {
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin();
            s.peer.expectAttach().ofSender().withInitialDeliveryCount(0);
            s.peer.remoteBegin().now();
            s.peer.remoteAttach().ofReceiver().withName("events").withHandle(0).withSource().withAddress("/events")
                    .also().withTarget().also().now();
            s.complete();
            s.peer.expectFlow().withHandle(0).withDeliveryCount(5).withLinkCredit(0);
            s.peer.remoteFlow().withHandle(0).withDeliveryCount(0).withLinkCredit(5).withDrain(true)
                    .withIncomingWindow(100).withNextIncomingId(0).withOutgoingWindow(100).withNextOutgoingId(0).now();
            s.complete();
            s.peer.expectFlow().withHandle(0).withDeliveryCount(5).withLinkCredit(3)
                    .withPredicate(f -> f.getEcho() == null || !f.getEcho());
            s.peer.remoteFlow().withHandle(0).withDeliveryCount(5).withLinkCredit(3).withEcho(true)
                    .withIncomingWindow(100).withNextIncomingId(0).withOutgoingWindow(100).withNextOutgoingId(0).now();
            s.complete();
        }
    }

    /** The peer attaches a receiver on {@code /events} (we send on it) and grants {@code credit}. */
    private ScriptedPeer sendingTo(int credit) {
        ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0));
        s.peer.expectBegin();
        s.peer.expectAttach().ofSender().withInitialDeliveryCount(0);
        s.peer.remoteBegin().now();
        s.peer.remoteAttach().ofReceiver().withName("events").withHandle(0).withSource().withAddress("/events")
                .also().withTarget().also().now();
        if (credit > 0) {
            s.peer.remoteFlow().withHandle(0).withDeliveryCount(0).withLinkCredit(credit)
                    .withIncomingWindow(100).withNextIncomingId(0).withOutgoingWindow(100).withNextOutgoingId(0).now();
        }
        s.complete();
        return s;
    }

    private static void flow(ScriptedPeer s, int deliveryCount, int credit, boolean drain) {
        s.peer.remoteFlow().withHandle(0).withDeliveryCount(deliveryCount).withLinkCredit(credit).withDrain(drain)
                .withIncomingWindow(100).withNextIncomingId(deliveryCount).withOutgoingWindow(100)
                .withNextOutgoingId(0).now();
    }

    @Test
    void aDrainAtZeroCreditIsAnsweredAtOnceWhileMessagesAreQueued() {
        // AMQP 1.0 §2.6.7: with no credit the sender has nothing it may send, so it answers the drain at once (the
        // frame a client waiting for its drain, such as go-amqp's Receiver.DrainCredit, needs), and the queued
        // messages stay queued for the next credit.
        try (ScriptedPeer s = sendingTo(1)) {
            Link events = handler.link("events");
            byte[] m = RawPeer.message("200", 10);
            s.peer.expectTransfer().withHandle(0).withDeliveryId(0);
            assertNotNull(events.send(m, 0, m.length, true));
            assertNotNull(events.send(m, 0, m.length, true), "queued: no credit left");
            assertNotNull(events.send(m, 0, m.length, true), "queued: no credit left");
            s.complete();
            assertEquals(2, events.queued());
            s.peer.expectFlow().withHandle(0).withDeliveryCount(1).withLinkCredit(0).withDrain(true);
            flow(s, 1, 0, true);
            s.complete();
            assertEquals(2, events.queued(), "a drain gives no credit to send them on");
            s.peer.expectTransfer().withHandle(0).withDeliveryId(1);
            flow(s, 1, 1, false);
            s.complete();
            assertEquals(1, events.queued());
        }
    }

    @Test
    void aDrainSendsWhatCreditAllowsThenUsesUpTheRestAndIsAnswered() {
        try (ScriptedPeer s = sendingTo(0)) {
            Link events = handler.link("events");
            byte[] m = RawPeer.message("200", 10);
            for (int i = 0; i < 5; i++) {
                assertNotNull(events.send(m, 0, m.length, true));
            }
            s.complete();
            // Credit for 3 of the 5 queued: all 3 go, and with the credit used the drain is answered (§2.6.7).
            for (int i = 0; i < 3; i++) {
                s.peer.expectTransfer().withHandle(0).withDeliveryId(i);
            }
            s.peer.expectFlow().withHandle(0).withDeliveryCount(3).withLinkCredit(0).withDrain(true);
            flow(s, 0, 3, true);
            s.complete();
            assertEquals(2, events.queued());
            // Credit for 4 with 2 queued: both go, then delivery-count advances by the 2 left over.
            s.peer.expectTransfer().withHandle(0).withDeliveryId(3);
            s.peer.expectTransfer().withHandle(0).withDeliveryId(4);
            s.peer.expectFlow().withHandle(0).withDeliveryCount(7).withLinkCredit(0).withDrain(true);
            flow(s, 3, 4, true);
            s.complete();
            assertEquals(0, events.queued());
            assertFalse(events.canSend());
        }
    }

    @Test
    void wrapAroundOf40MessagesFromNear2To32() {
        long start = 0xFFFFFFF0L;
        handler.autoCredit = 100;
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin().withRemoteChannel(0);
            s.peer.expectAttach().ofReceiver();
            s.peer.expectFlow().withDeliveryCount(start).withNextIncomingId(start).withLinkCredit(100);
            s.peer.remoteBegin().withNextOutgoingId(start).now();
            s.peer.remoteAttach().ofSender().withName("wrap").withHandle(0).withSource().also()
                    .withTarget().withAddress("/q").also().withInitialDeliveryCount(start).now();
            s.complete();
            for (int i = 0; i < 40; i++) {
                long id = (start + i) & 0xFFFFFFFFL;
                s.peer.expectDisposition().withFirst(id).withSettled(true);
                s.peer.remoteTransfer().withHandle(0).withDeliveryId(id).withDeliveryTag(new byte[] {(byte) i})
                        .withMessageFormat(0).withPayload(RawPeer.message("m" + i, 1)).now();
                s.pump();
            }
            s.complete();
            assertEquals(40, handler.messages);
            assertEquals((int) start + 39, (int) handler.messageIds.get(39));
        }
    }

    @Test
    void rcvSettleModeSecondIsAnsweredWithFirst() {
        try (ScriptedPeer s = opened(RawPeer.noSasl().idleTimeoutMillis(0))) {
            s.peer.expectBegin();
            s.peer.expectAttach().withPredicate(ScriptedPeerConformanceTest::settlesFirst);
            s.peer.expectFlow();
            s.peer.remoteBegin().now();
            s.peer.remoteAttach().ofSender().withName("second").withHandle(0).withSource().also()
                    .withTarget().withAddress("/q").also().withInitialDeliveryCount(0)
                    .withRcvSettleMode(ReceiverSettleMode.SECOND).now();
            s.complete();
        }
    }

    @Test
    void aPeerMaxFrameSizeOf512SplitsOurTransfers() {
        try (ScriptedPeer s = new ScriptedPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler)) {
            s.peer.expectAMQPHeader();
            s.peer.expectOpen();
            s.peer.remoteAMQPHeader().now();
            s.peer.remoteOpen().withMaxFrameSize(512).now();
            s.peer.expectBegin();
            s.peer.expectAttach().ofSender();
            s.peer.remoteBegin().now();
            s.peer.remoteAttach().ofReceiver().withName("events").withHandle(0).withSource().withAddress("/events")
                    .also().withTarget().also().now();
            s.peer.remoteFlow().withHandle(0).withDeliveryCount(0).withLinkCredit(1)
                    .withIncomingWindow(100).withNextIncomingId(0).withOutgoingWindow(100).withNextOutgoingId(0).now();
            s.complete();
            // The driver refuses any frame above 512 bytes; 1,500 bytes of body need four of them.
            s.peer.getDriver().setInboundMaxFrameSize(512);
            byte[] message = RawPeer.message("200", 1_500);
            s.peer.expectTransfer().withHandle(0).withDeliveryId(0).withMore(true);
            s.peer.expectTransfer().withHandle(0).withMore(true);
            s.peer.expectTransfer().withHandle(0).withMore(true);
            s.peer.expectTransfer().withHandle(0).withPredicate(t -> t.getMore() == null || !t.getMore());
            Delivery d = handler.link("events").send(message, 0, message.length, true);
            assertNotNull(d);
            s.complete();
        }
    }
}
