package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Disposition;

import io.amqpservlet.protocol.types.messaging.DeliveryState;

import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.ReceiverSettleMode;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Links (AMQP 1.0 §2.6, §2.7.3-§2.7.4): refusal, settle modes, credit, drain and echo, against raw frames. */
class LinkConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    private RawPeer session(EngineConfig config) {
        RawPeer peer = new RawPeer(config, handler);
        peer.open();
        peer.begin(0, 0, 1000);
        return peer;
    }

    private static Flow linkFlow(RawPeer peer, int handle, int deliveryCount, int credit) {
        return peer.p().flow().clear().nextIncomingId(0).incomingWindow(1000).nextOutgoingId(0).outgoingWindow(1000)
                .handle(handle).deliveryCount(deliveryCount).linkCredit(credit);
    }

    @Test
    void aRefusedLinkIsAttachedWithANullTargetThenDetachedWithTheError() {
        handler.refuseLinks = new ErrorCondition().condition(ErrorConditions.NOT_FOUND).description("no node");
        RawPeer peer = session(RawPeer.noSasl());
        Attach attach = peer.attachSender(0, 0, "in", "/nowhere", 0);
        assertTrue(attach.target().isNull(), "§2.6.3: refused with a null terminus: " + attach);
        assertEquals(Role.RECEIVER, attach.role());
        Detach detach = peer.next(Detach.class);
        RawPeer.assertDetachError(detach, ErrorConditions.NOT_FOUND);
        assertTrue(detach.closed());
        peer.frame(0, peer.p().detach().clear().handle(0).closed(true)).flush();
        assertTrue(peer.take().isEmpty(), "the refusal's detach was already sent");
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aRefusedReceivingLinkIsAttachedWithANullSource() {
        handler.refuseLinks = new ErrorCondition().condition(ErrorConditions.UNAUTHORIZED_ACCESS);
        RawPeer peer = session(RawPeer.noSasl());
        Attach attach = peer.attachReceiver(0, 0, "out", "/secret");
        assertTrue(attach.source().isNull(), attach.toString());
        RawPeer.assertDetachError(peer.next(Detach.class), ErrorConditions.UNAUTHORIZED_ACCESS);
    }

    @Test
    void rcvSettleModeSecondIsAnsweredWithFirst() {
        RawPeer peer = session(RawPeer.noSasl());
        Attach a = peer.p().attach().clear().name("second").handle(0).role(Role.SENDER)
                .rcvSettleMode(ReceiverSettleMode.SECOND).initialDeliveryCount(0);
        a.source().clear().present(true).address("s");
        a.target().clear().present(true).address("/q");
        peer.frame(0, a).flush();
        Attach answer = peer.next(Attach.class);
        assertEquals(ReceiverSettleMode.FIRST, answer.rcvSettleMode());
        assertFalse(answer.target().isNull(), "the link is accepted, with first");
    }

    @Test
    void aSendersAttachWithoutInitialDeliveryCountIsRefused() {
        RawPeer peer = session(RawPeer.noSasl());
        Attach a = peer.p().attach().clear().name("nocount").handle(0).role(Role.SENDER);
        a.source().clear().present(true).address("s");
        a.target().clear().present(true).address("/q");
        peer.frame(0, a).flush();
        assertTrue(peer.next(Attach.class).target().isNull());
        RawPeer.assertDetachError(peer.next(Detach.class), ErrorConditions.INVALID_FIELD);
    }

    @Test
    void aTransferWithoutCreditDetachesTheLinkWithTransferLimitExceeded() {
        handler.autoCredit = 0;
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachSender(0, 0, "nocredit", "/q", 0);
        peer.attachSender(0, 1, "other", "/q", 0);
        handler.link("other").flow(5);
        peer.collect();
        peer.take();
        peer.transfer(0, peer.transfer(0, 0, true), RawPeer.message("POST", 1)).flush();
        RawPeer.assertDetachError(peer.next(Detach.class), ErrorConditions.LINK_TRANSFER_LIMIT_EXCEEDED);
        assertEquals(0, handler.messages);
        // The session and its other link carry on.
        peer.transfer(0, peer.transfer(1, 1, true), RawPeer.message("POST", 1)).flush();
        assertEquals(1, handler.messages, handler.events.toString());
    }

    @Test
    void withReleaseBeyondCreditATransferWithoutCreditIsReleasedAndTheLinkCarriesOn() {
        handler.autoCredit = 0;
        RawPeer peer = session(RawPeer.noSasl().releaseBeyondCredit(true));
        peer.attachSender(0, 0, "overrun", "/q", 0);
        handler.link("overrun").flow(1);
        peer.collect();
        peer.take();
        peer.transfer(0, peer.transfer(0, 0, false), RawPeer.message("POST", 1)).flush();
        assertEquals(1, handler.messages, "the message within credit is delivered");
        peer.next(Disposition.class); // accepted by the application
        // The sender overruns its credit by one (as RabbitMQ 3's queue does now and then).
        peer.transfer(0, peer.transfer(0, 1, false), RawPeer.message("POST", 2)).flush();
        Disposition released = peer.next(Disposition.class);
        assertEquals(1, released.first());
        assertEquals(DeliveryState.Kind.RELEASED, released.state().kind(), released.toString());
        assertEquals(1, handler.messages, "the one beyond credit is not handed to the application");
        assertTrue(handler.link("overrun").isOpen(), "the link is not detached");
        assertEquals(1, peer.engine.receivedBeyondCredit(), "counted");
        // Credit granted again counts from the sender's delivery-count, the overrun message included.
        handler.link("overrun").flow(1);
        peer.collect();
        Flow flow = peer.next(Flow.class);
        assertEquals(2, flow.deliveryCount());
        peer.transfer(0, peer.transfer(0, 2, false), RawPeer.message("POST", 3)).flush();
        assertEquals(2, handler.messages, handler.events.toString());
        assertEquals(1, peer.engine.receivedBeyondCredit(), "within credit again: not counted");
    }

    @Test
    void creditIsGrantedWithTheSendersDeliveryCount() {
        handler.autoCredit = 10;
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachSender(0, 0, "in", "/q", 12345);
        Flow flow = peer.next(Flow.class);
        assertEquals(12345, flow.deliveryCount());
        assertEquals(10, flow.linkCredit());
    }

    @Test
    void aDrainIsAnsweredWithAFlowWhenThereIsNothingToSend() {
        RawPeer peer = session(RawPeer.noSasl());
        Attach ours = peer.attachReceiver(0, 0, "out", "/events");
        assertEquals(0, ours.initialDeliveryCount());
        peer.frame(0, linkFlow(peer, 0, 0, 5).drain(true)).flush();
        Flow answer = peer.next(Flow.class);
        assertEquals(0, answer.handle());
        assertEquals(5, answer.deliveryCount(), "§2.6.7: delivery-count advanced by the unused credit");
        assertEquals(0, answer.linkCredit());
    }

    @Test
    void aDrainAfterSomeMessagesWereSentConsumesOnlyTheRest() {
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachReceiver(0, 0, "out", "/events");
        Link sender = handler.link("out");
        byte[] m = RawPeer.message("200", 3);
        for (int i = 0; i < 2; i++) {
            assertNotNull(sender.send(m, 0, m.length, true));
        }
        peer.frame(0, linkFlow(peer, 0, 0, 5).drain(true)).flush();
        assertEquals(2, peer.allOf(Transfer.class).size());
        Flow answer = peer.last(Flow.class);
        assertEquals(5, answer.deliveryCount());
        assertEquals(0, answer.linkCredit());
        assertFalse(sender.canSend());
    }

    @Test
    void aDrainWithCreditLeftIsAnsweredWhileTheOnlyQueuedMessageWaitsForItsNextBytes() {
        // A streamed response took its credit with its first frame and waits for the application: no queued message
        // can use the credit left, so the drain uses it up now (§2.6.7) instead of waiting for the response's end.
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachReceiver(0, 0, "out", "/events");
        Link sender = handler.link("out");
        peer.frame(0, linkFlow(peer, 0, 0, 5)).flush();
        peer.take();
        byte[] head = RawPeer.message("200", 10);
        assertNotNull(sender.beginMessage(head, 0, head.length, true));
        peer.collect();
        assertEquals(1, peer.allOf(Transfer.class).size(), "the first part went");
        peer.take();
        peer.frame(0, linkFlow(peer, 0, 0, 5).drain(true)).flush();
        Flow answer = peer.next(Flow.class);
        assertTrue(answer.drain());
        assertEquals(5, answer.deliveryCount(), "the started message's credit and the 4 left");
        assertEquals(0, answer.linkCredit());
        assertEquals(1, sender.queued(), "the open message goes on as its bytes come");
    }

    @Test
    void aDrainWithMessagesQueuedBehindAStalledWindowWaitsUntilTheyAreSent() {
        // Messages that credit allows but the session window holds are still available (§2.6.7: the drain is
        // answered after sending all available messages): the answer comes once the window lets them go.
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 1000);
        peer.attachReceiver(0, 0, "out", "/events");
        Link sender = handler.link("out");
        byte[] m = RawPeer.message("200", 10);
        for (int i = 0; i < 3; i++) {
            assertNotNull(sender.send(m, 0, m.length, true));
        }
        peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(1).nextOutgoingId(0)
                .outgoingWindow(1000).handle(0).deliveryCount(0).linkCredit(5).drain(true)).flush();
        assertEquals(1, peer.allOf(Transfer.class).size(), "one frame of session window");
        assertTrue(peer.allOf(Flow.class).stream().noneMatch(Flow::drain), "two messages can still use the credit");
        peer.frame(0, peer.p().flow().clear().nextIncomingId(1).incomingWindow(10).nextOutgoingId(0)
                .outgoingWindow(1000).handle(0).deliveryCount(0).linkCredit(5).drain(true)).flush();
        assertEquals(3, peer.allOf(Transfer.class).size(), "the other two, then the answer");
        Flow answer = peer.last(Flow.class);
        assertTrue(answer.drain());
        assertEquals(5, answer.deliveryCount());
        assertEquals(0, answer.linkCredit());
    }

    @Test
    void aLinkFlowWithEchoIsAnsweredWithTheLinksState() {
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachReceiver(0, 0, "out", "/events");
        peer.frame(0, linkFlow(peer, 0, 0, 7).echo(true)).flush();
        Flow answer = peer.next(Flow.class);
        assertTrue(answer.hasHandle());
        assertEquals(0, answer.handle());
        assertEquals(0, answer.deliveryCount());
        assertEquals(7, answer.linkCredit());
        assertFalse(answer.echo());
    }

    @Test
    void aLinkFlowWithEchoOnAReceivingLinkIsAnsweredToo() {
        handler.autoCredit = 4;
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.take();
        peer.frame(0, linkFlow(peer, 0, 0, 0).echo(true)).flush();
        Flow answer = peer.next(Flow.class);
        assertEquals(0, answer.handle());
        assertEquals(4, answer.linkCredit());
    }

    @Test
    void aDetachIsAnsweredAndTheHandleCanBeReused() {
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachSender(0, 0, "one", "/q", 0);
        peer.take();
        peer.frame(0, peer.p().detach().clear().handle(0).closed(true)).flush();
        Detach d = peer.next(Detach.class);
        assertTrue(d.error().isNull());
        assertTrue(d.closed());
        peer.attachSender(0, 0, "two", "/q", 0);
        peer.transfer(0, peer.transfer(0, 0, true), RawPeer.message("POST", 1)).flush();
        assertEquals(1, handler.messages);
    }

    @Test
    void anAttachOnAHandleInUseEndsTheSession() {
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachSender(0, 0, "one", "/q", 0);
        peer.take();
        Attach a = peer.p().attach().clear().name("two").handle(0).role(Role.SENDER).initialDeliveryCount(0);
        a.source().clear().present(true);
        a.target().clear().present(true).address("/q");
        peer.frame(0, a).flush();
        RawPeer.assertEndError(peer.next(io.amqpservlet.protocol.types.transport.End.class),
                ErrorConditions.SESSION_HANDLE_IN_USE);
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aFlowWithEchoForALinkWeDetachedIsNotAnsweredAfterOurDetach() {
        RawPeer peer = session(RawPeer.noSasl());
        peer.attachReceiver(0, 0, "out", "/events");
        peer.attachSender(0, 1, "in", "/q", 0);
        peer.take();
        handler.link("out").session().detach(handler.link("out"), null, null);
        handler.link("in").session().detach(handler.link("in"), null, null);
        peer.collect();
        assertEquals(2, peer.take().size(), "our two detaches");
        // The peer's flows crossed our detaches: §2.6.6, the handles are no longer ours to send on.
        peer.frame(0, linkFlow(peer, 0, 0, 7).echo(true));
        peer.frame(0, linkFlow(peer, 1, 0, 0).echo(true)).flush();
        assertTrue(peer.take().isEmpty(), "nothing follows our detach on its handle");
        peer.frame(0, peer.p().detach().clear().handle(0).closed(true));
        peer.frame(0, peer.p().detach().clear().handle(1).closed(true)).flush();
        assertTrue(peer.take().isEmpty(), "the peer's detaches answer ours");
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void pipelinedFlowsWrittenBeforeThePeerHadOurAttachShareOneGrantOfCredit() {
        byte[] m = RawPeer.message("200", 1);
        AcceptorRecorder sender = new AcceptorRecorder() {
            @Override
            public void onSendable(Link link) {
                for (int i = 0; i < 5 && link.queued() == 0; i++) {
                    link.send(m, 0, m.length, false); // sent while credit lasts, then queued
                }
            }
        };
        RawPeer peer = new RawPeer(RawPeer.noSasl(), sender);
        peer.open();
        peer.begin(0, 0, 1000);
        // Attach and two flows in one write, before the peer read our attach: no delivery-count (AMQP 1.0 §2.7.4),
        // the same 3 credits stated twice.
        Attach a = peer.p().attach().clear().name("out").handle(0).role(Role.RECEIVER);
        a.source().clear().present(true).address("/events");
        a.target().clear().present(true).address("out");
        peer.frame(0, a);
        for (int i = 0; i < 2; i++) {
            peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(1000).nextOutgoingId(0)
                    .outgoingWindow(1000).handle(0).linkCredit(3));
        }
        peer.flush();
        assertEquals(3, peer.allOf(Transfer.class).size(), "§2.6.7: both flows count from our initial-delivery-count");
    }
}
