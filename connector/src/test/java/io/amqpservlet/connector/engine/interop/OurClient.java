package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.util.ArrayList;
import java.util.List;

/**
 * Our initiator's application for interop tests: records what the peer's server did, so tests assert it. Responses
 * are kept as {@code subject correlation-id} plus the body bytes; outcomes of our deliveries as
 * {@code kind[ condition][ settled]}.
 */
final class OurClient implements EngineHandler {
    private final MessageId id = new MessageId();

    final List<String> events = new ArrayList<>();
    final List<String> responses = new ArrayList<>();
    final List<byte[]> bodies = new ArrayList<>();
    final List<String> outcomes = new ArrayList<>();
    /** The last remote state seen per delivery, copied (the delivery objects are pooled). */
    final List<DeliveryState> states = new ArrayList<>();
    boolean closed;
    ErrorCondition closedWith;
    int drained;
    boolean acceptResponses = true;
    /** Unsettled responses kept for the test to settle, when {@link #acceptResponses} is off. */
    final List<Delivery> held = new ArrayList<>();

    static EngineConfig plain(String user, String password) {
        return new EngineConfig().containerId("our-client").hostname("localhost").saslPlain(user, password);
    }

    static EngineConfig anonymous() {
        return new EngineConfig().containerId("our-client").hostname("localhost").saslAnonymous();
    }

    /** A request encoded by our writer: message-id, to, subject, reply-to (null for none) and one data section. */
    static byte[] request(String messageId, String to, String subject, String replyTo, byte[] body) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId(messageId);
        if (to != null) {
            m.to(to);
        }
        m.subject(subject);
        if (replyTo != null) {
            m.replyTo(replyTo);
        }
        m.endProperties().data(body, 0, body.length).end();
        return w.toByteArray();
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        events.add("attached " + link.name() + (link.isSender() ? " target=" + link.target().address()
                : " source=" + link.source().address()));
        return null;
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        events.add("detached " + link.name() + (error == null ? "" : " " + error.condition()));
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        byte[] body = new byte[(int) message.body().dataLength()];
        message.body().copyData(body, 0);
        bodies.add(body);
        String correlation = message.correlationId(id) ? id.toString() : "none";
        responses.add(message.subjectAsString() + " " + correlation);
        if (!delivery.remotelySettled()) {
            if (acceptResponses) {
                link.session().engine().accept(delivery);
            } else {
                held.add(delivery);
            }
        }
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        DeliveryState s = delivery.remoteState();
        String error = s.kind() == DeliveryState.Kind.REJECTED && !s.error().isNull() ? " " + s.error().condition() : "";
        outcomes.add(s.typeName() + error + (delivery.remotelySettled() ? " settled" : ""));
        states.add(new DeliveryState().set(s));
    }

    @Override
    public void onDrained(Link link) {
        drained++;
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        closed = true;
        closedWith = error == null ? null : new ErrorCondition().set(error);
    }
}
