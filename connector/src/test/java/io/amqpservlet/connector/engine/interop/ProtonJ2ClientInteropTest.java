package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.Link;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.engine.Connection;
import org.apache.qpid.protonj2.engine.EngineFactory;
import org.apache.qpid.protonj2.engine.EngineSaslDriver;
import org.apache.qpid.protonj2.engine.IncomingDelivery;
import org.apache.qpid.protonj2.engine.OutgoingDelivery;
import org.apache.qpid.protonj2.engine.Receiver;
import org.apache.qpid.protonj2.engine.Sender;
import org.apache.qpid.protonj2.engine.Session;
import org.apache.qpid.protonj2.engine.sasl.SaslOutcome;
import org.apache.qpid.protonj2.engine.sasl.client.SaslAuthenticator;
import org.apache.qpid.protonj2.engine.sasl.client.SaslCredentialsProvider;
import org.apache.qpid.protonj2.types.Symbol;
import org.apache.qpid.protonj2.types.UnsignedLong;
import org.apache.qpid.protonj2.types.messaging.Accepted;
import org.apache.qpid.protonj2.types.messaging.Modified;
import org.apache.qpid.protonj2.types.messaging.Rejected;
import org.apache.qpid.protonj2.types.messaging.Released;
import org.apache.qpid.protonj2.types.messaging.Source;
import org.apache.qpid.protonj2.types.messaging.Target;
import org.apache.qpid.protonj2.types.transport.DeliveryState;
import org.apache.qpid.protonj2.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;

import java.security.Principal;
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

/** protonj2 1.1.0 as the client, our engine as the acceptor: what a protonj2-based client sees of our gateway. */
class ProtonJ2ClientInteropTest {
    private final OurServer server = new OurServer();
    private final List<IncomingDelivery> responses = new ArrayList<>();
    private Engine ours;
    private org.apache.qpid.protonj2.engine.Engine peer;
    private ProtonJ2Wire wire;
    private Connection connection;
    private SaslOutcome saslOutcome;

    private static SaslCredentialsProvider credentials(String user, String password) {
        return new SaslCredentialsProvider() {
            @Override
            public String vhost() {
                return "localhost";
            }

            @Override
            public String username() {
                return user;
            }

            @Override
            public String password() {
                return password;
            }

            @Override
            public Principal localPrincipal() {
                return null;
            }
        };
    }

    private Connection connect(EngineConfig config, String user, String password, long peerMaxFrameSize) {
        ours = new Engine(config.role(EngineConfig.Role.ACCEPTOR), server);
        peer = EngineFactory.PROTON.createEngine();
        peer.saslDriver().client().setListener(
                new SaslAuthenticator(credentials(user, password)).saslComplete(o -> saslOutcome = o));
        wire = new ProtonJ2Wire(ours, peer);
        connection = peer.start();
        connection.setContainerId("protonj2-client").setHostname("localhost").setMaxFrameSize(peerMaxFrameSize);
        connection.open();
        wire.pump();
        return connection;
    }

    private Session connected() {
        connect(OurServer.plainConfig(), "alice", "secret", 64 * 1024);
        Session session = connection.session().open();
        wire.pump();
        return session;
    }

    /** A reply receiver with a dynamic source (how protonj2 clients make reply-to addresses), with credit. */
    private Receiver replyReceiver(Session session, int credit) {
        Receiver r = session.receiver("replies");
        r.setSource(new Source().setDynamic(true));
        r.setTarget(new Target());
        r.deliveryReadHandler(d -> {
            if (!d.isPartial()) {
                responses.add(d);
            }
        });
        r.open();
        r.addCredit(credit);
        return r;
    }

    private Sender requestSender(Session session, String address) {
        Sender s = session.sender("requests");
        s.setSource(new Source().setAddress("requests"));
        s.setTarget(address == null ? new Target() : new Target().setAddress(address));
        s.open();
        return s;
    }

    private static OutgoingDelivery send(Sender sender, ProtonBuffer message, boolean settled) {
        OutgoingDelivery d = sender.next();
        if (settled) {
            d.settle();
        }
        d.writeBytes(message);
        return d;
    }

