package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;

import java.util.ArrayList;
import java.util.List;

/**
 * A server handler that answers every request with a response to its reply-to: subject "200", the request's
 * message-id as correlation-id, the request body echoed. Requests without reply-to are accepted. Allocation-free
 * per message once warm, so the same class serves the steady-state allocation test.
 */
class EchoResponder implements EngineHandler {
    final MutableBytes replyTo = new MutableBytes();
    final MessageId messageId = new MessageId();
    final AmqpWriter response = new AmqpWriter(1024);
    final MessageWriter messages = new MessageWriter();
    final List<String> events = new ArrayList<>();
    final List<Link> links = new ArrayList<>();
    boolean record = true;
    int autoCredit = 100;
    long requests;
    ErrorCondition refuseLinks;
    String identity;

    @Override
    public void onAuthenticated(Engine engine, String who) {
        identity = who;
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, io.amqpservlet.protocol.types.transport.Attach remoteAttach) {
        if (record) {
            events.add("attach " + (link.isSender() ? "sender " + link.source().address() : "receiver " + link.target().address()));
        }
        links.add(link);
        if (refuseLinks != null) {
            return refuseLinks;
        }
        if (!link.isSender()) {
            link.autoCredit(autoCredit);
        }
        return null;
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        if (record) {
            events.add("detach " + link.name() + (error == null ? "" : " " + error.condition()));
        }
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        requests++;
        Engine engine = link.session().engine();
        if (!message.replyTo(replyTo)) {
            engine.accept(delivery);
            return;
        }
        Link reply = engine.replyLink(replyTo.array(), 0, replyTo.length());
        if (reply == null) {
            engine.reject(delivery, ErrorConditions.NOT_FOUND, "no reply link");
            return;
        }
        message.messageId(messageId);
        response.clear();
        messages.wrap(response).startProperties().to(replyTo).subject("200").correlationId(messageId).endProperties();
        for (int i = 0; i < message.body().dataSectionCount(); i++) {
            messages.data(message.buffer(), message.body().dataOffset(i), message.body().dataLength(i));
        }
        messages.end();
        Delivery sent = reply.send(response.array(), 0, response.length(), false);
        if (sent == null) {
            engine.release(delivery);
        } else {
            engine.accept(delivery);
        }
    }
}
