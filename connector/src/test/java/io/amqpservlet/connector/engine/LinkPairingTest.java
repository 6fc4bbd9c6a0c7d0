package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.SenderSettleMode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Link pairing (OASIS "AMQP Request-Response Messaging with Link Pairing"), our initiator against our acceptor and a
 * raw peer against our acceptor: halves pair in either order, a request with reply-to "$me" is answered on the
 * other half (pre-settled when that half's snd-settle-mode is settled), and a half that cannot join its pair is
 * refused with the matching condition.
 */
class LinkPairingTest {
    private static final String PAIR = "management-link-pair";

    /** Answers "$me" on the request link's other half, any other reply-to on the engine's reply node. */
    private static final class PairResponder implements EngineHandler {
        final MutableBytes replyTo = new MutableBytes();
        final MessageId messageId = new MessageId();
        final List<Link> links = new ArrayList<>();
        final List<String> events = new ArrayList<>();

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            links.add(link);
            if (!link.isSender()) {
                link.autoCredit(10);
            }
            return null;
        }

        @Override
        public void onLinkDetach(Link link, ErrorCondition error) {
            events.add("detach " + link.name() + (link.isSender() ? " sender" : " receiver")
                    + (error == null ? "" : " " + error.condition()));
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            Engine engine = link.session().engine();
            message.replyTo(replyTo);
            Link replies = replyTo.contentEquals("$me") ? link.paired()
                    : engine.replyLink(replyTo.array(), 0, replyTo.length());
            if (replies == null) {
                engine.reject(delivery, ErrorConditions.NOT_FOUND, "no link for reply-to " + replyTo);
                return;
            }
            message.messageId(messageId);
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().subject("200").correlationId(messageId).endProperties().end();
            replies.send(w.array(), 0, w.length(), false);
            if (!delivery.remotelySettled()) {
                engine.accept(delivery);
            }
        }

        Link half(boolean sender) {
            for (Link l : links) {
                if (l.isSender() == sender && l.name().toString().equals(PAIR)) {
                    return l;
                }
            }
            return null;
        }
    }

    /** Records responses (subject, correlation-id, settled on arrival) and link events. */
    private static final class Client implements EngineHandler {
        final List<String> responses = new ArrayList<>();
        final List<String> events = new ArrayList<>();

        @Override
        public void onLinkDetach(Link link, ErrorCondition error) {
            events.add("detached " + link.name() + (link.isSender() ? " sender" : " receiver")
                    + (error == null ? "" : " " + error.condition() + ": " + error.description()));
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            responses.add(message.subjectAsString() + " " + message.propertiesFieldAsString(5)
                    + (delivery.remotelySettled() ? " settled" : " unsettled"));
            if (!delivery.remotelySettled()) {
                link.session().engine().accept(delivery);
            }
        }

        @Override
        public void onDeliveryUpdated(Link link, Delivery delivery) {
            events.add("outcome " + delivery.remoteState().typeName());
        }
    }

    private final PairResponder server = new PairResponder();
    private final Client client = new Client();
    private final EnginePair pair = new EnginePair(new EngineConfig().containerId("client").saslRequired(false),
            client, new EngineConfig().containerId("server").saslRequired(false), server);

    private static byte[] request(String id, String replyTo) {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().messageId(id).to("/queues/q").subject("GET").replyTo(replyTo)
                .endProperties().end();
        return w.toByteArray();
    }

    @Test
    void halvesPairOnBothSidesAndMeIsAnsweredSettledOnTheOtherHalf() {
        pair.pump();
        Session session = pair.client.beginSession();
        Link requests = session.attachPairedSender(PAIR, "/management", true);
        Link responses = session.attachPairedReceiver(PAIR, "/management", true);
        responses.autoCredit(10);
        pair.pump();

        assertSame(responses, requests.paired(), "the server echoed paired=true for both halves");
        assertSame(requests, responses.paired());
        Link serverIn = server.half(false);
        Link serverOut = server.half(true);
        assertSame(serverOut, serverIn.paired());
        assertSame(serverIn, serverOut.paired());
        assertEquals(SenderSettleMode.SETTLED, serverOut.sndSettleMode());
        byte[] node = "/management".getBytes(StandardCharsets.US_ASCII);
        assertNull(pair.server.replyLink(node, 0, node.length), "a pair's sending half is not a reply node");

        byte[] req = request("m-1", "$me");
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(List.of("200 m-1 settled"), client.responses,
                "answered on the paired link, pre-settled as its snd-settle-mode promises");
    }

    @Test
    void theReceivingHalfMayComeFirstAndAnUnsettledPairGetsUnsettledResponses() {
        pair.pump();
        Session session = pair.client.beginSession();
        Link responses = session.attachPairedReceiver(PAIR, "/management", false);
        responses.autoCredit(10);
        pair.pump();
        assertNull(responses.paired(), "half a pair is no pair");
        Link requests = session.attachPairedSender(PAIR, "/management", false);
        pair.pump();
        assertSame(responses, requests.paired());

        byte[] req = request("m-2", "$me");
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(List.of("200 m-2 unsettled"), client.responses);
        assertTrue(client.events.contains("outcome accepted"), client.events.toString());
    }

    @Test
    void twoPairsOnOneSessionStaySeparate() {
        pair.pump();
        Session session = pair.client.beginSession();
        Link a = session.attachPairedSender("pair a", "/management", true);
        Link aReplies = session.attachPairedReceiver("pair a", "/management", true);
        Link b = session.attachPairedSender("pair b", "/management", true);
        Link bReplies = session.attachPairedReceiver("pair b", "/management", true);
        aReplies.autoCredit(10);
        bReplies.autoCredit(10);
        pair.pump();
        assertSame(aReplies, a.paired());
        assertSame(bReplies, b.paired());

        byte[] req = request("to-b", "$me");
        b.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(List.of("200 to-b settled"), client.responses);
    }

    @Test
    void aHalfEndingUnpairsTheOtherWhichAPairsAgainWithANewHalf() {
        pair.pump();
        Session session = pair.client.beginSession();
        Link requests = session.attachPairedSender(PAIR, "/management", true);
        Link responses = session.attachPairedReceiver(PAIR, "/management", true);
        pair.pump();
        Link serverIn = server.half(false);
        responses.detach(null, null);
        pair.pump();
        assertNull(requests.paired());
        assertNull(serverIn.paired());
        assertTrue(requests.isOpen(), "the other half stays attached");

        Link again = session.attachPairedReceiver(PAIR, "/management", true);
        again.autoCredit(10);
        pair.pump();
        assertSame(again, requests.paired());
        byte[] req = request("m-3", "$me");
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(List.of("200 m-3 settled"), client.responses);
    }

    @Test
    void halvesOnTwoSessionsAreRefused() {
        pair.pump();
        Link requests = pair.client.beginSession().attachPairedSender(PAIR, "/management", true);
        Link responses = pair.client.beginSession().attachPairedReceiver(PAIR, "/management", true);
        pair.pump();
        assertTrue(requests.isOpen());
        assertFalse(responses.isOpen());
        assertNull(requests.paired());
        assertTrue(client.events.get(0).startsWith("detached " + PAIR + " receiver amqp:precondition-failed: the other "
                + "half of link pair " + PAIR + " is attached on channel 0"), client.events.toString());
    }

    @Test
    void halvesNamingDifferentNodesAreRefused() {
        pair.pump();
        Session session = pair.client.beginSession();
        session.attachPairedSender(PAIR, "/management", true);
        Link responses = session.attachPairedReceiver(PAIR, "/elsewhere", true);
        pair.pump();
        assertFalse(responses.isOpen());
        assertTrue(client.events.get(0).startsWith("detached " + PAIR + " receiver amqp:precondition-failed: link pair "
                + PAIR + ": the halves name different nodes"), client.events.toString());
    }

    @Test
    void aPairedHalfCannotJoinAPlainLinkOfItsName() {
        pair.pump();
        Session session = pair.client.beginSession();
        Link plain = session.attachSender(PAIR, "/management");
        Link responses = session.attachPairedReceiver(PAIR, "/management", true);
        pair.pump();
        assertTrue(plain.isOpen());
        assertFalse(responses.isOpen());
        assertTrue(client.events.get(0).startsWith("detached " + PAIR + " receiver amqp:precondition-failed"),
                client.events.toString());
    }

    // ---------------------------------------------------------------------------------- a raw peer's attaches

    private static Attach attach(RawPeer peer, int handle, Role role, String node) {
        Attach a = peer.p().attach().clear().name(PAIR).handle(handle).role(role)
                .sndSettleMode(SenderSettleMode.SETTLED);
        if (role == Role.SENDER) {
            a.initialDeliveryCount(0);
            a.source().clear().present(true).address("client-terminus");
            a.target().clear().present(true).address(node);
        } else {
            a.source().clear().present(true).address(node);
            a.target().clear().present(true).address("client-terminus");
        }
        return a;
    }

    private static void properties(Attach a, java.util.function.Consumer<AmqpWriter> map) {
        AmqpWriter w = new AmqpWriter();
        w.startMap();
        map.accept(w);
        w.endMap();
        a.properties().set(w.toByteArray(), 0, w.length());
    }

    /** Whether an attach's properties are exactly {@code {paired: true}}. */
    private static boolean pairedTrue(Attach a) {
        if (a.properties().isNull()) {
            return false;
        }
        io.amqpservlet.protocol.codec.AmqpReader r = a.properties().reader(new io.amqpservlet.protocol.codec.AmqpReader());
        int entries = r.count();
        r.enter();
        return entries == 2 && r.next() >= 0 && "paired".equals(r.getString()) && r.next() >= 0 && r.getBoolean()
                && !r.hasNext();
    }

    @Test
    void unknownLinkPropertiesAreIgnoredAndPairedIsEchoed() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), server);
        peer.open();
        peer.begin(0, 0, 100);
        Attach sender = attach(peer, 0, Role.SENDER, "/management");
        properties(sender, w -> {
            w.writeSymbol("x-opt-unknown");
            w.writeString("whatever");
            w.writeSymbol("paired");
            w.writeBoolean(true);
        });
        peer.frame(0, sender).flush();
        Attach answer = peer.first(Attach.class);
        assertTrue(pairedTrue(answer), "paired=true is echoed, nothing else: " + answer);
        assertFalse(answer.target().isNull(), "accepted");

        Attach receiver = attach(peer, 1, Role.RECEIVER, "/management");
        properties(receiver, w -> {
            w.writeSymbol("paired");
            w.writeBoolean(true);
        });
        peer.take();
        peer.frame(0, receiver).flush();
        Attach second = peer.first(Attach.class);
        assertFalse(second.source().isNull(), "accepted");
        assertSame(server.half(true), server.half(false).paired());
    }

    @Test
    void aPairedPropertyThatIsNotABooleanIsAnInvalidField() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), server);
        peer.open();
        peer.begin(0, 0, 100);
        Attach sender = attach(peer, 0, Role.SENDER, "/management");
        properties(sender, w -> {
            w.writeSymbol("paired");
            w.writeString("true");
        });
        peer.frame(0, sender).flush();
        Attach answer = peer.first(Attach.class);
        assertTrue(answer.target().isNull(), "refused with a null target");
        assertTrue(answer.properties().isNull(), "a refused half is not echoed as paired");
        RawPeer.assertDetachError(peer.last(Detach.class), ErrorConditions.INVALID_FIELD);
    }

    @Test
    void halvesNamingDifferentClientTerminiAreRefused() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), server);
        peer.open();
        peer.begin(0, 0, 100);
        Attach sender = attach(peer, 0, Role.SENDER, "/management");
        properties(sender, w -> {
            w.writeSymbol("paired");
            w.writeBoolean(true);
        });
        peer.frame(0, sender).flush();
        Attach receiver = attach(peer, 1, Role.RECEIVER, "/management");
        receiver.target().address("another-terminus");
        properties(receiver, w -> {
            w.writeSymbol("paired");
            w.writeBoolean(true);
        });
        peer.frame(0, receiver).flush();
        Detach detach = peer.last(Detach.class);
        RawPeer.assertDetachError(detach, ErrorConditions.PRECONDITION_FAILED);
        assertEquals(1, detach.handle());
    }
}
