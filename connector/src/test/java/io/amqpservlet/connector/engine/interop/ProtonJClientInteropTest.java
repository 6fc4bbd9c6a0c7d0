package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.Link;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
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

/** proton-j 0.35.0 as the client, our engine as the acceptor. */
class ProtonJClientInteropTest {
    private final OurServer server = new OurServer();
    private final List<Message> responses = new ArrayList<>();
    private final List<Delivery> responseDeliveries = new ArrayList<>();
    private final List<Delivery> updated = new ArrayList<>();
    private Engine ours;
    private ProtonJWire wire;
    private Sasl sasl;

    private void connect(EngineConfig config, String user, String password, int peerMaxFrameSize) {
        ours = new Engine(config.role(EngineConfig.Role.ACCEPTOR), server);
        wire = new ProtonJWire(ours);
        wire.transport.setMaxFrameSize(peerMaxFrameSize); // before sasl(), which initialises the transport
        sasl = wire.transport.sasl();
        sasl.client();
        if (user != null) {
            sasl.plain(user, password);
        } else {
            sasl.setMechanisms("ANONYMOUS");
        }
        wire.connection.setContainer("proton-j-client");
        wire.connection.setHostname("localhost");
        wire.onEvent = this::onEvent;
        wire.start();
        wire.connection.open();
        wire.pump();
    }

    private void onEvent(Event e) {
        if (e.getType() != Event.Type.DELIVERY) {
            return;
        }
        Delivery d = e.getDelivery();
        if (d.getLink() instanceof Receiver) {
            Message m = ProtonJWire.read(d);
            if (m != null) {
                responses.add(m);
                responseDeliveries.add(d);
            }
        } else if (d.getRemoteState() != null || d.remotelySettled()) {
            updated.add(d);
        }
    }

    private Session connected() {
        connect(OurServer.plainConfig(), "alice", "secret", 64 * 1024);
        Session session = wire.connection.session();
        session.open();
        wire.pump();
        return session;
    }

    private Receiver replyReceiver(Session session, int credit) {
        Receiver r = session.receiver("replies");
        Source source = new Source();
        source.setDynamic(true);
        r.setSource(source);
        r.setTarget(new Target());
        r.open();
        r.flow(credit);
        return r;
    }

    private Sender requestSender(Session session, String address) {
        Sender s = session.sender("requests");
        Source source = new Source();
        source.setAddress("requests");
        s.setSource(source);
        Target target = new Target();
        target.setAddress(address);
        s.setTarget(target);
        s.open();
        return s;
    }

    private static String replyAddress(Receiver replies) {
        return ((Source) replies.getRemoteSource()).getAddress();
    }

    @Test
    void saslPlainWithTheRightPasswordOpensTheConnection() {
        connect(OurServer.plainConfig(), "alice", "secret", 64 * 1024);
        assertEquals(Sasl.SaslOutcome.PN_SASL_OK, sasl.getOutcome());
        assertEquals("alice", server.identity);
        assertEquals("our-server", wire.connection.getRemoteContainer());
        assertTrue(Arrays.asList(wire.connection.getRemoteOfferedCapabilities())
                .contains(Symbol.valueOf("ANONYMOUS-RELAY")));
        assertTrue(ours.isOpen());
    }

    @Test
    void saslPlainWithAWrongPasswordIsRefusedWithOutcomeAuth() {
        connect(OurServer.plainConfig(), "alice", "wrong", 64 * 1024);
        assertEquals(Sasl.SaslOutcome.PN_SASL_AUTH, sasl.getOutcome(), "our acceptor sent sasl-outcome auth");
        assertEquals(Sasl.SaslState.PN_SASL_FAIL, sasl.getState());
        assertNull(wire.connection.getRemoteContainer(), "no open followed");
        assertNull(server.identity);
        assertTrue(ours.isDone());
    }

    @Test
    void saslAnonymousOpensWithTheAnonymousIdentity() {
        connect(OurServer.anonymousConfig(), null, null, 64 * 1024);
        assertEquals(Sasl.SaslOutcome.PN_SASL_OK, sasl.getOutcome());
        assertEquals("anonymous", server.identity);
        assertEquals("our-server", wire.connection.getRemoteContainer());
    }

    @Test
    void requestReplyOverADynamicReceiverCorrelatesTheResponse() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String address = replyAddress(replies);
        assertNotNull(address);
        assertEquals(server.link("replies").source().address().toString(), address);
        assertTrue(((Source) replies.getRemoteSource()).getDynamic());
        assertEquals("/echo", ((Target) requests.getRemoteTarget()).getAddress());
        assertEquals(200, requests.getCredit());

