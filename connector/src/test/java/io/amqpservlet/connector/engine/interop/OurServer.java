package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;

import java.util.ArrayList;
import java.util.List;

/**
 * Our acceptor's application for interop tests, in the manner of the engine tests' EchoResponder: a request with a
 * reply-to is answered on the reply link (subject "200", correlation-id = the request's message-id, the body
 * echoed); the request's subject picks its outcome, so a peer can see every outcome we send: REJECT, RELEASE,
 * MODIFY, anything else accepted.
 */
final class OurServer implements EngineHandler {
    static final Symbol REJECT_CONDITION = Symbol.of("amqp:not-allowed");
    static final String REJECT_DESCRIPTION = "rejected by the test server";

    private final MutableBytes replyTo = new MutableBytes();
    private final MessageId messageId = new MessageId();
    private final AmqpWriter response = new AmqpWriter(1024);
    private final MessageWriter messages = new MessageWriter();

    final List<Link> links = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    /** Each request's to, subject and whether it arrived settled, in arrival order. */
    final List<String> requests = new ArrayList<>();
    final List<byte[]> requestBodies = new ArrayList<>();
    /** What the peer did with our responses: {@code kind[ details][ settled]}. */
    final List<String> responseOutcomes = new ArrayList<>();
    int autoCredit = 200;
    String identity;
    ErrorCondition closedWith;
    boolean closed;
    int drained;

    static EngineConfig plainConfig() {
        return new EngineConfig().containerId("our-server")
                .plainAuthenticator((z, u, p) -> "alice".equals(u) && "secret".equals(p) ? u : null);
    }

    static EngineConfig anonymousConfig() {
        return new EngineConfig().containerId("our-server").anonymousAllowed(true);
    }

    @Override
    public void onAuthenticated(Engine engine, String who) {
        identity = who;
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        closed = true;
        closedWith = error == null ? null : new ErrorCondition().set(error);
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        links.add(link);
        events.add("attach " + (link.isSender() ? "sender source=" + link.source().address()
                : "receiver target=" + link.target().address()));
        if (!link.isSender() && autoCredit > 0) {
            link.autoCredit(autoCredit);
        }
        return null;
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        events.add("detach " + link.name() + (error == null ? "" : " " + error.condition()));
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        DeliveryState st = delivery.remoteState();
        String error = st.kind() == DeliveryState.Kind.REJECTED && !st.error().isNull() ? " " + st.error().condition()
                + " " + st.error().description() : "";
        String modified = st.kind() == DeliveryState.Kind.MODIFIED ? " failed=" + st.deliveryFailed() + " here="
                + st.undeliverableHere() : "";
        responseOutcomes.add(st.typeName() + error + modified + (delivery.remotelySettled() ? " settled" : ""));
    }

    @Override
    public void onDrained(Link link) {
        drained++;
    }

    /** The link the peer attached with this name, from our side. */
    Link link(String name) {
        for (Link l : links) {
            if (l.name().contentEquals(name)) {
                return l;
            }
        }
        throw new AssertionError("no link named " + name + " in " + events);
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        Engine engine = link.session().engine();
        String subject = message.subjectAsString();
        requests.add(message.toAsString() + " " + subject + (delivery.remotelySettled() ? " settled" : ""));
        byte[] body = new byte[(int) message.body().dataLength()];
        message.body().copyData(body, 0);
        requestBodies.add(body);
        if (message.replyTo(replyTo)) {
            Link reply = engine.replyLink(replyTo.array(), 0, replyTo.length());
            if (reply == null) {
                engine.reject(delivery, ErrorConditions.NOT_FOUND, "no reply link for " + replyTo);
                return;
            }
            message.messageId(messageId);
            response.clear();
            messages.wrap(response).startProperties().to(replyTo).subject("200").correlationId(messageId)
                    .endProperties();
            for (int i = 0; i < message.body().dataSectionCount(); i++) {
                messages.data(message.buffer(), message.body().dataOffset(i), message.body().dataLength(i));
            }
            messages.end();
            if (reply.send(response.array(), 0, response.length(), false) == null) {
                engine.release(delivery);
                return;
            }
        }
        if (delivery.remotelySettled()) {
            return;
        }
        if ("REJECT".equals(subject)) {
            engine.reject(delivery, REJECT_CONDITION, REJECT_DESCRIPTION);
        } else if ("RELEASE".equals(subject)) {
            engine.release(delivery);
        } else if ("MODIFY".equals(subject)) {
            engine.modified(delivery, true, true);
        } else {
            engine.accept(delivery);
        }
    }
}
