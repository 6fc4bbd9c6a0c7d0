package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Engine;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.SaslListener;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.message.Message;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A proton-j 0.35.0 transport playing the server our initiator talks to, driven by its collector's events: SASL
 * PLAIN (alice/secret) and ANONYMOUS, every session and link accepted, dynamic sources named
 * {@code pj-dynamic-N}, each request answered on the sender whose source is its reply-to, and the request's
 * subject picking the outcome (REJECT, RELEASE, MODIFY, else accepted).
 */
final class ProtonJServer {
    static final Symbol REJECT_CONDITION = Symbol.valueOf("amqp:unauthorized-access");

    final ProtonJWire wire;
    final List<Receiver> receivers = new ArrayList<>();
    final List<Sender> senders = new ArrayList<>();
    /** Each request's link target, to, subject and whether it arrived settled. */
    final List<String> requests = new ArrayList<>();
    final List<byte[]> requestBodies = new ArrayList<>();
    final List<Delivery> responses = new ArrayList<>();
    /** What our client did with each response, once it settled it. */
    final List<DeliveryState> responseStates = new ArrayList<>();
    String saslMechanism;
    String saslUser;
    int receiverCredit = 200;
    private int dynamicCounter;
    private int tags;

    ProtonJServer(Engine ours, int maxFrameSize) {
        wire = new ProtonJWire(ours);
        wire.transport.setMaxFrameSize(maxFrameSize);
        Sasl sasl = wire.transport.sasl();
        sasl.server();
        sasl.setMechanisms("PLAIN", "ANONYMOUS");
        sasl.setListener(new SaslListener() {
            @Override
            public void onSaslInit(Sasl s, Transport t) {
                saslMechanism = s.getRemoteMechanisms()[0];
                byte[] r = new byte[s.pending()];
                s.recv(r, 0, r.length);
                Sasl.SaslOutcome outcome = Sasl.SaslOutcome.PN_SASL_OK;
                if ("PLAIN".equals(saslMechanism)) {
                    String[] parts = new String(r, StandardCharsets.UTF_8).split("\0", -1);
                    saslUser = parts[1];
                    if (!"alice".equals(parts[1]) || !"secret".equals(parts[2])) {
                        outcome = Sasl.SaslOutcome.PN_SASL_AUTH;
                    }
                }
                s.done(outcome);
            }

            @Override
            public void onSaslResponse(Sasl s, Transport t) {
                s.done(Sasl.SaslOutcome.PN_SASL_AUTH);
            }

            @Override
            public void onSaslMechanisms(Sasl s, Transport t) {
            }

            @Override
            public void onSaslChallenge(Sasl s, Transport t) {
            }

            @Override
            public void onSaslOutcome(Sasl s, Transport t) {
            }
        });
        wire.connection.setContainer("proton-j-server");
        wire.onEvent = this::onEvent;
        wire.start();
    }

    private void onEvent(Event e) {
        switch (e.getType()) {
            case CONNECTION_REMOTE_OPEN -> wire.connection.open();
            case CONNECTION_REMOTE_CLOSE -> wire.connection.close();
            case SESSION_REMOTE_OPEN -> e.getSession().open();
            case LINK_REMOTE_OPEN -> onLinkOpen(e.getLink());
            case LINK_FLOW -> {
                if (e.getLink() instanceof Sender s && s.getDrain()) {
                    s.drained();
                }
            }
            case DELIVERY -> onDelivery(e.getDelivery());
            default -> {
            }
        }
    }

    private void onLinkOpen(Link link) {
        if (link.getLocalState() != EndpointState.UNINITIALIZED) {
            return;
        }
        link.setTarget(link.getRemoteTarget());
        if (link instanceof Receiver r) {
            r.setSource(r.getRemoteSource());
            r.open();
            if (receiverCredit > 0) {
                r.flow(receiverCredit);
            }
            receivers.add(r);
        } else {
            Source remote = (Source) link.getRemoteSource();
            Source source = new Source();
            source.setAddress(remote.getAddress());
            if (remote.getDynamic()) {
                source.setDynamic(true);
                source.setAddress("pj-dynamic-" + (++dynamicCounter));
            }
            link.setSource(source);
            link.open();
            senders.add((Sender) link);
        }
    }

    private void onDelivery(Delivery d) {
        if (d.getLink() instanceof Sender) {
            if (d.remotelySettled() && !d.isSettled()) {
                responseStates.add(d.getRemoteState());
                d.settle();
            }
            return;
        }
        Message m = ProtonJWire.read(d);
        if (m == null) {
            return;
        }
        String target = ((Target) d.getLink().getRemoteTarget()).getAddress();
        String subject = m.getSubject();
        requests.add(target + " " + m.getAddress() + " " + subject + (d.remotelySettled() ? " settled" : ""));
        requestBodies.add(ProtonJWire.body(m));
        if (m.getReplyTo() != null) {
            Sender reply = senderFor(m.getReplyTo());
            Message response = ProtonJWire.message(null, m.getReplyTo(), "200", null, ProtonJWire.body(m));
            response.setCorrelationId(m.getMessageId());
            byte[] bytes = ProtonJWire.encode(response);
            Delivery out = reply.delivery(("r" + (tags++)).getBytes());
            reply.send(bytes, 0, bytes.length);
            reply.advance();
            responses.add(out);
        }
        if (!d.remotelySettled()) {
            d.disposition(outcome(subject));
        }
        d.settle();
    }

    private static DeliveryState outcome(String subject) {
        if ("REJECT".equals(subject)) {
            Rejected r = new Rejected();
            r.setError(new ErrorCondition(REJECT_CONDITION, "rejected by proton-j"));
            return r;
        }
        if ("RELEASE".equals(subject)) {
            return Released.getInstance();
        }
        if ("MODIFY".equals(subject)) {
            Modified m = new Modified();
            m.setDeliveryFailed(false);
            m.setUndeliverableHere(true);
            return m;
        }
        return Accepted.getInstance();
    }

    private Sender senderFor(String address) {
        for (Sender s : senders) {
            if (address.equals(s.getSource().getAddress())) {
                return s;
            }
        }
        throw new AssertionError("no sender for reply-to " + address);
    }
}
