package io.amqpservlet.connector.engine.interop;

import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.engine.Connection;
import org.apache.qpid.protonj2.engine.EngineFactory;
import org.apache.qpid.protonj2.engine.IncomingDelivery;
import org.apache.qpid.protonj2.engine.OutgoingDelivery;
import org.apache.qpid.protonj2.engine.Receiver;
import org.apache.qpid.protonj2.engine.Sender;
import org.apache.qpid.protonj2.engine.sasl.SaslOutcome;
import org.apache.qpid.protonj2.engine.sasl.SaslServerContext;
import org.apache.qpid.protonj2.engine.sasl.SaslServerListener;
import org.apache.qpid.protonj2.types.Symbol;
import org.apache.qpid.protonj2.types.messaging.Accepted;
import org.apache.qpid.protonj2.types.messaging.Modified;
import org.apache.qpid.protonj2.types.messaging.Rejected;
import org.apache.qpid.protonj2.types.messaging.Released;
import org.apache.qpid.protonj2.types.messaging.Source;
import org.apache.qpid.protonj2.types.transport.AMQPHeader;
import org.apache.qpid.protonj2.types.transport.DeliveryState;
import org.apache.qpid.protonj2.types.transport.ErrorCondition;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A protonj2 1.1.0 engine playing the server our initiator talks to: SASL PLAIN (alice/secret) and ANONYMOUS, every
 * session and link accepted, dynamic sources named {@code pj2-dynamic-N}, and each request answered on the sender
 * whose source is the request's reply-to (subject "200", correlation-id = message-id, body echoed). The request's
 * subject picks the outcome (REJECT, RELEASE, MODIFY, else accepted), as in {@link OurServer}.
 */
final class ProtonJ2Server {
    static final Symbol REJECT_CONDITION = Symbol.valueOf("amqp:precondition-failed");

    final org.apache.qpid.protonj2.engine.Engine engine = EngineFactory.PROTON.createEngine();
    final Connection connection;
    final List<Receiver> receivers = new ArrayList<>();
    final List<Sender> senders = new ArrayList<>();
    /** Each request's link target, to, subject and whether it arrived settled. */
    final List<String> requests = new ArrayList<>();
    final List<byte[]> requestBodies = new ArrayList<>();
    final List<IncomingDelivery> requestDeliveries = new ArrayList<>();
    /** What our client did with the responses, as the protonj2 sender saw it. */
    final List<DeliveryState> responseStates = new ArrayList<>();
    final List<OutgoingDelivery> responses = new ArrayList<>();
    String saslMechanism;
    String saslUser;
    int receiverCredit = 200;
    boolean autoDrained = true;
    private int dynamicCounter;

    ProtonJ2Server(long maxFrameSize) {
        engine.saslDriver().server().setListener(new SaslServerListener() {
            @Override
            public void handleSaslHeader(SaslServerContext context, AMQPHeader header) {
                context.sendMechanisms(new Symbol[] {Symbol.valueOf("PLAIN"), Symbol.valueOf("ANONYMOUS")});
            }

            @Override
            public void handleSaslInit(SaslServerContext context, Symbol mechanism, ProtonBuffer response) {
                saslMechanism = mechanism.toString();
                SaslOutcome outcome = SaslOutcome.SASL_OK;
                if ("PLAIN".equals(saslMechanism)) {
                    byte[] r = new byte[response.getReadableBytes()];
                    response.readBytes(r, 0, r.length);
                    String[] parts = new String(r, StandardCharsets.UTF_8).split("\0", -1);
                    saslUser = parts[1];
                    if (!"alice".equals(parts[1]) || !"secret".equals(parts[2])) {
                        outcome = SaslOutcome.SASL_AUTH;
                    }
                }
                context.sendOutcome(outcome, null);
            }

            @Override
            public void handleSaslResponse(SaslServerContext context, ProtonBuffer response) {
                context.sendOutcome(SaslOutcome.SASL_AUTH, null);
            }
        });
        connection = engine.start();
        connection.setContainerId("protonj2-server").setMaxFrameSize(maxFrameSize);
        connection.openHandler(c -> c.open());
        connection.closeHandler(c -> c.close());
        connection.sessionOpenHandler(s -> s.open());
        connection.receiverOpenHandler(this::onReceiverOpen);
        connection.senderOpenHandler(this::onSenderOpen);
    }

    private void onReceiverOpen(Receiver r) {
        r.setSource(r.getRemoteSource());
        r.setTarget(r.<org.apache.qpid.protonj2.types.messaging.Target>getRemoteTarget());
        r.deliveryReadHandler(this::onRequest);
        r.open();
        if (receiverCredit > 0) {
            r.addCredit(receiverCredit);
        }
        receivers.add(r);
    }

    private void onSenderOpen(Sender s) {
        Source source = s.getRemoteSource().copy();
        if (source.isDynamic()) {
            source.setAddress("pj2-dynamic-" + (++dynamicCounter));
        }
        s.setSource(source);
        s.setTarget(s.<org.apache.qpid.protonj2.types.messaging.Target>getRemoteTarget());
        s.deliveryStateUpdatedHandler(d -> responseStates.add(d.getRemoteState()));
        s.creditStateUpdateHandler(x -> {
            if (autoDrained && x.isDraining()) {
                x.drained();
            }
        });
        s.open();
        senders.add(s);
    }

    private void onRequest(IncomingDelivery d) {
        if (d.isPartial()) {
            return;
        }
        ProtonJ2Wire.Decoded m = ProtonJ2Wire.decode(d.readAll());
        String target = d.getLink().<org.apache.qpid.protonj2.types.messaging.Target>getRemoteTarget().getAddress();
        String subject = m.properties().getSubject();
        requests.add(target + " " + m.properties().getTo() + " " + subject + (d.isRemotelySettled() ? " settled" : ""));
        requestBodies.add(m.body());
        requestDeliveries.add(d);
        String replyTo = m.properties().getReplyTo();
        if (replyTo != null) {
            Sender reply = senderFor(replyTo);
            OutgoingDelivery out = reply.next();
            out.writeBytes(ProtonJ2Wire.response(m.properties().getMessageId(), replyTo, m.body()));
            responses.add(out);
        }
        if (d.isRemotelySettled()) {
            d.settle();
            return;
        }
        DeliveryState outcome;
        if ("REJECT".equals(subject)) {
            outcome = new Rejected(new ErrorCondition(REJECT_CONDITION, "rejected by protonj2"));
        } else if ("RELEASE".equals(subject)) {
            outcome = Released.getInstance();
        } else if ("MODIFY".equals(subject)) {
            outcome = new Modified(true, false);
        } else {
            outcome = Accepted.getInstance();
        }
        d.disposition(outcome, true);
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
