package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Limits narrower than the connection (docs/design.md §5), each broken by a peer: the offending link or session ends
 * with the matching condition and everything else on the connection keeps working.
 */
class LinkLimitsTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    @Test
    void messageSizeIsCountedAcrossFramesAndEndsOnlyThatLink() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxMessageSizeBytes(1_000).sessionIncomingWindowFrames(4), handler);
        peer.open();
        peer.begin(0, 0, 100);
        Attach ours = peer.attachSender(0, 0, "big", "/q", 0);
        assertEquals(1_000, ours.maxMessageSize(), "the limit is advertised in attach");
        peer.attachSender(0, 1, "small", "/q", 0);
        Flow window = null;
        for (RawPeer.Frame f : peer.take()) {
            if (f.performative() instanceof Flow flow) {
                window = flow;
            }
        }
        assertNotNull(window);
        // Frames of 400 bytes each: the third crosses 1,000 bytes. The peer sends two, reads the session flow
        // that reopens the window, then sends four more before it sees our detach: exactly the window it knows.
        byte[] chunk = new byte[400];
        peer.transfer(0, peer.transfer(0, 0, false).more(true), chunk);
        peer.transfer(0, peer.p().transfer().clear().handle(0).more(true), chunk).flush();
        for (Flow f : peer.allOf(Flow.class)) {
            if (!f.hasHandle() || f.handle() == 0) {
                window = f;
            }
        }
        for (int i = 0; i < 4; i++) {
            peer.transfer(0, peer.p().transfer().clear().handle(0).more(true), chunk);
        }
        peer.flush();
        Detach detach = peer.last(Detach.class);
        RawPeer.assertDetachError(detach, ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED);
        assertEquals(0, detach.handle());
        assertTrue(handler.events.contains("detach big amqp:link:message-size-exceeded"), handler.events.toString());
        assertEquals(0, peer.engine.incomingUnsettled);
        // The peer may send only while the window it last heard of lasts: the session must have reopened it.
        int sent = 6;
        int windowEnd = window.nextIncomingId() + window.incomingWindow();
        for (Flow f : peer.allOf(Flow.class)) {
            if (!f.hasHandle()) {
                windowEnd = f.nextIncomingId() + f.incomingWindow();
            }
        }
        assertTrue(SerialNumber.lessThan(sent, windowEnd), "the session window was left closed after dropping "
                + "frames for the detached link: the peer can never send on the other link");
        peer.frame(0, peer.p().detach().clear().handle(0).closed(true)).flush();
        peer.transfer(0, peer.transfer(1, 1, false), RawPeer.message("SMALL", 10)).flush();
        assertEquals(List.of("SMALL"), handler.subjects);
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void rejectingTooLargeMessagesRejectsOnlyThatMessageAndTheLinkCarriesOn() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxMessageSizeBytes(1_000).rejectTooLargeMessages(true), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        // Four frames of 400 bytes: the third crosses 1,000 bytes; the fourth, the last, is dropped with the rest.
        byte[] chunk = new byte[400];
        peer.transfer(0, peer.transfer(0, 0, false).more(true), chunk);
        peer.transfer(0, peer.p().transfer().clear().handle(0).more(true), chunk);
        peer.transfer(0, peer.p().transfer().clear().handle(0).more(true), chunk);
        peer.transfer(0, peer.p().transfer().clear().handle(0), chunk);
        // One frame of 1,200 bytes.
        peer.transfer(0, peer.transfer(0, 1, false), new byte[1_200]);
        peer.transfer(0, peer.transfer(0, 2, false), RawPeer.message("SMALL", 10)).flush();
        assertNull(peer.last(Detach.class), "the link stays");
        List<Disposition> dispositions = peer.allOf(Disposition.class);
        assertEquals(3, dispositions.size(), dispositions.toString());
        assertEquals(DeliveryState.Kind.ACCEPTED, dispositions.get(2).state().kind(), "the recorder accepts it");
        for (int i = 0; i < 2; i++) {
            Disposition d = dispositions.get(i);
            assertEquals(i, d.first());
            assertTrue(d.settled());
            assertEquals(DeliveryState.Kind.REJECTED, d.state().kind());
            assertEquals(ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED.toString(),
                    d.state().error().condition().toString());
        }
        assertEquals(List.of("SMALL"), handler.subjects, "only the message within the limit is handed over");
        assertEquals(List.of("too large in 0 1000", "too large in 1 1000"),
                handler.events.stream().filter(e -> e.startsWith("too large")).toList());
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aMessageOfExactlyTheLimitIsAccepted() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxMessageSizeBytes(1_000), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        byte[] m = RawPeer.message("POST", 0);
        int n = 0;
        while (RawPeer.message("POST", n).length < 1_000) {
            n++;
        }
        m = RawPeer.message("POST", n);
        assertEquals(1_000, m.length);
        peer.transfer(0, peer.transfer(0, 0, false).more(true), Arrays.copyOf(m, 500));
        peer.transfer(0, peer.p().transfer().clear().handle(0), Arrays.copyOfRange(m, 500, 1_000)).flush();
        assertEquals(1, handler.messages, handler.events.toString());
    }

    @Test
    void linksBeyondHandleMaxEndTheSessionAndANewSessionWorks() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().handleMax(1023), handler);
        peer.open();
        Begin ours = peer.begin(0, 0, 100);
        assertEquals(1023, ours.handleMax());
        for (int h = 0; h < 2_000; h++) {
            Attach a = peer.p().attach().clear().name("l" + h).handle(h).role(Role.SENDER).initialDeliveryCount(0);
            a.source().clear().present(true).address("s" + h);
            a.target().clear().present(true).address("/q");
            peer.frame(0, a);
        }
        peer.flush();
        List<Attach> attaches = peer.allOf(Attach.class);
        assertEquals(1024, attaches.size(), "handles 0..1023 are attached");
        End end = peer.last(End.class);
        RawPeer.assertEndError(end, ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertTrue(peer.engine.isOpen(), "the connection survives");
        assertEquals(1024, handler.events.stream().filter(e -> e.startsWith("detach")).count(),
                "ending the session detached every link");
        peer.frame(0, peer.p().end().clear()).flush();
        peer.take();
        peer.begin(1, 0, 100);
        peer.attachSender(1, 0, "fresh", "/q", 0);
        peer.transfer(1, peer.transfer(0, 0, true), RawPeer.message("AFTER", 1)).flush();
        assertEquals(List.of("AFTER"), handler.subjects);
    }

    @Test
    void linksBeyondTheConnectionsLimitEndTheSessionThatAskedAndOthersCarryOn() {
        // Without a limit per connection, channel-max × handle-max links (256 × 1,024 by default) could each keep
        // the name and termini of an attach of up to max-frame-size bytes.
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxLinksPerConnection(10), handler);
        peer.open();
        for (int ch = 0; ch < 3; ch++) {
            peer.begin(ch, 0, 100);
        }
        for (int ch = 0; ch < 2; ch++) {
            for (int h = 0; h < 5; h++) {
                peer.attachSender(ch, h, "l" + ch + "-" + h, "/q", 0);
            }
        }
        peer.take();
        Attach a = peer.p().attach().clear().name("one-too-many").handle(0).role(Role.SENDER).initialDeliveryCount(0);
        a.source().clear().present(true).address("s");
        a.target().clear().present(true).address("/q");
        peer.frame(2, a).flush();
        End end = peer.next(End.class);
        RawPeer.assertEndError(end, ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertTrue(peer.take().isEmpty(), "the link was not attached: " + peer.all);
        assertTrue(peer.engine.isOpen(), "the connection survives");
        // The other sessions' links still work, and a link that goes makes room for another.
        peer.transfer(0, peer.transfer(0, 0, true), RawPeer.message("STILL", 1)).flush();
        assertEquals(List.of("STILL"), handler.subjects);
        peer.frame(1, peer.p().detach().clear().handle(4).closed(true)).flush();
        peer.take();
        peer.attachSender(1, 4, "again", "/q", 0);
        assertEquals(0, peer.allOf(End.class).size() - 1, "no other session ended");
    }

    @Test
    void whatTheLinksKeepOfTheirAttachesIsBoundedPerConnection() {
        // Each link keeps its name and termini as the peer sent them: a thousand links with addresses of 60 KB
        // kept 90 MiB of a server's heap on one connection, within the limit on the number of links.
        String longAddress = "/" + "a".repeat(999);
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxLinkBytesPerConnection(3 * 1_100), handler);
        peer.open();
        for (int ch = 0; ch < 3; ch++) {
            peer.begin(ch, 0, 100);
        }
        for (int h = 0; h < 3; h++) {
            Attach ours = peer.attachSender(0, h, "l0-" + h, longAddress, 0); // about 1,020 bytes each: three fit
            assertFalse(ours.target().isNull(), "link " + h + " attached: " + ours);
        }
        peer.take();
        Attach a = peer.p().attach().clear().name("l1-0").handle(0).role(Role.SENDER).initialDeliveryCount(0);
        a.source().clear().present(true).address("s");
        a.target().clear().present(true).address(longAddress);
        peer.frame(1, a).flush();
        End end = peer.next(End.class);
        RawPeer.assertEndError(end, ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertTrue(end.error().description().toString().contains("bytes of names and termini"), end.toString());
        assertTrue(peer.take().isEmpty(), "the link was not attached");
        assertTrue(peer.engine.isOpen(), "the connection survives");
        // Short links still fit beside them, and a link that goes gives its bytes back.
        assertFalse(peer.attachSender(2, 0, "short", "/q", 0).target().isNull(), "a short link fits");
        peer.take();
        peer.frame(0, peer.p().detach().clear().handle(1).closed(true)).flush();
        peer.take();
        assertFalse(peer.attachSender(2, 1, "l2-1", longAddress, 0).target().isNull(),
                "the detached link's bytes were given back");
        assertTrue(peer.take().stream().noneMatch(f -> !f.isEmpty() && f.performative() instanceof End),
                "no other session ended");
    }

    @Test
    void messagesTheClientNeverSettlesAreBoundedPerConnection() {
        // A peer that grants credit and never settles would otherwise make every message sent unsettled stay
        // in memory for the connection's life.
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxUnsettledSentDeliveries(3), handler);
        peer.open();
        peer.begin(0, 0, 1000);
        peer.begin(1, 0, 1000);
        peer.attachReceiver(0, 0, "replies-a", "/a");
        peer.attachReceiver(1, 0, "replies-b", "/b");
        for (int ch = 0; ch < 2; ch++) {
            peer.frame(ch, peer.p().flow().clear().nextIncomingId(0).incomingWindow(1000).nextOutgoingId(0)
                    .outgoingWindow(1000).handle(0).deliveryCount(0).linkCredit(100));
        }
        peer.flush();
        Link a = handler.link("replies-a");
        Link b = handler.link("replies-b");
        byte[] m = RawPeer.message("200", 1);
        assertNotNull(a.send(m, 0, m.length, false));
        assertNotNull(a.send(m, 0, m.length, false));
        assertNotNull(b.send(m, 0, m.length, false));
        assertNull(b.send(m, 0, m.length, false), "three unsettled on the connection: the limit");
        assertNull(a.beginMessage(m, 0, m.length, false), "a message in parts counts too");
        assertNotNull(a.send(m, 0, m.length, true), "a pre-settled message stays in no table");
        peer.collect();
        assertEquals(4, peer.allOf(Transfer.class).size());
        Disposition settled = peer.p().disposition().clear().role(Role.RECEIVER).first(0).settled(true);
        settled.state().accepted();
        peer.frame(0, settled).flush();
        assertNotNull(b.send(m, 0, m.length, false), "a settlement makes room");
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aBufferedMessagesLimitMakesSendReturnNullThenCreditDrainsTheQueue() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxBufferedMessagesPerLink(3), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachReceiver(0, 0, "out", "/events");
        Link sender = handler.link("out");
        byte[] m = RawPeer.message("200", 10);
        for (int i = 0; i < 3; i++) {
            assertNotNull(sender.send(m, 0, m.length, false), "message " + i + " is queued");
        }
        assertNull(sender.send(m, 0, m.length, false), "the fourth is refused");
        assertEquals(3, sender.queued());
        peer.collect();
        assertTrue(peer.allOf(Transfer.class).isEmpty());
        peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(100).nextOutgoingId(0)
                .outgoingWindow(100).handle(0).deliveryCount(0).linkCredit(10)).flush();
        assertEquals(3, peer.allOf(Transfer.class).size());
        assertEquals(0, sender.queued());
        assertNotNull(sender.send(m, 0, m.length, false), "room again");
    }

    @Test
    void deliveriesBeyondTheInFlightLimitAreReleasedNotDelivered() {
        handler.hold = true;
        handler.autoCredit = 0;
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxDeliveriesInFlight(3), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "a", "/q", 0);
        peer.attachSender(0, 1, "b", "/q", 0);
        handler.link("a").flow(3);
        handler.link("b").flow(3);
        peer.collect();
        assertEquals(3, peer.last(Flow.class).linkCredit(), "credit never exceeds the in-flight room");
        for (int i = 0; i < 3; i++) {
            peer.transfer(0, peer.transfer(0, i, false), RawPeer.message("A", 1));
        }
        peer.transfer(0, peer.transfer(1, 3, false), RawPeer.message("B", 1)).flush();
        assertEquals(List.of("A", "A", "A"), handler.subjects, "the fourth never reached the application");
        Disposition d = peer.last(Disposition.class);
        assertNotNull(d, "the overload is answered");
        assertEquals(3, d.first());
        assertTrue(d.settled());
        assertEquals(DeliveryState.Kind.RELEASED, d.state().kind());
        assertEquals(3, peer.engine.incomingUnsettled);
        assertTrue(peer.engine.isOpen());
        // Once the application settles, new deliveries are taken again.
        peer.engine.accept(handler.held.get(0));
        handler.link("b").flow(1);
        peer.transfer(0, peer.transfer(1, 4, false), RawPeer.message("B", 1)).flush();
        assertEquals(List.of("A", "A", "A", "B"), handler.subjects);
    }

    @Test
    void repliesToAClientThatNeverGrantsCreditAreBufferedUpToTheLimitThenRequestsAreReleased() {
        EchoResponder echo = new EchoResponder();
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxBufferedMessagesPerLink(3), echo);
        peer.open();
        peer.begin(0, 0, 100);
        // A dynamic reply receiver to which the client never grants credit.
        Attach replies = peer.p().attach().clear().name("replies").handle(0).role(Role.RECEIVER);
        replies.source().clear().present(true).dynamic(true);
        replies.target().clear().present(true);
        peer.frame(0, replies).flush();
        String replyTo = peer.next(Attach.class).source().address().toString();
        assertNotNull(replyTo);
        peer.attachSender(0, 1, "requests", "/echo", 0);
        peer.take();
        for (int i = 0; i < 5; i++) {
            byte[] req = EngineRequestReplyTest.request("r" + i, "/echo", replyTo, new byte[4]);
            peer.transfer(0, peer.transfer(1, i, false), req);
        }
        peer.flush();
        assertEquals(5, echo.requests);
        assertTrue(peer.allOf(Transfer.class).isEmpty(), "no credit, no replies");
        // AMQP 1.0 §2.7.6: settlements may be coalesced into ranges; compare the outcome of every delivery-id.
        List<DeliveryState.Kind> kinds = new java.util.ArrayList<>();
        for (Disposition d : peer.allOf(Disposition.class)) {
            int last = d.hasLast() ? d.last() : d.first();
            for (int id = d.first(); id <= last; id++) {
                assertEquals(kinds.size(), id, "settlements in delivery-id order");
                kinds.add(d.state().kind());
            }
        }
        assertEquals(List.of(DeliveryState.Kind.ACCEPTED, DeliveryState.Kind.ACCEPTED, DeliveryState.Kind.ACCEPTED,
                DeliveryState.Kind.RELEASED, DeliveryState.Kind.RELEASED), kinds);
        assertEquals(3, echo.links.stream().filter(Link::isSender).findFirst().orElseThrow().queued());
    }
}
