package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Source;
import io.amqpservlet.protocol.types.messaging.Target;
import io.amqpservlet.protocol.types.messaging.Terminus;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.ReceiverSettleMode;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.SenderSettleMode;

/**
 * How links of one session come and go (AMQP 1.0 §2.6.3, §2.6.6, §2.7.3, §2.7.8): attach in both directions,
 * refusal (attach with a null terminus, then detach with the error), detach, and the reply nodes of docs/design.md §4
 * that link attachment creates and deletes (dynamic sources, temporary queues, named receiver sources).
 */
final class LinkLifecycle {
    private final Session session;
    private final Engine engine;

    LinkLifecycle(Session session) {
        this.session = session;
        this.engine = session.engine();
    }

    // ------------------------------------------------------------------------------------------ remote attach

    void onAttach(Attach a) {
        int handle = a.handle();
        if (Integer.compareUnsigned(handle, session.localHandleMax()) > 0) {
            // The peer ignored the handle-max of our begin: links per session are a limit we enforce (§2.7.2).
            session.sessionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "handle " + Integer.toUnsignedString(handle)
                    + " exceeds handle-max " + session.localHandleMax());
            return;
        }
        if (session.linkByRemoteHandle(handle) != null) {
            session.sessionError(ErrorConditions.SESSION_HANDLE_IN_USE, "handle " + handle + " is already attached");
            return;
        }
        boolean weSend = a.role() == Role.RECEIVER;
        MutableBytes name = a.name();
        Link link = session.pendingLinkNamed(name.array(), 0, name.length(), weSend);
        if (link != null) {
            onAttachAnswered(link, handle, a);
            return;
        }
        if (engine.linkCount >= engine.config.maxLinksPerConnection()) {
            // Links per connection, not only per session (docs/connector.md, "Limits"): each keeps its attach's name
            // and termini. Ending the session frees its links, so what one connection holds stays bounded.
            session.sessionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "the connection has "
                    + engine.config.maxLinksPerConnection() + " links, its limit");
            return;
        }
        int kept = name.length() + encodedLength(a.source()) + encodedLength(a.target());
        if (engine.linkBytes + kept > engine.config.maxLinkBytesPerConnection()) {
            // What the links keep, bounded as their number is: one link may keep a whole frame's worth.
            session.sessionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "the connection's links would keep "
                    + (engine.linkBytes + kept) + " bytes of names and termini, more than its limit of "
                    + engine.config.maxLinkBytesPerConnection());
            return;
        }
        String tooMuch = engine.handler.onLinkAttaching(session);
        if (tooMuch != null) {
            session.sessionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, tooMuch);
            return;
        }
        int local = session.freeLocalHandle();
        if (local < 0) {
            session.sessionError(ErrorConditions.RESOURCE_LIMIT_EXCEEDED, "no handle free for another link");
            return;
        }
        link = session.createLink(local, weSend);
        link.name().set(name);
        session.keepPeerBytes(link, kept);
        session.mapRemoteHandle(handle, link);
        copy(a.source(), link.source());
        copy(a.target(), link.target());
        link.sndSettleMode(a.sndSettleMode());
        link.remoteMaxMessageSize(a.hasMaxMessageSize() ? a.maxMessageSize() : 0);
        ErrorCondition refusal = null;
        if (!weSend) {
            if (!a.hasInitialDeliveryCount()) {
                refusal = error(ErrorConditions.INVALID_FIELD, "a sending link's attach needs initial-delivery-count");
            } else {
                link.credit().reset(a.initialDeliveryCount());
            }
        }
        if (refusal == null) {
            refusal = checkPairing(link, a);
        }
        if (refusal == null) {
            refusal = resolveNode(link);
        }
        if (refusal == null) {
            refusal = engine.handler.onLinkAttach(link, a);
        }
        if (refusal != null) {
            refuse(link, refusal);
            return;
        }
        if (link.pairing() == LinkPairing.Stage.REQUESTED) {
            LinkPairing.join(link); // our attach echoes paired=true, so both sides have agreed
        }
        sendAttach(link, false);
        link.onAttachSent();
        if (!weSend) {
            if (link.credit().creditKnown()) {
                session.writeLinkFlow(link, false);
            } else if (link.autoCreditWindow() > 0) {
                engine.grantCredit(link, link.autoCreditWindow(), false);
            }
        }
    }

    /**
     * A peer's attach that asks for link pairing ({@link LinkPairing}): marks the link so our attach echoes it, and
     * returns the error when it cannot join its pair; null otherwise (and for an attach that does not ask).
     */
    private ErrorCondition checkPairing(Link link, Attach a) {
        LinkPairing.Request asked = LinkPairing.asked(a, engine.scratch().copyReader);
        if (asked == LinkPairing.Request.INVALID) {
            return error(ErrorConditions.INVALID_FIELD, "the link property paired must be a boolean");
        }
        if (asked == LinkPairing.Request.NOT_ASKED) {
            return null;
        }
        link.pairing(LinkPairing.Stage.REQUESTED);
        return LinkPairing.check(link, engine.scratch().linkError);
    }

    /** The peer's attach answers one of ours. */
    private void onAttachAnswered(Link link, int handle, Attach a) {
        session.mapRemoteHandle(handle, link);
        if (link.state().detachedHere()) {
            // The application detached the link before this answer came (AMQP 1.0 §2.6.6): the application was told
            // of its end, and nothing but the peer's detach, which finds the link by this handle, is left to come.
            return;
        }
        // The responder's terminus is authoritative for what it owns: the address of a dynamic node it created.
        // What it sends is kept, and counts as a peer's attach does (the limit is checked on the peer's own attaches:
        // an answer to ours adds one terminus to a link we chose to make).
        session.keepPeerBytes(link, encodedLength(link.isSender() ? a.target() : a.source()));
        if (link.isSender()) {
            copy(a.target(), link.target());
            link.remoteMaxMessageSize(a.hasMaxMessageSize() ? a.maxMessageSize() : 0);
        } else {
            copy(a.source(), link.source());
            if (a.hasInitialDeliveryCount()) {
                // Not reset(): credit granted between our attach and this answer must survive, and is sent below.
                link.credit().onSenderAttach(a.initialDeliveryCount());
            }
        }
        boolean refused = link.isSender() ? a.target().isNull() : a.source().isNull();
        if (!refused && link.pairing() == LinkPairing.Stage.REQUESTED
                && LinkPairing.asked(a, engine.scratch().copyReader) == LinkPairing.Request.ASKED) {
            LinkPairing.join(link); // a peer that does not echo paired=true does not pair: the links stay plain
        }
        engine.handler.onLinkAttach(link, a);
        if (refused) {
            return; // §2.6.3: a detach with the reason follows
        }
        if (!link.isSender()) {
            if (link.credit().creditKnown()) {
                session.writeLinkFlow(link, false);
            } else if (link.autoCreditWindow() > 0) {
                engine.grantCredit(link, link.autoCreditWindow(), false);
            }
        } else {
            session.pump(link);
        }
    }

    /** Creates the node a newly attached link names or asks for; returns an error to refuse the link. */
    private ErrorCondition resolveNode(Link link) {
        if (link.isSender()) {
            Source source = link.source();
            if (source.isNull()) {
                return error(ErrorConditions.INVALID_FIELD, "a receiving link needs a source");
            }
            if (source.dynamic()) {
                byte[] address = engine.newNodeAddress();
                source.address().set(address, 0, address.length);
                addNode(new ReplyNode(address, link, link), link);
                return null;
            }
            MutableBytes address = source.address();
            if (address.isNull() || link.pairing() != LinkPairing.Stage.PLAIN) {
                // A pair's sending half names the node it pairs with, not a reply node: replies reach it as "$me".
                return null;
            }
            ReplyNode node = engine.nodes.get(address.array(), 0, address.length());
            if (node != null) {
                if (node.consumer != null) {
                    return error(ErrorConditions.RESOURCE_LOCKED, "address " + address + " already has a receiver");
                }
                node.consumer = link;
                link.node = node;
                return null;
            }
            // A named source the client receives from: replies addressed to it come back on this link.
            addNode(new ReplyNode(address.toByteArray(), link, link), link);
            return null;
        }
        Target target = link.target();
        if (!target.isNull() && target.dynamic()) {
            // A temporary queue (Qpid JMS createTemporaryQueue): a node a later receiving link consumes from.
            byte[] address = engine.newNodeAddress();
            target.address().set(address, 0, address.length);
            addNode(new ReplyNode(address, link, null), link);
        }
        return null;
    }

    private void addNode(ReplyNode node, Link link) {
        engine.nodes.addKeeping(node.address, node); // the node's address never changes
        link.node = node;
    }

    private void refuse(Link link, ErrorCondition error) {
        boolean endsHere = !link.state().detachedHere(); // false when the application detached it from onLinkAttach
        sendAttach(link, true);
        writeDetach(link, error);
        link.onRefused();
        cleanup(link, error, endsHere);
    }

    private void sendAttach(Link link, boolean refused) {
        Attach a = engine.out().attach().clear();
        a.name().set(link.name());
        a.handle(link.localHandle());
        a.role(link.isSender() ? Role.SENDER : Role.RECEIVER);
        a.sndSettleMode(link.sndSettleMode());
        // §2.8.3: this engine settles first; a peer asking for second is answered with first.
        a.rcvSettleMode(ReceiverSettleMode.FIRST);
        copy(link.source(), a.source());
        copy(link.target(), a.target());
        if (link.pairing() != LinkPairing.Stage.PLAIN && !refused) {
            LinkPairing.writeProperties(a);
        }
        if (refused) {
            // §2.6.3: refuse by attaching with a null terminus on our side.
            if (link.isSender()) {
                a.source().clear();
            } else {
                a.target().clear();
            }
        }
        if (link.isSender()) {
            a.initialDeliveryCount(link.credit().deliveryCount());
        } else {
            a.maxMessageSize(engine.config.maxMessageSizeBytes());
        }
        engine.writeFrame(session.localChannel(), a);
    }

    // ------------------------------------------------------------------------------------------ local attach

    Link attachLocal(String name, boolean sender, String sourceAddress, String targetAddress, boolean dynamic) {
        return attachLocal(name, sender, sourceAddress, targetAddress, dynamic, null, false, false);
    }

    /**
     * As above; {@code targetCapability}, when set, marks a sender's target as dynamic with that capability;
     * {@code paired} asks for link pairing ({@link LinkPairing}); {@code settled} asks for snd-settle-mode settled.
     */
    Link attachLocal(String name, boolean sender, String sourceAddress, String targetAddress, boolean dynamic,
                     Symbol targetCapability, boolean paired, boolean settled) {
        if (!session.isOpen() && session.remoteChannel() < 0 && session.endSent()) {
            throw new IllegalStateException("session has ended");
        }
        int local = session.freeLocalHandle();
        if (local < 0) {
            throw new IllegalStateException("no handle free within the peer's handle-max");
        }
        Link link = session.createLink(local, sender);
        link.name().set(name);
        link.source().clear().present(true);
        link.target().clear().present(true);
        if (sender) {
            link.source().address(name);
            link.target().address(targetAddress);
            if (targetCapability != null) {
                // AMQP 1.0 §3.5.4: a dynamic target asks the peer to create a node and name it in its attach.
                link.target().dynamic(true);
                link.target().capabilities().clear().add(targetCapability);
            }
        } else {
            link.source().address(sourceAddress);
            link.source().dynamic(dynamic);
            link.target().address(name);
        }
        link.sndSettleMode(settled ? SenderSettleMode.SETTLED : SenderSettleMode.MIXED);
        if (paired) {
            link.pairing(LinkPairing.Stage.REQUESTED);
        }
        sendAttach(link, false);
        link.onAttachSent();
        return link;
    }

    // ------------------------------------------------------------------------------------------ detach

    void onDetach(Detach d) {
        Link link = session.linkByRemoteHandle(d.handle());
        if (link == null) {
            session.sessionError(ErrorConditions.SESSION_UNATTACHED_HANDLE, "detach for handle "
                    + Integer.toUnsignedString(d.handle()) + ", which is not attached");
            return;
        }
        ErrorCondition error = d.error().isNull() ? null : d.error();
        boolean endsHere = !link.state().detachedHere();
        if (endsHere) {
            // AMQP 1.0 §2.6.4, §2.6.6: the peer's detach is answered with ours, echoing whether it closes the link.
            Detach reply = engine.out().detach().clear().handle(link.localHandle()).closed(d.closed());
            engine.writeFrame(session.localChannel(), reply);
        }
        link.onClosed();
        cleanup(link, error, endsHere);
        session.removeLink(link);
    }

    /** Ends a link from this side, with an error or none; the peer's detach completes it. */
    void detach(Link link, Symbol condition, String description) {
        if (link.state().detachedHere()) {
            return;
        }
        ErrorCondition error = condition == null ? null : error(condition, description);
        writeDetach(link, error);
        link.onDetachSent();
        ReceiverState receiving = link.receiving();
        if (receiving != null) {
            receiving.discarding(true);
        }
        cleanup(link, error, true);
        if (link.remoteHandle() < 0 && !session.isOpen() && link.state() == LinkState.DETACH_SENT) {
            // No peer to answer: a session whose begin was not answered, or that ended, forgets the link now.
            link.onClosed();
            session.removeLink(link);
        }
    }

    private void writeDetach(Link link, ErrorCondition error) {
        Detach d = engine.out().detach().clear().handle(link.localHandle()).closed(true);
        if (error != null && !error.isNull()) {
            d.error().set(error);
        }
        engine.writeFrame(session.localChannel(), d);
    }

    /** The session or connection ended: every link goes, without frames. */
    void abandonAll(ErrorCondition error) {
        Link[] all = session.links();
        for (Link l : all) {
            if (l != null) {
                boolean endsHere = !l.state().detachedHere();
                l.onClosed();
                cleanup(l, error, endsHere);
                session.removeLink(l);
            }
        }
    }

    /**
     * Releases what a link holds: its queued and unsettled deliveries, its reply node (deleting the node when the
     * link created it, and ending a temporary queue's consumer with it), and tells the application when
     * {@code endsHere}: the first time this side is done with the link, so the application is told once.
     */
    private void cleanup(Link link, ErrorCondition error, boolean endsHere) {
        LinkPairing.leave(link);
        SenderState sending = link.sending();
        if (sending != null) {
            sending.clear();
        } else {
            ReceiverState receiving = link.receiving();
            Delivery in = receiving.incoming();
            if (in != null) {
                receiving.incoming(null);
                dropDelivery(session.incoming, in, true);
            }
        }
        dropDeliveriesOf(link, session.incoming, true);
        dropDeliveriesOf(link, session.outgoing, false);
        ReplyNode node = link.node;
        if (node != null) {
            link.node = null;
            if (node.creator == link) {
                engine.nodes.remove(node.address, 0, node.address.length);
                Link consumer = node.consumer;
                node.consumer = null;
                if (consumer != null && consumer != link) {
                    consumer.node = null;
                    consumer.session().detach(consumer, ErrorConditions.RESOURCE_DELETED,
                            "the temporary node was deleted with the link that created it");
                }
            } else if (node.consumer == link) {
                node.consumer = null;
            }
        }
        if (endsHere) {
            engine.handler.onLinkDetach(link, error);
        }
    }

    private void dropDeliveriesOf(Link link, DeliveryMap map, boolean incoming) {
        for (int slot = 0; slot < map.capacity(); slot++) {
            Delivery d = map.at(slot);
            if (d != null && d.link() == link) {
                dropDelivery(map, d, incoming);
                slot--; // backward-shift deletion may have moved another entry here
            }
        }
    }

    private void dropDelivery(DeliveryMap map, Delivery d, boolean incoming) {
        if (map.remove(d.deliveryId()) == d && incoming) {
            engine.incomingUnsettled--;
        }
        engine.recycle(d);
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** Copies a terminus through its encoding (attach time only; allocation-free once warmed up). */
    /** {@return the bytes {@code terminus} encodes to (a null terminus: none), as {@link #copy} keeps it} */
    private int encodedLength(Terminus terminus) {
        if (terminus.isNull()) {
            return 0;
        }
        AmqpWriter copyWriter = engine.scratch().copyWriter;
        copyWriter.clear();
        terminus.encode(copyWriter);
        return copyWriter.length();
    }

    private void copy(Terminus from, Terminus to) {
        if (from.isNull()) {
            to.clear();
            return;
        }
        AmqpWriter copyWriter = engine.scratch().copyWriter;
        AmqpReader copyReader = engine.scratch().copyReader;
        copyWriter.clear();
        from.encode(copyWriter);
        copyReader.wrap(copyWriter.array(), 0, copyWriter.length());
        copyReader.next();
        to.decode(copyReader);
    }

    private ErrorCondition error(Symbol condition, String description) {
        return engine.scratch().linkError.clear().condition(condition).description(description);
    }
}
