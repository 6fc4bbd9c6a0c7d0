package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link's {@link LinkState} through attach and detach from either side (AMQP 1.0 §2.6.3, §2.6.6), refusal, and
 * the end of its session; the application hears of the link's end once.
 */
class LinkLifecycleTest {
    private final AcceptorRecorder server = new AcceptorRecorder();
    private final AcceptorRecorder client = new AcceptorRecorder();

    private EnginePair open() {
        EnginePair pair = new EnginePair(new EngineConfig().containerId("client"), client, RawPeer.noSasl(), server);
        pair.pump();
        return pair;
    }

    private static long detaches(AcceptorRecorder handler) {
        return handler.events.stream().filter(e -> e.startsWith("detach ")).count();
    }

    @Test
    void aLinkWeAttachTakesMessagesBeforeTheAnswerAndClosesWithBothDetaches() {
        EnginePair pair = open();
        Session session = pair.client.beginSession();
        Link link = session.attachSender("requests", "/echo");
        assertEquals(LinkState.ATTACH_SENT, link.state());
        assertTrue(link.acceptsMessages(), "messages wait for the peer's credit");
        assertFalse(link.isOpen());
        assertNotNull(link.sending());
        assertNull(link.receiving(), "a sender has nothing of a receiver");

        pair.pump();
        assertEquals(LinkState.ATTACHED, link.state());
        assertTrue(link.isOpen());
        Link theirs = server.link("requests");
        assertEquals(LinkState.ATTACHED, theirs.state());
        assertNotNull(theirs.receiving());
        assertNull(theirs.sending());

        link.detach(null, null);
        assertEquals(LinkState.DETACH_SENT, link.state());
        assertFalse(link.acceptsMessages());
        assertFalse(link.isClosed());
        link.detach(null, null); // a second detach sends nothing more
        pair.pump();
        assertEquals(LinkState.CLOSED, link.state());
        assertEquals(LinkState.CLOSED, theirs.state());
        assertTrue(link.isClosed());
        assertEquals(1, detaches(client));
        assertEquals(1, detaches(server));
    }

    @Test
    void aRefusedLinkIsClosedOnOurSideAtOnceAndEndsWithThePeersDetach() {
        server.refuseLinks = new ErrorCondition().condition(ErrorConditions.NOT_FOUND).description("no such node");
        EnginePair pair = open();
        Link link = pair.client.beginSession().attachReceiver("replies", "/nowhere");
        pair.pump();
        Link refused = server.link("replies");
        assertEquals(LinkState.CLOSED, refused.state(), "our detach was answered");
        assertEquals(LinkState.CLOSED, link.state());
        assertEquals(1, detaches(server), "the refusing side is told once, not again at the peer's detach");
        assertEquals(1, detaches(client));
    }

    @Test
    void eachSideIsToldWhetherItEndedALinkOrSessionItselfAndSoWhoseErrorItHears() {
        server.refuseLinks = new ErrorCondition().condition(ErrorConditions.NOT_FOUND).description("no such node");
        EnginePair pair = open();
        Session session = pair.client.beginSession();
        session.attachReceiver("refused", "/nowhere");
        pair.pump();
        server.refuseLinks = null;
        Link detached = session.attachSender("detached", "/echo");
        session.attachSender("with-its-session", "/echo");
        pair.pump();
        detached.detach(ErrorConditions.LINK_DETACH_FORCED, "the client is done with it");
        pair.pump();
        Session serverSide = server.link("with-its-session").session();
        serverSide.end(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "enough");
        pair.pump();

        assertEquals(List.of("detach refused amqp:not-found", "end 0 amqp:resource-limit-exceeded"),
                server.endedHere, server.events.toString());
        assertEquals(List.of("detach detached amqp:link:detach-forced"), client.endedHere,
                client.events.toString());
        assertTrue(server.events.contains("detach detached amqp:link:detach-forced"), server.events.toString());
        assertTrue(server.events.contains("detach with-its-session amqp:resource-limit-exceeded"),
                "a link that goes with its session was not ended by a detach of its own: " + server.events);
        assertTrue(client.events.contains("end 0 amqp:resource-limit-exceeded"), client.events.toString());
        assertTrue(server.link("refused").endedHere() && serverSide.endedHere(), "still so once both sides are done");
        assertTrue(!session.endedHere() && !server.link("detached").endedHere());
    }

    @Test
    void aRefusedLinkIsClosedBeforeThePeerAnswers() {
        server.refuseLinks = new ErrorCondition().condition(ErrorConditions.NOT_FOUND).description("no such node");
        EnginePair pair = open();
        pair.client.beginSession().attachReceiver("replies", "/nowhere");
        // Deliver the client's frames to the server only: the refusal waits in the server's output.
        while (pair.client.hasOutput()) {
            ByteBuffer out = pair.client.beginFlush();
            pair.server.ingest(out, pair.now);
            pair.client.endFlush();
        }
        Link refused = server.link("replies");
        assertEquals(LinkState.REFUSED, refused.state());
        assertTrue(refused.isClosed());
        assertFalse(refused.acceptsMessages());
    }

    @Test
    void aLinkEndsWithItsSessionAndTakesNoMoreMessages() {
        EnginePair pair = open();
        Session session = pair.client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        pair.pump();
        Link sender = server.link("replies");
        assertTrue(sender.isOpen());

        session.end();
        pair.pump();
        assertEquals(LinkState.CLOSED, sender.state(), "the peer's end took the link with it");
        assertFalse(sender.isOpen());
        assertFalse(sender.acceptsMessages());
        byte[] message = EngineRequestReplyTest.request("m-1", "/x", null, new byte[0]);
        assertNull(sender.send(message, 0, message.length, false), "no transfer on an ended session");
        assertEquals(1, detaches(server));
        sender.detach(null, null); // nothing to detach any more: no frame on the ended channel
        assertFalse(pair.server.hasOutput());
    }

    @Test
    void aLinkDetachedBeforeThePeerAnswersSendsNothingMoreWhenTheAnswerComes() {
        EnginePair pair = open();
        Session session = pair.client.beginSession();
        pair.pump();
        Link link = session.attachReceiver("replies", "/events");
        link.flow(10); // credit granted right after attaching, before the answer
        link.detach(null, null);
        assertEquals(LinkState.DETACH_SENT, link.state());
        assertEquals(1, detaches(client));
        // Everything the client wrote reaches the server; the server's answer (attach, then detach) comes back.
        pair.pump();
        assertEquals(LinkState.CLOSED, link.state());
        assertEquals(List.of("attach replies", "detach replies"),
                server.events.stream().filter(e -> e.endsWith(" replies")).toList());
        assertEquals(1, detaches(client), "the client was told once");
        assertFalse(client.events.contains("attach replies"),
                "the answer to a link the application detached is not reported as an attach: " + client.events);
        assertTrue(pair.server.isOpen(), "the server saw nothing after the client's detach");
        assertTrue(pair.client.isOpen());
    }
}
