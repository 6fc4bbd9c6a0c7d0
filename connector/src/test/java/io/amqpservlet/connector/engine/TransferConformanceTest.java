package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transfers and dispositions (AMQP 1.0 §2.6.12-§2.6.14, §2.7.5-§2.7.6): multi-frame and aborted deliveries, and
 * delivery-id, transfer-id and delivery-count as serial numbers that wrap past 2^32 − 1.
 */
class TransferConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    private static byte[][] split(byte[] message, int parts) {
        byte[][] out = new byte[parts][];
        int per = (message.length + parts - 1) / parts;
        for (int i = 0; i < parts; i++) {
            out[i] = Arrays.copyOfRange(message, Math.min(message.length, i * per), Math.min(message.length, (i + 1) * per));
        }
        return out;
    }

    @Test
    void aMultiFrameMessageIsDeliveredWhole() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        byte[][] parts = split(RawPeer.message("POST", 3_000), 3);
        peer.transfer(0, peer.transfer(0, 0, false).more(true), parts[0]);
        peer.transfer(0, peer.p().transfer().clear().handle(0).more(true), parts[1]);
        peer.transfer(0, peer.p().transfer().clear().handle(0), parts[2]).flush();
        assertEquals(1, handler.messages);
        assertEquals("POST", handler.subjects.get(0));
        Disposition d = peer.last(Disposition.class);
        assertNotNull(d);
        assertEquals(DeliveryState.Kind.ACCEPTED, d.state().kind());
    }

    @Test
    void anAbortedMultiFrameTransferIsReportedAbortedNeverDeliveredAndItsCreditStaysUsed() {
        handler.autoCredit = 0;
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        Link link = handler.link("in");
        link.flow(2);
        peer.collect();
        byte[][] parts = split(RawPeer.message("POST", 3_000), 3);
        peer.transfer(0, peer.transfer(0, 0, false).more(true), parts[0]);
        peer.transfer(0, peer.p().transfer().clear().handle(0).more(true), parts[1]);
        peer.transfer(0, peer.p().transfer().clear().handle(0).aborted(true), new byte[0]).flush();
        assertEquals(0, handler.messages, handler.events.toString());
        assertEquals(1, handler.aborted);
        assertEquals(1, link.linkCredit(), "§2.6.14: the aborted delivery used its credit");
        assertEquals(1, link.deliveryCount());
        assertEquals(0, peer.engine.incomingUnsettled, "an aborted delivery is settled");
        assertTrue(peer.allOf(Disposition.class).isEmpty(), "nothing to settle for an aborted delivery");
        // The link goes on: the next delivery arrives whole.
        peer.transfer(0, peer.transfer(0, 1, false), RawPeer.message("NEXT", 10)).flush();
        assertEquals(List.of("NEXT"), handler.subjects);
        assertEquals(0, link.linkCredit());
    }

    @Test
    void idsAndCountsWrapPast2To32WithoutBreakingAnything() {
        int start = 0xFFFFFFF0;
        handler.autoCredit = 10;
        RawPeer peer = new RawPeer(RawPeer.noSasl().sessionIncomingWindowFrames(8), handler);
        peer.open();
        peer.begin(0, start, 100);
        peer.attachSender(0, 0, "in", "/q", start);
        Flow first = peer.next(Flow.class);
        assertEquals(start, first.deliveryCount());
        assertEquals(start, first.nextIncomingId());
        int limit = first.deliveryCount() + first.linkCredit(); // serial arithmetic: the int addition wraps
        int windowEnd = first.nextIncomingId() + first.incomingWindow();
        for (int i = 0; i < 40; i++) {
            int id = start + i;
            assertTrue(SerialNumber.lessThan(id, limit), "credit for delivery " + i);
            assertTrue(SerialNumber.lessThan(id, windowEnd), "session window for transfer " + i);
            peer.transfer(0, peer.transfer(0, id, false), RawPeer.message("m" + i, 5)).flush();
            for (RawPeer.Frame f : peer.take()) {
                if (f.performative() instanceof Flow flow) {
                    windowEnd = flow.nextIncomingId() + flow.incomingWindow();
                    if (flow.hasHandle()) {
                        assertEquals(id + 1, flow.deliveryCount(), "delivery-count after delivery " + i);
                        limit = flow.deliveryCount() + flow.linkCredit();
                    } else {
                        assertEquals(id + 1, flow.nextIncomingId(), "next-incoming-id after transfer " + i);
                    }
                } else if (f.performative() instanceof Disposition d) {
                    assertEquals(id, d.first(), "disposition for delivery " + i);
                }
            }
        }
        assertEquals(40, handler.messages);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            expected.add(start + i);
        }
        assertEquals(expected, handler.messageIds);
        assertEquals(40, peer.allOf(Disposition.class).size());
        assertEquals(0, peer.engine.incomingUnsettled);
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aDispositionRangeThatWrapsSettlesTheSendersDeliveriesOnBothSidesOfZero() {
        handler.hold = true;
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0xFFFFFFFE, 100);
        peer.attachSender(0, 0, "in", "/q", 0xFFFFFFFE);
        for (int id : new int[] {0xFFFFFFFE, 0xFFFFFFFF, 0, 1}) {
            peer.transfer(0, peer.transfer(0, id, false), RawPeer.message("m", 1));
        }
        peer.flush();
        assertEquals(4, handler.held.size());
        assertEquals(4, peer.engine.incomingUnsettled);
        Disposition d = peer.p().disposition().clear().role(Role.SENDER).first(0xFFFFFFFE).last(1).settled(true);
        peer.frame(0, d).flush();
        assertEquals(4, handler.updates, handler.events.toString());
        for (Delivery delivery : handler.held) {
            assertTrue(delivery.remotelySettled(), delivery.toString());
            peer.engine.accept(delivery);
        }
        peer.collect();
        assertEquals(0, peer.engine.incomingUnsettled);
        assertTrue(peer.allOf(Disposition.class).isEmpty(), "the sender settled first: nothing to tell it");
    }

    @Test
    void aDispositionRangeThatWrapsSettlesOurDeliveries() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachReceiver(0, 0, "out", "/events");
        peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(100).nextOutgoingId(0)
                .outgoingWindow(100).handle(0).deliveryCount(0).linkCredit(10)).flush();
        Link sender = handler.link("out");
        byte[] m = RawPeer.message("200", 1);
        Delivery a = sender.send(m, 0, m.length, false);
        Delivery b = sender.send(m, 0, m.length, false);
        Delivery c = sender.send(m, 0, m.length, false);
        peer.collect();
        assertEquals(List.of(0, 1, 2), peer.allOf(Transfer.class).stream().map(Transfer::deliveryId).toList());
        Disposition d = peer.p().disposition().clear().role(Role.RECEIVER).first(0xFFFFFFFE).last(1).settled(true);
        d.state().accepted();
        peer.frame(0, d).flush();
        assertEquals(List.of("updated 0 accepted settled", "updated 1 accepted settled"),
                handler.events.stream().filter(e -> e.startsWith("updated")).toList());
        assertEquals(2, c.deliveryId(), "delivery 2 is outside the range and still ours");
        assertEquals(sender, c.link());
        assertNull(a.link(), "settled on both sides: recycled");
        assertNull(b.link(), "settled on both sides: recycled");
    }

    @Test
    void aDispositionRangeThatEndsBeforeItStartsEndsTheSession() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        // 5..3 is backwards by serial arithmetic (not a wrap of 2^32 - 2 ids).
        peer.frame(0, peer.p().disposition().clear().role(Role.RECEIVER).first(5).last(3).settled(true)).flush();
        RawPeer.assertEndError(peer.next(io.amqpservlet.protocol.types.transport.End.class),
                io.amqpservlet.protocol.types.transport.ErrorConditions.INVALID_FIELD);
    }

    @Test
    void closingTheConnectionFromOnMessageSendsNothingAfterTheClose() {
        AcceptorRecorder closer = new AcceptorRecorder() {
            @Override
            public void onMessage(Link link, Delivery delivery, io.amqpservlet.protocol.message.MessageView message) {
                super.onMessage(link, delivery, message);
                link.session().engine().close(io.amqpservlet.protocol.types.transport.ErrorConditions.CONNECTION_FORCED, "bye");
            }
        };
        closer.hold = true;
        RawPeer peer = new RawPeer(RawPeer.noSasl().sessionIncomingWindowFrames(2), closer);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.take();
        peer.transfer(0, peer.transfer(0, 0, false), RawPeer.message("POST", 1)).flush();
        List<RawPeer.Frame> frames = peer.take();
        assertTrue(frames.size() >= 1, frames.toString());
        assertTrue(frames.get(frames.size() - 1).performative() instanceof io.amqpservlet.protocol.types.transport.Close,
                "§2.4.3: nothing may follow our close: " + frames);
        // Settling afterwards (a servlet finishing late) writes nothing either.
        peer.engine.accept(closer.held.get(0));
        peer.collect();
        assertTrue(peer.take().isEmpty());
    }

    @Test
    void aDeliveryIdStillUnsettledIsNotTakenAgain() {
        handler.hold = true;
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.transfer(0, peer.transfer(0, 7, false), RawPeer.message("first", 1)).flush();
        peer.take();
        // The same delivery-id again while the first delivery is unsettled: two deliveries cannot share it.
        peer.transfer(0, peer.transfer(0, 7, false), RawPeer.message("second", 1)).flush();
        RawPeer.assertDetachError(peer.first(io.amqpservlet.protocol.types.transport.Detach.class),
                io.amqpservlet.protocol.types.transport.ErrorConditions.INVALID_FIELD);
        assertEquals(List.of("first"), handler.subjects, "the second delivery never reached the application");
        assertEquals(1, handler.held.size());
        assertEquals(0, peer.engine.incomingUnsettled, "the link's end dropped its unsettled delivery");
    }

    @Test
    void aDeliveryTagLongerThan32OctetsDetachesTheLink() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.take();
        byte[] tag = new byte[32];
        peer.transfer(0, peer.transfer(0, 0, false).deliveryTag(tag, 0, tag.length), RawPeer.message("OK", 1)).flush();
        assertEquals(List.of("OK"), handler.subjects, "§2.8.7: a tag of up to 32 octets");
        peer.take();
        // Each unsettled delivery keeps its tag: a longer one would let the peer park up to a frame per delivery.
        byte[] tooLong = new byte[33];
        peer.transfer(0, peer.transfer(0, 1, false).deliveryTag(tooLong, 0, tooLong.length),
                RawPeer.message("LONG", 1)).flush();
        RawPeer.assertDetachError(peer.first(io.amqpservlet.protocol.types.transport.Detach.class),
                io.amqpservlet.protocol.types.transport.ErrorConditions.INVALID_FIELD);
        assertEquals(List.of("OK"), handler.subjects);
        assertEquals(0, peer.engine.incomingUnsettled);
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aDispositionSettlesOnlyDeliveriesSentBeforeItArrived() {
        byte[] m = RawPeer.message("200", 1);
        List<Delivery> sentFromCallback = new ArrayList<>();
        AcceptorRecorder sender = new AcceptorRecorder() {
            @Override
            public void onDeliveryUpdated(Link link, Delivery delivery) {
                super.onDeliveryUpdated(link, delivery);
                if (sentFromCallback.isEmpty()) {
                    // The next response goes out as the peer settles the previous one (request after request).
                    sentFromCallback.add(link.send(m, 0, m.length, false));
                }
            }
        };
        RawPeer peer = new RawPeer(RawPeer.noSasl(), sender);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachReceiver(0, 0, "out", "/events");
        peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(100).nextOutgoingId(0)
                .outgoingWindow(100).handle(0).deliveryCount(0).linkCredit(10)).flush();
        Link link = sender.link("out");
        Delivery first = link.send(m, 0, m.length, false);
        peer.collect();
        peer.take();
        // A range wider than what was sent: it cannot settle a delivery the peer had not received when it wrote it.
        Disposition d = peer.p().disposition().clear().role(Role.RECEIVER).first(0).last(5).settled(true);
        d.state().accepted();
        peer.frame(0, d).flush();
        assertNull(first.link(), "delivery 0 settled on both sides");
        Delivery second = sentFromCallback.get(0);
        assertNotNull(second);
        assertEquals(1, second.deliveryId());
        assertTrue(!second.remotelySettled(), "delivery 1 was sent after the disposition: " + sender.events);
        assertEquals(link, second.link());
        assertEquals(List.of("updated 0 accepted settled"),
                sender.events.stream().filter(e -> e.startsWith("updated")).toList());
    }
}
