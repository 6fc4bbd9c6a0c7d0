package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sessions (AMQP 1.0 §2.5, §2.7.2-§2.7.4): refusal, session errors that leave the connection up, channels, echo. */
class SessionConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    @Test
    void aRefusedSessionIsAnsweredWithBeginThenEndWithTheError() {
        handler.refuseSessions = new ErrorCondition().condition(ErrorConditions.NOT_ALLOWED).description("no sessions");
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        End end = peer.next(End.class);
        RawPeer.assertEndError(end, ErrorConditions.NOT_ALLOWED);
        assertEquals("no sessions", end.error().description().toString());
        peer.frame(0, peer.p().end().clear()).flush();
        assertTrue(peer.take().isEmpty(), "the refusal's end was already sent");
        assertTrue(peer.engine.isOpen(), "refusing a session leaves the connection open");
    }

    @Test
    void aTransferForAnUnknownHandleEndsTheSessionWithUnattachedHandle() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.transfer(0, peer.transfer(7, 0, true), RawPeer.message("POST", 1)).flush();
        RawPeer.assertEndError(peer.next(End.class), ErrorConditions.SESSION_UNATTACHED_HANDLE);
        assertTrue(peer.engine.isOpen());
        // Frames after our end are discarded until the peer's end; then the channel is free again.
        peer.transfer(0, peer.transfer(7, 1, true), RawPeer.message("POST", 1)).flush();
        assertTrue(peer.take().isEmpty());
        peer.frame(0, peer.p().end().clear()).flush();
        assertTrue(peer.take().isEmpty(), "our end was already sent");
        peer.begin(0, 0, 100);
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aConnectionClosedFromALinksDetachWhileItsSessionEndsStillReportsTheSessionsError() {
        AcceptorRecorder closing = new AcceptorRecorder() {
            @Override
            public void onLinkDetach(Link link, ErrorCondition error) {
                super.onLinkDetach(link, error);
                link.session().engine().close(ErrorConditions.CONNECTION_FORCED, "its link went"); // as attach mode
            }
        };
        RawPeer peer = new RawPeer(RawPeer.noSasl(), closing);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.transfer(0, peer.transfer(7, 0, true), RawPeer.message("POST", 1)).flush();
        assertTrue(closing.events.contains("end 0 amqp:session:unattached-handle"),
                "the session's end is reported with the error it was ended for: " + closing.events);
        assertTrue(closing.events.contains("detach in amqp:session:unattached-handle"), closing.events.toString());
        assertTrue(peer.engine.closeSent(), "the application's close went out");
    }

    @Test
    void aFlowForAnUnknownHandleEndsTheSessionWithUnattachedHandle() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.frame(0, peer.p().flow().clear().nextIncomingId(0).incomingWindow(10).nextOutgoingId(0)
                .outgoingWindow(10).handle(3).deliveryCount(0).linkCredit(5)).flush();
        RawPeer.assertEndError(peer.next(End.class), ErrorConditions.SESSION_UNATTACHED_HANDLE);
    }

    @Test
    void aFrameOnAChannelWithoutSessionClosesTheConnection() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.frame(5, peer.p().flow().clear().incomingWindow(10).nextOutgoingId(0).outgoingWindow(10)).flush();
        Close close = peer.next(Close.class);
        assertFalse(close.error().isNull(), close.toString());
    }

    @Test
    void aBeginBeyondChannelMaxClosesTheConnection() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().channelMax(3), handler);
        peer.open();
        assertEquals(3, peer.last(io.amqpservlet.protocol.types.transport.Open.class).channelMax());
        for (int channel = 0; channel <= 3; channel++) {
            peer.begin(channel, 0, 100);
        }
        peer.frame(4, peer.p().begin().clear().nextOutgoingId(0).incomingWindow(100).outgoingWindow(100)).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.CONNECTION_FRAMING_ERROR);
        assertTrue(peer.engine.isDone());
    }

    @Test
    void aBeginOnAChannelInUseClosesTheConnection() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.frame(0, peer.p().begin().clear().nextOutgoingId(0).incomingWindow(100).outgoingWindow(100)).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.CONNECTION_FRAMING_ERROR);
    }

    @Test
    void aSessionFlowWithEchoIsAnsweredWithOurSessionState() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        Begin ours = peer.begin(0, 42, 100);
        peer.frame(0, peer.p().flow().clear().nextIncomingId(ours.nextOutgoingId()).incomingWindow(10)
                .nextOutgoingId(42).outgoingWindow(10).echo(true)).flush();
        Flow answer = peer.next(Flow.class);
        assertFalse(answer.hasHandle(), "a session flow answers a session flow");
        assertEquals(42, answer.nextIncomingId(), "initialised from the peer's next-outgoing-id (§2.5.6)");
        assertEquals(2048, Integer.toUnsignedLong(answer.incomingWindow()));
        assertFalse(answer.echo(), "never echo an echo");
    }

    @Test
    void theSessionWindowIsReopenedBeforeThePeerStalls() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().sessionIncomingWindowFrames(8), handler);
        peer.open();
        assertEquals(8, peer.begin(0, 0, 100).incomingWindow());
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.take();
        // A well-behaved peer sends only within the window it last heard of; it never has to stop.
        int windowLeft = 8;
        int id = 0;
        for (int i = 0; i < 100; i++) {
            assertTrue(windowLeft > 0, "the peer would stall after " + i + " transfers");
            peer.transfer(0, peer.transfer(0, id++, true), RawPeer.message("POST", 1)).flush();
            windowLeft--;
            for (RawPeer.Frame f : peer.take()) {
                if (f.performative() instanceof Flow flow) {
                    windowLeft = (int) (flow.nextIncomingId() + Integer.toUnsignedLong(flow.incomingWindow()) - id);
                }
            }
        }
        assertEquals(100, handler.messages);
    }

    @Test
    void ourSessionEndAfterThePeersEndIsTheAnswerNotAnError() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.frame(0, peer.p().end().clear()).flush();
        End end = peer.next(End.class);
        assertTrue(end.error().isNull());
        assertTrue(handler.events.contains("end 0"), handler.events.toString());
    }

    @Test
    void pipelinedFlowsWrittenBeforeThePeerHadOurBeginShareOneWindow() {
        byte[] m = RawPeer.message("200", 1);
        AcceptorRecorder sender = new AcceptorRecorder() {
            @Override
            public void onSendable(Link link) {
                // Three messages per link: sent at once while the session window lasts, then queued.
                for (int i = 0; i < 3 && link.queued() == 0; i++) {
                    link.send(m, 0, m.length, false);
                }
            }
        };
        RawPeer peer = new RawPeer(RawPeer.noSasl(), sender);
        peer.open();
        // The peer pipelines begin, two receiving links and their credit before reading anything: its flows carry
        // no next-incoming-id (AMQP 1.0 §2.7.4) and both state the same session window of 2 transfers.
        peer.frame(0, peer.p().begin().clear().nextOutgoingId(0).incomingWindow(2).outgoingWindow(100));
        for (int h = 0; h < 2; h++) {
            io.amqpservlet.protocol.types.transport.Attach a = peer.p().attach().clear().name("out" + h).handle(h)
                    .role(io.amqpservlet.protocol.types.transport.Role.RECEIVER);
            a.source().clear().present(true).address("/events" + h);
            a.target().clear().present(true).address("out" + h);
            peer.frame(0, a);
            peer.frame(0, peer.p().flow().clear().incomingWindow(2).nextOutgoingId(0).outgoingWindow(100)
                    .handle(h).deliveryCount(0).linkCredit(10));
        }
        peer.flush();
        long transfers = peer.allOf(io.amqpservlet.protocol.types.transport.Transfer.class).size();
        assertEquals(2, transfers, "§2.5.6: the window starts at our initial-outgoing-id for both flows: " + peer.all);
    }
}