    @Test
    void saslPlainWithTheRightPasswordOpensTheConnection() {
        connect(OurServer.plainConfig(), "alice", "secret", 64 * 1024);
        assertEquals(SaslOutcome.SASL_OK, saslOutcome);
        assertEquals("alice", server.identity);
        assertTrue(connection.isRemotelyOpen(), "our open reached protonj2");
        assertEquals("our-server", connection.getRemoteContainerId());
        assertTrue(Arrays.asList(connection.getRemoteOfferedCapabilities()).contains(Symbol.valueOf("ANONYMOUS-RELAY")));
        assertTrue(ours.isOpen());
    }

    @Test
    void saslPlainWithAWrongPasswordIsRefusedWithOutcomeAuth() {
        connect(OurServer.plainConfig(), "alice", "wrong", 64 * 1024);
        assertEquals(SaslOutcome.SASL_AUTH, saslOutcome, "our acceptor sent sasl-outcome with code auth");
        assertEquals(EngineSaslDriver.SaslState.AUTHENTICATION_FAILED, peer.saslDriver().getSaslState());
        assertFalse(connection.isRemotelyOpen());
        assertNull(server.identity);
        assertTrue(ours.isDone(), "our transport ends after the outcome");
    }

    @Test
    void saslAnonymousOpensWithTheAnonymousIdentity() {
        connect(OurServer.anonymousConfig(), null, null, 64 * 1024);
        assertEquals(SaslOutcome.SASL_OK, saslOutcome);
        assertEquals(Symbol.valueOf("ANONYMOUS"), peer.saslDriver().client().getChosenMechanism());
        assertEquals("anonymous", server.identity);
        assertTrue(connection.isRemotelyOpen());
    }

    @Test
    void requestReplyOverADynamicReceiverCorrelatesTheResponse() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String address = replies.getRemoteSource().getAddress();
        assertNotNull(address, "our attach named the dynamic node");
        assertEquals(server.link("replies").source().address().toString(), address);
        assertTrue(address.startsWith("amqp-servlet:"), address);
        assertTrue(replies.getRemoteSource().isDynamic());
        assertEquals("/echo", ((Target) requests.getRemoteTarget()).getAddress(), "our attach echoes the target");
        assertTrue(requests.isSendable(), "our acceptor granted credit");

        OutgoingDelivery sent = send(requests, ProtonJ2Wire.message("req-1", "/echo", "POST", address,
                "hello".getBytes()), false);
        wire.pump();

