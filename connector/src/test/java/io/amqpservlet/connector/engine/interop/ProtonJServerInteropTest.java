package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our engine as the initiator (the load generator's role) against a proton-j 0.35.0 server. */
class ProtonJServerInteropTest {
    private final OurClient client = new OurClient();
    private ProtonJServer server;
    private Engine ours;

    private int serverReceiverCredit = 200;

    private void connect(EngineConfig config, int serverMaxFrameSize) {
        ours = new Engine(config.role(EngineConfig.Role.INITIATOR), client);
        server = new ProtonJServer(ours, serverMaxFrameSize);
        server.receiverCredit = serverReceiverCredit;
        server.wire.pump();
    }

    private void pump() {
        server.wire.pump();
    }

    private Session connected() {
        connect(OurClient.plain("alice", "secret").trace(Boolean.getBoolean("interop.trace")), 64 * 1024);
        assertTrue(ours.isOpen(), "the connection opened");
        Session session = ours.beginSession();
        pump();
        assertTrue(session.isOpen(), "proton-j answered our begin");
        return session;
    }

    private static byte[] request(String id, String to, String subject, String replyTo, byte[] body) {
        return OurClient.request(id, to, subject, replyTo, body);
    }

    @Test
    void saslPlainWithTheRightPasswordOpensTheConnection() {
        connect(OurClient.plain("alice", "secret"), 64 * 1024);
        assertEquals("PLAIN", server.saslMechanism);
        assertEquals("alice", server.saslUser);
        assertTrue(ours.isOpen());
        assertEquals(EndpointState.ACTIVE, server.wire.connection.getRemoteState());
        assertEquals("our-client", server.wire.connection.getRemoteContainer());
        assertEquals("localhost", server.wire.connection.getRemoteHostname());
        assertFalse(client.closed);
    }

    @Test
    void saslPlainWithAWrongPasswordEndsOurTransportWithTheFailure() {
        connect(OurClient.plain("alice", "wrong"), 64 * 1024);
        assertEquals("alice", server.saslUser);
        assertTrue(ours.isDone());
        assertFalse(ours.isOpen());
        assertTrue(client.closed);
        assertTrue(client.closedWith.is(ErrorConditions.UNAUTHORIZED_ACCESS), client.closedWith.toString());
        assertTrue(client.closedWith.description().toString().contains("code 1"), client.closedWith.toString());
        assertEquals(EndpointState.UNINITIALIZED, server.wire.connection.getRemoteState(), "no open after the failure");
    }

    @Test
    void saslAnonymousOpensTheConnection() {
        connect(OurClient.anonymous(), 64 * 1024);
        assertEquals("ANONYMOUS", server.saslMechanism);
        assertTrue(ours.isOpen());
        assertEquals(EndpointState.ACTIVE, server.wire.connection.getRemoteState());
    }

    @Test
    void requestReplyOverADynamicReceiverTheServerNamed() {
        Session session = connected();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pump();
        assertEquals("pj-dynamic-1", replies.source().address().toString(), "we took the address proton-j made");
        assertTrue(((Source) server.senders.get(0).getRemoteSource()).getDynamic(), "our attach asked for a dynamic source");
        assertEquals("/echo", requests.target().address().toString());
        assertTrue(requests.canSend());

        byte[] req = request("req-1", "/echo", "POST", "pj-dynamic-1", "hello".getBytes());
        assertNotNull(requests.send(req, 0, req.length, false));
        pump();
        assertEquals(List.of("/echo /echo POST"), server.requests);
        assertEquals(List.of("200 req-1"), client.responses);
        assertEquals("hello", new String(client.bodies.get(0)));
        assertEquals(List.of("accepted settled"), client.outcomes);
        assertInstanceOf(Accepted.class, server.responseStates.get(0), "proton-j saw our accepted");
        assertTrue(server.responses.get(0).remotelySettled());
    }

    @Test
    void anonymousRelaySenderCarriesEachMessagesTo() {
        Session session = connected();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link relay = session.attachSender("relay", null);
        pump();
        Receiver peerSide = server.receivers.get(0);
        assertNotNull(peerSide.getRemoteTarget(), "a target is present");
        assertNull(((Target) peerSide.getRemoteTarget()).getAddress());
        byte[] a = request("a", "/a", "PUT", "pj-dynamic-1", new byte[] {1});
        byte[] b = request("b", "/b", "GET", null, new byte[0]);
        relay.send(a, 0, a.length, false);
        relay.send(b, 0, b.length, false);
        pump();
        assertEquals(List.of("null /a PUT", "null /b GET"), server.requests);
        assertEquals(List.of("200 a"), client.responses);
        assertEquals(List.of("accepted settled", "accepted settled"), client.outcomes);
    }

    @Test
    void multiFrameMessagesBothWaysAreByteExactWhenTheServerTakesSmallFrames() {
        connect(OurClient.plain("alice", "secret"), 512);
        assertEquals(512, ours.remoteMaxFrameSize());
        multiFrameRoundTrip();
    }

    @Test
    void multiFrameMessagesBothWaysAreByteExactWhenOurInitiatorTakesSmallFrames() {
        connect(OurClient.plain("alice", "secret").maxFrameSizeBytes(512), 64 * 1024);
        assertEquals(512, server.wire.transport.getRemoteMaxFrameSize());
        multiFrameRoundTrip();
    }

    private void multiFrameRoundTrip() {
        Session session = ours.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pump();
        byte[] body = ProtonJ2Wire.pattern(100 * 1024, 3);
        byte[] req = request("big", "/echo", "POST", "pj-dynamic-1", body);
        long framesBefore = server.wire.transport.getFramesInput() + server.wire.transport.getFramesOutput();
        requests.send(req, 0, req.length, false);
        pump();
        assertEquals(1, server.requestBodies.size());
        assertArrayEquals(body, server.requestBodies.get(0), "proton-j read our request byte-exact");
        assertEquals(List.of("200 big"), client.responses);
        assertArrayEquals(body, client.bodies.get(0), "we read proton-j's response byte-exact");
        long frames = server.wire.transport.getFramesInput() + server.wire.transport.getFramesOutput() - framesBefore;
        assertTrue(frames > 200, "100 KiB in 512-byte frames takes over 200 transfers, saw " + frames);
        assertEquals(List.of("accepted settled"), client.outcomes);
    }

    @Test
    void peerDrainOfOurIdleSenderIsAnsweredWithAFlow() {
        serverReceiverCredit = 0;
        Session session = connected();
        Link requests = session.attachSender("requests", "/echo");
        pump();
        Receiver peerSide = server.receivers.get(0);
        peerSide.flow(6);
        pump();
        assertEquals(6, requests.linkCredit());
        peerSide.drain(0);
        assertTrue(peerSide.draining());
        pump();
        assertFalse(peerSide.draining(), "proton-j saw its drain answered");
        assertEquals(0, peerSide.getCredit());
        assertEquals(0, requests.linkCredit());
        assertEquals(6, requests.deliveryCount());
    }

    @Test
    void ourDrainOfThePeerSenderCompletesWhenItHasNothingToSend() {
        Session session = connected();
        Link replies = session.attachDynamicReceiver("replies");
        replies.flow(4); // before proton-j answers the attach: the credit must survive the answer
        pump();
        assertEquals(4, server.senders.get(0).getCredit(), "credit granted before the attach was answered");
        replies.drain();
        pump();
        assertEquals(1, client.drained, "our handler heard the drain complete");
        assertEquals(0, replies.linkCredit());
        assertEquals(4, replies.deliveryCount());
        assertEquals(0, server.senders.get(0).getCredit());
    }

    @Test
    void presettledRequestsArriveSettledAndGetNoOutcome() {
        Session session = connected();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pump();
        for (int i = 0; i < 3; i++) {
            byte[] req = request("p" + i, "/echo", "POST", i < 2 ? "pj-dynamic-1" : null, new byte[] {(byte) i});
            assertNotNull(requests.send(req, 0, req.length, true));
        }
        pump();
        assertEquals(List.of("/echo /echo POST settled", "/echo /echo POST settled", "/echo /echo POST settled"),
                server.requests);
        assertEquals(List.of("200 p0", "200 p1"), client.responses);
        assertTrue(client.outcomes.isEmpty(), client.outcomes.toString());
    }

    @Test
    void everyOutcomeThePeerGivesReachesOurEngine() {
        Session session = connected();
        Link requests = session.attachSender("requests", "/echo");
        pump();
        for (String subject : new String[] {"ACCEPT", "REJECT", "RELEASE", "MODIFY"}) {
            byte[] req = request(subject, "/echo", subject, null, new byte[1]);
            requests.send(req, 0, req.length, false);
        }
        pump();
        assertEquals(List.of("accepted settled", "rejected amqp:unauthorized-access settled", "released settled",
                "modified settled"), client.outcomes);
        assertEquals("rejected by proton-j", client.states.get(1).error().description().toString());
        DeliveryState modified = client.states.get(3);
        assertFalse(modified.deliveryFailed());
        assertTrue(modified.undeliverableHere());
    }

    @Test
    void everyOutcomeWeGiveTheResponsesReachesThePeer() {
        client.acceptResponses = false;
        Session session = connected();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pump();
        for (int i = 0; i < 4; i++) {
            byte[] req = request("r" + i, "/echo", "POST", "pj-dynamic-1", new byte[1]);
            requests.send(req, 0, req.length, false);
        }
        pump();
        assertEquals(4, client.held.size());
        List<Delivery> held = new ArrayList<>(client.held);
        ours.accept(held.get(0));
        ours.reject(held.get(1), Symbol.of("amqp:internal-error"), "could not use it");
        ours.release(held.get(2));
        ours.modified(held.get(3), false, true);
        pump();
        assertEquals(4, server.responseStates.size());
        assertInstanceOf(Accepted.class, server.responseStates.get(0));
        Rejected rejected = assertInstanceOf(Rejected.class, server.responseStates.get(1));
        assertEquals("amqp:internal-error", rejected.getError().getCondition().toString());
        assertEquals("could not use it", rejected.getError().getDescription());
        assertInstanceOf(Released.class, server.responseStates.get(2));
        Modified modified = assertInstanceOf(Modified.class, server.responseStates.get(3));
        // We leave out a false delivery-failed (its default, §3.4.5); proton-j then reports null.
        assertFalse(Boolean.TRUE.equals(modified.getDeliveryFailed()));
        assertEquals(Boolean.TRUE, modified.getUndeliverableHere());
        for (int i = 0; i < 4; i++) {
            assertTrue(server.responses.get(i).remotelySettled());
        }
    }

    @Test
    void aHundredRequestsInFlightOnOneLinkAreAllAnsweredAndCorrelated() {
        Session session = connected();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(100);
        Link requests = session.attachSender("requests", "/echo");
        pump();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            byte[] req = request("id-" + i, "/echo", "POST", "pj-dynamic-1", ("n" + i).getBytes());
            assertNotNull(requests.send(req, 0, req.length, false));
            ids.add("200 id-" + i);
        }
        assertEquals(100, requests.deliveryCount(), "all 100 sent before any answer");
        pump();
        assertEquals(100, server.requests.size());
        assertEquals(100, client.responses.size());
        assertEquals(ids, new HashSet<>(client.responses));
        for (int i = 0; i < 100; i++) {
            String id = client.responses.get(i).substring("200 id-".length());
            assertEquals("n" + id, new String(client.bodies.get(i)), "each body answers its own request");
        }
        assertEquals(100, client.outcomes.size());
        assertTrue(client.outcomes.stream().allMatch("accepted settled"::equals), client.outcomes.toString());
    }
}