        Delivery sent = wire.send(requests, ProtonJWire.message("req-1", "/echo", "POST", address, "hi".getBytes()), false);
        wire.pump();
        assertEquals(List.of("/echo POST"), server.requests);
        assertEquals(1, responses.size());
        Message r = responses.get(0);
        assertEquals("req-1", r.getCorrelationId());
        assertEquals("200", r.getSubject());
        assertEquals(address, r.getAddress());
        assertEquals("hi", new String(ProtonJWire.body(r)));
        assertTrue(sent.remotelySettled());
        assertInstanceOf(Accepted.class, sent.getRemoteState());
    }

    @Test
    void anonymousRelaySenderIsRoutedByEachMessagesTo() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender relay = requestSender(session, null);
        wire.pump();
        assertTrue(server.events.contains("attach receiver target=null"), server.events.toString());
        assertNull(((Target) relay.getRemoteTarget()).getAddress());
        String address = replyAddress(replies);
        wire.send(relay, ProtonJWire.message("r-1", "/orders/1", "PUT", address, new byte[] {1}), false);
        wire.send(relay, ProtonJWire.message("r-2", "/orders/2", "GET", address, new byte[0]), false);
        wire.pump();
        assertEquals(List.of("/orders/1 PUT", "/orders/2 GET"), server.requests);
        assertEquals(2, responses.size());
        assertEquals("r-2", responses.get(1).getCorrelationId());
    }

    @Test
    void multiFrameMessagesBothWaysAreByteExactWhenTheClientTakesSmallFrames() {
        connect(OurServer.plainConfig(), "alice", "secret", 512);
        assertEquals(512, ours.remoteMaxFrameSize());
        multiFrameRoundTrip();
    }

    @Test
    void multiFrameMessagesBothWaysAreByteExactWhenOurAcceptorTakesSmallFrames() {
        connect(OurServer.plainConfig().maxFrameSizeBytes(512), "alice", "secret", 64 * 1024);
        assertEquals(512, wire.transport.getRemoteMaxFrameSize());
        multiFrameRoundTrip();
    }

    @Test
    void theClientKeepsToOurSmallSessionWindowAndResumesWhenWeReopenIt() {
        connect(OurServer.plainConfig().maxFrameSizeBytes(512).sessionIncomingWindowFrames(3), "alice", "secret",
                64 * 1024);
        multiFrameRoundTrip();
        assertTrue(server.events.stream().noneMatch(e -> e.startsWith("detach")), server.events.toString());
    }

    private void multiFrameRoundTrip() {
        Session session = wire.connection.session();
        session.open();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        byte[] body = ProtonJ2Wire.pattern(100 * 1024, 11);
        long framesBefore = wire.transport.getFramesInput() + wire.transport.getFramesOutput();
        Delivery sent = wire.send(requests, ProtonJWire.message("big", "/echo", "POST", replyAddress(replies), body),
                false);
        wire.pump();
        assertEquals(1, server.requestBodies.size(), server.events.toString());
        assertArrayEquals(body, server.requestBodies.get(0), "the request arrived byte-exact");
        assertEquals(1, responses.size());
        assertArrayEquals(body, ProtonJWire.body(responses.get(0)), "the response too");
        long frames = wire.transport.getFramesInput() + wire.transport.getFramesOutput() - framesBefore;
        assertTrue(frames > 200, "100 KiB in 512-byte frames takes over 200 transfers, saw " + frames);
        assertInstanceOf(Accepted.class, sent.getRemoteState());
    }

    @Test
    void peerDrainOfOurIdleSenderIsAnsweredWithAFlow() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 5);
        wire.pump();
        Link ourSender = server.link("replies");
        assertEquals(5, ourSender.linkCredit());
        replies.drain(0);
        assertTrue(replies.draining());
        wire.pump();
        assertFalse(replies.draining(), "our flow ended the drain");
        assertEquals(0, replies.getCredit());
        assertEquals(0, ourSender.linkCredit());
        assertEquals(5, ourSender.deliveryCount());
    }

    @Test
    void ourDrainOfThePeerSenderCompletesWhenItHasNothingToSend() {
        server.autoCredit = 0;
        Session session = connected();
        Sender requests = requestSender(session, "/echo");
        wire.onEvent = e -> {
            if (e.getType() == Event.Type.LINK_FLOW && e.getLink() instanceof Sender s && s.getDrain()) {
                s.drained();
            }
        };
        wire.pump();
        Link ourReceiver = server.link("requests");
        ourReceiver.flow(7);
        wire.pump();
        assertEquals(7, requests.getCredit());
        ourReceiver.drain();
        wire.pump();
        assertEquals(1, server.drained);
        assertEquals(0, ourReceiver.linkCredit());
        assertEquals(7, ourReceiver.deliveryCount());
        assertEquals(0, requests.getCredit());
    }

    @Test
    void presettledRequestsArriveSettledAndGetNoOutcome() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String address = replyAddress(replies);
        for (int i = 0; i < 3; i++) {
            wire.send(requests, ProtonJWire.message("p-" + i, "/echo", "POST", address, new byte[] {(byte) i}), true);
        }
        wire.send(requests, ProtonJWire.message("oneway", "/echo", "POST", null, new byte[] {9}), true);
        wire.pump();
        assertEquals(List.of("/echo POST settled", "/echo POST settled", "/echo POST settled",
                "/echo POST settled"), server.requests);
        assertEquals(3, responses.size());
        assertTrue(updated.isEmpty(), "no disposition for a presettled delivery");
        assertEquals(0, requests.getUnsettled());
    }

    @Test
    void everyOutcomeOurAcceptorGivesReachesThePeer() {
        Session session = connected();
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String[] subjects = {"ACCEPT", "REJECT", "RELEASE", "MODIFY"};
        Delivery[] sent = new Delivery[subjects.length];
        for (int i = 0; i < subjects.length; i++) {
            sent[i] = wire.send(requests, ProtonJWire.message("o-" + i, "/echo", subjects[i], null, new byte[1]), false);
        }
        wire.pump();
        for (Delivery d : sent) {
            assertTrue(d.remotelySettled());
        }
        assertInstanceOf(Accepted.class, sent[0].getRemoteState());
        Rejected rejected = assertInstanceOf(Rejected.class, sent[1].getRemoteState());
        assertEquals(Symbol.valueOf("amqp:not-allowed"), rejected.getError().getCondition());
        assertEquals(OurServer.REJECT_DESCRIPTION, rejected.getError().getDescription());
        assertInstanceOf(Released.class, sent[2].getRemoteState());
        Modified modified = assertInstanceOf(Modified.class, sent[3].getRemoteState());
        assertEquals(Boolean.TRUE, modified.getDeliveryFailed());
        assertEquals(Boolean.TRUE, modified.getUndeliverableHere());
    }

    @Test
    void everyOutcomeThePeerGivesOurResponsesReachesOurEngine() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String address = replyAddress(replies);
        for (int i = 0; i < 4; i++) {
            wire.send(requests, ProtonJWire.message("q-" + i, "/echo", "POST", address, new byte[1]), false);
        }
        wire.pump();
        assertEquals(4, responseDeliveries.size());
        Rejected rejected = new Rejected();
        rejected.setError(new ErrorCondition(Symbol.valueOf("amqp:internal-error"), "bad response"));
        Modified modified = new Modified();
        modified.setDeliveryFailed(true);
        modified.setUndeliverableHere(false);
        org.apache.qpid.proton.amqp.transport.DeliveryState[] states = {Accepted.getInstance(), rejected,
                Released.getInstance(), modified};
        for (int i = 0; i < 4; i++) {
            responseDeliveries.get(i).disposition(states[i]);
            responseDeliveries.get(i).settle();
        }
        wire.pump();
        assertEquals(List.of("accepted settled", "rejected amqp:internal-error bad response settled",
                "released settled", "modified failed=true here=false settled"), server.responseOutcomes);
    }

    @Test
    void aHundredRequestsInFlightOnOneLinkAreAllAnsweredAndCorrelated() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 100);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String address = replyAddress(replies);
        List<Delivery> sent = new ArrayList<>();
        Set<Object> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            UnsignedLong id = UnsignedLong.valueOf(5_000L + i);
            ids.add(id);
            sent.add(wire.send(requests, ProtonJWire.message(id, "/echo", "POST", address, ("n" + i).getBytes()), false));
        }
        assertEquals(100, requests.getUnsettled(), "all 100 in flight before any answer");
        wire.pump();
        assertEquals(100, server.requests.size());
        assertEquals(100, responses.size());
        Set<Object> correlated = new HashSet<>();
        for (Message r : responses) {
            Object correlation = r.getCorrelationId();
            assertInstanceOf(UnsignedLong.class, correlation, "the correlation-id keeps the message-id's type");
            long n = ((UnsignedLong) correlation).longValue() - 5_000L;
            assertEquals("n" + n, new String(ProtonJWire.body(r)));
            correlated.add(correlation);
        }
        assertEquals(ids, correlated);
        for (Delivery d : sent) {
            assertTrue(d.remotelySettled());
            assertInstanceOf(Accepted.class, d.getRemoteState());
        }
    }
}