        assertEquals(List.of("/echo POST"), server.requests);
        assertEquals(1, responses.size());
        ProtonJ2Wire.Decoded response = ProtonJ2Wire.decode(responses.get(0).readAll());
        assertEquals("req-1", response.properties().getCorrelationId());
        assertEquals("200", response.properties().getSubject());
        assertEquals(address, response.properties().getTo());
        assertEquals("hello", new String(response.body()));
        assertTrue(sent.isRemotelySettled());
        assertInstanceOf(Accepted.class, sent.getRemoteState());
    }

    @Test
    void anonymousRelaySenderIsRoutedByEachMessagesTo() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender relay = requestSender(session, null);
        wire.pump();
        assertTrue(server.events.contains("attach receiver target=null"), server.events.toString());
        assertNotNull(relay.getRemoteTarget(), "our acceptor accepted the null-address target");
        assertNull(((Target) relay.getRemoteTarget()).getAddress());

        String address = replies.getRemoteSource().getAddress();
        send(relay, ProtonJ2Wire.message("r-1", "/orders/1", "PUT", address, new byte[] {1, 2, 3}), false);
        send(relay, ProtonJ2Wire.message("r-2", "/orders/2", "GET", address, new byte[0]), false);
        wire.pump();
        assertEquals(List.of("/orders/1 PUT", "/orders/2 GET"), server.requests);
        assertEquals(2, responses.size());
        assertEquals("r-2", ProtonJ2Wire.decode(responses.get(1).readAll()).properties().getCorrelationId());
    }

    @Test
    void multiFrameMessagesBothWaysAreByteExactWhenTheClientTakesSmallFrames() {
        connect(OurServer.plainConfig(), "alice", "secret", 512);
        assertEquals(512, ours.remoteMaxFrameSize());
        multiFrameRoundTrip(connection.session().open());
    }

    @Test
    void multiFrameMessagesBothWaysAreByteExactWhenOurAcceptorTakesSmallFrames() {
        connect(OurServer.plainConfig().maxFrameSizeBytes(512), "alice", "secret", 64 * 1024);
        assertEquals(512, connection.getRemoteMaxFrameSize());
        multiFrameRoundTrip(connection.session().open());
    }

    private void multiFrameRoundTrip(Session session) {
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        byte[] body = ProtonJ2Wire.pattern(100 * 1024, 7);
        OutgoingDelivery sent = send(requests, ProtonJ2Wire.message("big", "/echo", "POST",
                replies.getRemoteSource().getAddress(), body), false);
        wire.pump();
        assertEquals(1, server.requestBodies.size(), server.events.toString());
        assertArrayEquals(body, server.requestBodies.get(0), "the request arrived byte-exact");
        assertEquals(1, responses.size());
        assertArrayEquals(body, ProtonJ2Wire.decode(responses.get(0).readAll()).body(), "the response too");
        int frames = Math.max(sent.getTransferCount(), responses.get(0).getTransferCount());
        assertTrue(frames > 200, "100 KiB in 512-byte frames takes over 200 transfers, saw " + frames);
        assertInstanceOf(Accepted.class, sent.getRemoteState());
    }

    @Test
    void ourSenderKeepsToTheClientsSmallSessionWindowAndResumesAsItOpens() {
        connect(OurServer.plainConfig(), "alice", "secret", 512);
        Session session = connection.session();
        session.setIncomingCapacity(2048); // four 512-byte frames: protonj2 reopens the window as bytes are read
        session.open();
        Receiver replies = session.receiver("replies");
        replies.setSource(new Source().setDynamic(true));
        replies.setTarget(new Target());
        java.io.ByteArrayOutputStream assembled = new java.io.ByteArrayOutputStream();
        int[] completed = {0};
        replies.deliveryReadHandler(d -> {
            ProtonBuffer chunk = d.readAll(); // reading partial deliveries frees session capacity
            byte[] b = new byte[chunk.getReadableBytes()];
            chunk.readBytes(b, 0, b.length);
            assembled.writeBytes(b);
            if (!d.isPartial()) {
                completed[0]++;
            }
        });
        replies.open();
        replies.addCredit(1);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        byte[] body = ProtonJ2Wire.pattern(20 * 1024, 5);
        send(requests, ProtonJ2Wire.message("w", "/echo", "POST", replies.getRemoteSource().getAddress(), body), false);
        wire.pump();
        assertEquals(1, completed[0], "the response completed through a window of four frames");
        ProtonJ2Wire.Decoded response = ProtonJ2Wire.decode(ProtonJ2Wire.ALLOCATOR.copy(assembled.toByteArray()));
        assertEquals("w", response.properties().getCorrelationId());
        assertArrayEquals(body, response.body());
    }

    @Test
    void peerDrainOfOurIdleSenderIsAnsweredWithAFlow() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 5);
        int[] creditUpdates = {0};
        replies.creditStateUpdateHandler(r -> creditUpdates[0]++);
        wire.pump();
        Link ourSender = server.link("replies");
        assertEquals(5, ourSender.linkCredit());

        assertTrue(replies.drain(), "protonj2 started a drain");
        wire.pump();
        assertFalse(replies.isDraining(), "our flow ended the drain");
        assertEquals(0, replies.getCredit());
        assertTrue(creditUpdates[0] > 0);
        assertEquals(0, ourSender.linkCredit());
        assertEquals(5, ourSender.deliveryCount(), "delivery-count advanced by the unused credit");
    }

    @Test
    void ourDrainOfThePeerSenderCompletesWhenItHasNothingToSend() {
        server.autoCredit = 0;
        Session session = connected();
        Sender requests = requestSender(session, "/echo");
        requests.creditStateUpdateHandler(s -> {
            if (s.isDraining()) {
                s.drained();
            }
        });
        wire.pump();
        Link ourReceiver = server.link("requests");
        ourReceiver.flow(7);
        wire.pump();
        assertEquals(7, requests.getCredit());
        ourReceiver.drain();
        wire.pump();
        assertEquals(1, server.drained, "our handler heard the drain complete");
        assertEquals(0, ourReceiver.linkCredit());
        assertEquals(7, ourReceiver.deliveryCount());
        assertEquals(0, requests.getCredit());
    }

    @Test
    void presettledRequestsArriveSettledAndGetNoOutcome() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        List<OutgoingDelivery> updated = new ArrayList<>();
        requests.deliveryStateUpdatedHandler(updated::add);
        wire.pump();
        String address = replies.getRemoteSource().getAddress();
        for (int i = 0; i < 3; i++) {
            send(requests, ProtonJ2Wire.message("p-" + i, "/echo", "POST", address, new byte[] {(byte) i}), true);
        }
        send(requests, ProtonJ2Wire.message("oneway", "/echo", "POST", null, new byte[] {9}), true);
        wire.pump();
        assertEquals(List.of("/echo POST settled", "/echo POST settled", "/echo POST settled",
                "/echo POST settled"), server.requests);
        assertEquals(3, responses.size(), "presettled requests are still answered");
        assertTrue(updated.isEmpty(), "no disposition for a presettled delivery");
        assertFalse(requests.hasUnsettled());
    }

    @Test
    void everyOutcomeOurAcceptorGivesReachesThePeer() {
        Session session = connected();
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String[] subjects = {"ACCEPT", "REJECT", "RELEASE", "MODIFY"};
        OutgoingDelivery[] sent = new OutgoingDelivery[subjects.length];
        for (int i = 0; i < subjects.length; i++) {
            sent[i] = send(requests, ProtonJ2Wire.message("o-" + i, "/echo", subjects[i], null, new byte[1]), false);
        }
        wire.pump();
        for (OutgoingDelivery d : sent) {
            assertTrue(d.isRemotelySettled());
        }
        assertInstanceOf(Accepted.class, sent[0].getRemoteState());
        Rejected rejected = assertInstanceOf(Rejected.class, sent[1].getRemoteState());
        assertEquals(Symbol.valueOf("amqp:not-allowed"), rejected.getError().getCondition());
        assertEquals(OurServer.REJECT_DESCRIPTION, rejected.getError().getDescription());
        assertInstanceOf(Released.class, sent[2].getRemoteState());
        Modified modified = assertInstanceOf(Modified.class, sent[3].getRemoteState());
        assertTrue(modified.isDeliveryFailed());
        assertTrue(modified.isUndeliverableHere());
    }

    @Test
    void everyOutcomeThePeerGivesOurResponsesReachesOurEngine() {
        Session session = connected();
        Receiver replies = replyReceiver(session, 10);
        Sender requests = requestSender(session, "/echo");
        wire.pump();
        String address = replies.getRemoteSource().getAddress();
        for (int i = 0; i < 4; i++) {
            send(requests, ProtonJ2Wire.message("q-" + i, "/echo", "POST", address, new byte[1]), false);
        }
        wire.pump();
        assertEquals(4, responses.size());
        DeliveryState[] states = {Accepted.getInstance(),
                new Rejected(new ErrorCondition(Symbol.valueOf("amqp:internal-error"), "bad response")),
                Released.getInstance(), new Modified(true, false)};
        for (int i = 0; i < 4; i++) {
            responses.get(i).disposition(states[i], true);
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
        String address = replies.getRemoteSource().getAddress();
        assertEquals(200, requests.getCredit());
        List<OutgoingDelivery> sent = new ArrayList<>();
        Set<UnsignedLong> ids = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            UnsignedLong id = UnsignedLong.valueOf(1_000_000L + i);
            ids.add(id);
            sent.add(send(requests, ProtonJ2Wire.message(id, "/echo", "POST", address, ("n" + i).getBytes()), false));
        }
        assertEquals(100, requests.unsettled().size(), "all 100 in flight before any answer");
        wire.pump();
        assertEquals(100, server.requests.size());
        assertEquals(100, responses.size());
        Set<Object> correlated = new HashSet<>();
        for (IncomingDelivery d : responses) {
            ProtonJ2Wire.Decoded r = ProtonJ2Wire.decode(d.readAll());
            Object correlation = r.properties().getCorrelationId();
            assertInstanceOf(UnsignedLong.class, correlation, "the correlation-id keeps the message-id's type");
            long n = ((UnsignedLong) correlation).longValue() - 1_000_000L;
            assertEquals("n" + n, new String(r.body()), "the body answers its own request");
            correlated.add(correlation);
        }
        assertEquals(ids, correlated);
        for (OutgoingDelivery d : sent) {
            assertInstanceOf(Accepted.class, d.getRemoteState());
            assertTrue(d.isRemotelySettled(), "our acceptor settles each request once answered");
        }
    }
}
