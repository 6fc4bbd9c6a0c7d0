package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Open;

import java.util.ArrayList;
import java.util.List;

/**
 * An acceptor handler for conformance tests: records every callback as text, grants {@link #autoCredit} on
 * receiving links, settles messages as accepted unless {@link #hold} is set (then keeps them in {@link #held}),
 * and refuses sessions or links when told to.
 */
class AcceptorRecorder implements EngineHandler {
    final List<String> events = new ArrayList<>();
    final List<Link> links = new ArrayList<>();
    final List<Delivery> held = new ArrayList<>();
    final List<Integer> messageIds = new ArrayList<>();
    final List<String> subjects = new ArrayList<>();
    /** The session ends and link detaches of {@link #events} that this side started ({@code endedHere}). */
    final List<String> endedHere = new ArrayList<>();
    int autoCredit = 100;
    boolean hold;
    ErrorCondition refuseSessions;
    ErrorCondition refuseLinks;
    ErrorCondition closedWith;
    boolean closed;
    int messages;
    int aborted;
    int updates;

    @Override
    public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        events.add("open " + remoteOpen.containerId());
        return null;
    }

    @Override
    public void onAuthenticated(Engine engine, String identity) {
        events.add("authenticated " + identity);
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        closed = true;
        closedWith = error == null ? null : new ErrorCondition().set(error);
        events.add("closed" + (error == null ? "" : " " + error.condition()));
    }

    @Override
    public ErrorCondition onSessionBegin(Session session) {
        events.add("begin " + session.remoteChannel());
        return refuseSessions;
    }

    @Override
    public void onSessionEnd(Session session, ErrorCondition error) {
        events.add("end " + session.remoteChannel() + (error == null ? "" : " " + error.condition()));
        if (session.endedHere()) {
            endedHere.add(events.get(events.size() - 1));
        }
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        events.add("attach " + link.name());
        links.add(link);
        if (refuseLinks != null) {
            return refuseLinks;
        }
        if (!link.isSender() && autoCredit > 0) {
            link.autoCredit(autoCredit);
        }
        return null;
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        events.add("detach " + link.name() + (error == null ? "" : " " + error.condition()));
        if (link.endedHere()) {
            endedHere.add(events.get(events.size() - 1));
        }
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        messages++;
        messageIds.add(delivery.deliveryId());
        subjects.add(message.subjectAsString());
        events.add("message " + link.name() + " " + Integer.toUnsignedString(delivery.deliveryId()));
        if (delivery.remotelySettled()) {
            return;
        }
        if (hold) {
            held.add(delivery);
        } else {
            link.session().engine().accept(delivery);
        }
    }

    @Override
    public void onMessageAborted(Link link, Delivery delivery) {
        aborted++;
        events.add("aborted " + link.name() + " " + Integer.toUnsignedString(delivery.deliveryId()));
    }

    @Override
    public void onMessageTooLarge(Link link, Delivery delivery, long maxMessageSizeBytes) {
        events.add("too large " + link.name() + " " + Integer.toUnsignedString(delivery.deliveryId()) + " "
                + maxMessageSizeBytes);
        EngineHandler.super.onMessageTooLarge(link, delivery, maxMessageSizeBytes);
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        updates++;
        events.add("updated " + Integer.toUnsignedString(delivery.deliveryId()) + " "
                + delivery.remoteState().typeName() + (delivery.remotelySettled() ? " settled" : ""));
    }

    @Override
    public void onDrained(Link link) {
        events.add("drained " + link.name());
    }

    Link link(String name) {
        for (Link l : links) {
            if (l.name().toString().equals(name)) {
                return l;
            }
        }
        throw new AssertionError("no link " + name + " in " + links);
    }
}
