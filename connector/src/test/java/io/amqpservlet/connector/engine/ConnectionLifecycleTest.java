package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection's two halves ({@link ConnectionPhase}, {@link LocalConnectionState}, kept by
 * {@link ConnectionLifecycle}) through open and close (AMQP 1.0 §2.4): an initiator's open goes out before the
 * peer's header arrives, an acceptor's when the peer's open does, and a connection that is over stays over.
 */
class ConnectionLifecycleTest {
    private static EngineConfig initiator() {
        return new EngineConfig().containerId("client");
    }

    @Test
    void anInitiatorSendsItsOpenBeforeThePeersHeaderArrives() {
        AcceptorRecorder server = new AcceptorRecorder();
        EnginePair pair = new EnginePair(initiator(), new EngineHandler() { }, RawPeer.noSasl(), server);
        assertEquals(ConnectionPhase.AWAITING_HEADER, pair.client.lifecycle.phase());
        assertEquals(LocalConnectionState.OPEN_SENT, pair.client.lifecycle.localState(),
                "pipelined with the AMQP header");
        assertEquals(LocalConnectionState.NOTHING_SENT, pair.server.lifecycle.localState(),
                "an acceptor waits for the open");
        assertFalse(pair.client.isOpen());

        pair.pump();
        assertEquals(ConnectionPhase.OPENED, pair.client.lifecycle.phase());
        assertEquals(ConnectionPhase.OPENED, pair.server.lifecycle.phase());
        assertEquals(LocalConnectionState.OPEN_SENT, pair.server.lifecycle.localState());
        assertTrue(pair.client.isOpen());
        assertTrue(pair.server.isOpen());
    }

    @Test
    void aCloseIsSentOnceAndTheConnectionEndsWhenItIsAnswered() {
        AcceptorRecorder server = new AcceptorRecorder();
        EnginePair pair = new EnginePair(initiator(), new EngineHandler() { }, RawPeer.noSasl(), server);
        pair.pump();
        pair.client.close();
        assertEquals(LocalConnectionState.CLOSE_SENT, pair.client.lifecycle.localState());
        assertTrue(pair.client.closeSent());
        assertFalse(pair.client.isOpen(), "not open once our close is out");
        assertFalse(pair.client.isDone(), "until the peer answers");

        pair.pump();
        assertTrue(pair.client.isDone());
        assertTrue(pair.server.isDone());
        assertEquals(LocalConnectionState.CLOSE_SENT, pair.server.lifecycle.localState(),
                "the peer answered with its close");
        assertEquals(1, server.events.stream().filter(e -> e.startsWith("closed")).count(), "told once");
    }

    @Test
    void theLinksACloseEndsSeeItClosingAndACloseAskedForThenIsNotASecondOne() {
        AcceptorRecorder server = new AcceptorRecorder();
        java.util.List<String> seen = new java.util.ArrayList<>();
        EngineHandler client = new EngineHandler() {
            @Override
            public void onLinkDetach(Link link, ErrorCondition error) {
                Engine engine = link.session().engine();
                seen.add("link ends, open " + engine.isOpen());
                engine.close(ErrorConditions.CONNECTION_FORCED, "link " + link.name() + " ended"); // as attach mode does
            }
        };
        EnginePair pair = new EnginePair(initiator(), client, RawPeer.noSasl(), server);
        pair.pump();
        pair.client.beginSession().attachReceiver("requests", "/orders");
        pair.pump();
        pair.client.close(ErrorConditions.CONNECTION_FORCED, "the first reason");
        assertEquals(java.util.List.of("link ends, open false"), seen);
        assertEquals(LocalConnectionState.CLOSE_SENT, pair.client.lifecycle.localState());

        pair.pump();
        assertTrue(server.closed);
        // AMQP 1.0 §2.4.3: one close, with the reason it was made for.
        assertEquals("the first reason", server.closedWith.description().toString());
        assertEquals(1, server.events.stream().filter(e -> e.startsWith("closed")).count());
    }

    @Test
    void aConnectionClosedFromItsOpenCallbackStaysOver() {
        AcceptorRecorder server = new AcceptorRecorder() {
            @Override
            public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
                engine.close(); // before the acceptor's open: there is no AMQP connection to close
                return null;
            }
        };
        EnginePair pair = new EnginePair(initiator(), new EngineHandler() { }, RawPeer.noSasl(), server);
        pair.pump();
        assertEquals(ConnectionPhase.DONE, pair.server.lifecycle.phase(), "the peer's open does not reopen it");
        assertEquals(LocalConnectionState.NOTHING_SENT, pair.server.lifecycle.localState(), "no open was written");
        assertFalse(pair.server.isOpen());
        assertTrue(pair.server.isDone());
    }

    @Test
    void aRefusedOpenStillSendsOpenThenClose() {
        AcceptorRecorder server = new AcceptorRecorder() {
            @Override
            public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
                return new ErrorCondition().condition(ErrorConditions.NOT_ALLOWED).description("not today");
            }
        };
        EnginePair pair = new EnginePair(initiator(), new EngineHandler() { }, RawPeer.noSasl(), server);
        pair.pump();
        assertEquals(LocalConnectionState.CLOSE_SENT, pair.server.lifecycle.localState());
        assertTrue(pair.server.isDone());
        assertTrue(pair.client.isDone());
        assertEquals(LocalConnectionState.CLOSE_SENT, pair.client.lifecycle.localState(),
                "the client answered the close");
        assertTrue(server.closedWith != null && server.closedWith.is(ErrorConditions.NOT_ALLOWED)
                && "not today".equals(server.closedWith.description().toString()),
                "the application hears of the connection's end with the refusal it sent: " + server.closedWith);
    }

    @Test
    void theTransportsEndEndsAConnectionWhoseCloseWasNeverAnsweredWithOurErrorAndOneTheClientDroppedWithNone() {
        AcceptorRecorder server = new AcceptorRecorder();
        EnginePair pair = new EnginePair(initiator(), new EngineHandler() { }, RawPeer.noSasl(), server);
        pair.pump();
        pair.client.beginSession().attachReceiver("requests", "/orders");
        pair.pump();
        pair.server.close(ErrorConditions.CONNECTION_FORCED, "the server is stopping");
        assertFalse(pair.server.isDone(), "our close waits for the client's");
        assertFalse(server.closed);

        pair.server.transportClosed(); // the client dropped its socket instead of answering
        assertTrue(pair.server.isDone());
        assertTrue(server.closed, "told of the end");
        assertTrue(server.closedWith.is(ErrorConditions.CONNECTION_FORCED), "with the close we sent: " + server.closedWith);
        assertTrue(server.events.contains("end 0") && server.events.contains("detach requests"),
                "what was open ended, without an error: " + server.events);
        pair.server.transportClosed();
        assertEquals(1, server.events.stream().filter(e -> e.startsWith("closed")).count(), "told once");

        AcceptorRecorder second = new AcceptorRecorder();
        EnginePair dropped = new EnginePair(initiator(), new EngineHandler() { }, RawPeer.noSasl(), second);
        dropped.pump();
        dropped.server.transportClosed(); // the client went away with no close either way
        assertTrue(second.closed);
        assertEquals(null, second.closedWith, "nobody sent an error");
    }
}
