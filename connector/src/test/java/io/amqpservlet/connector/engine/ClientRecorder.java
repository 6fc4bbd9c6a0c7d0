package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.util.ArrayList;
import java.util.List;

/** A client handler that records what happens, for assertions; responses are kept as subject and body text. */
class ClientRecorder implements EngineHandler {
    final List<String> events = new ArrayList<>();
    final List<String> responses = new ArrayList<>();
    final List<byte[]> bodies = new ArrayList<>();
    ErrorCondition closedWith;
    boolean closed;
    boolean settleResponses = true;

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        events.add("attached " + link.name() + (link.isSender() ? " target=" + link.target().address()
                : " source=" + link.source().address()));
        return null;
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        events.add("detached " + link.name() + (error == null ? "" : " " + error.condition() + ": " + error.description()));
    }

    @Override
    public void onSessionEnd(Session session, ErrorCondition error) {
        events.add("session ended" + (error == null ? "" : " " + error.condition() + ": " + error.description()));
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        byte[] body = new byte[(int) message.body().dataLength()];
        message.body().copyData(body, 0);
        bodies.add(body);
        responses.add(message.subjectAsString() + " " + message.propertiesFieldAsString(5) + " " + body.length);
        if (settleResponses && !delivery.remotelySettled()) {
            link.session().engine().accept(delivery);
        }
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        events.add("outcome " + delivery.remoteState().typeName() + (delivery.remotelySettled() ? " settled" : ""));
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        closed = true;
        closedWith = error == null ? null : new ErrorCondition().set(error);
        events.add("closed" + (error == null ? "" : " " + error.condition() + ": " + error.description()));
    }
}
