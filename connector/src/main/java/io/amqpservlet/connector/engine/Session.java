package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.util.Arrays;

/**
 * One session (AMQP 1.0 §2.5) of an {@link Engine}: a pair of channels, the transfer windows, the links by handle
 * in both numberings, and the unsettled deliveries by delivery-id in each direction. All methods must be called on
 * the engine's thread.
 */
public final class Session {
    private final Engine engine;
    private final int localChannel;
    private int remoteChannel = -1;
    private final SessionWindow window;
    private final int localHandleMax;
    private int remoteHandleMax = -1;
    // Two handles to start (a request link and a reply link, docs/design.md §2); grown as handles are used.
    private Link[] byLocalHandle = new Link[2];
    private Link[] byRemoteHandle = new Link[2];
    private int linkCount;
    private int nextDeliveryId;
    final DeliveryMap outgoing = new DeliveryMap();
    final DeliveryMap incoming = new DeliveryMap();
    private boolean endSent;
    private boolean endReceived;
    private boolean refused;
    private boolean endReported;
    /** Our end went out before the peer's: the error the application is told of is the one we sent. */
    private boolean endedHere;
    /** The error this session is ending with, while its end tells the application (see {@link #abandon}). */
    private ErrorCondition endingWith;
    private Object attachment;
    final LinkLifecycle links;
    private final OutboundTransfers outbound;
    private final InboundTransfers inbound;

    Session(Engine engine, int localChannel, int incomingWindow, int localHandleMax) {
        this.engine = engine;
        this.localChannel = localChannel;
        this.localHandleMax = localHandleMax;
        this.window = new SessionWindow(incomingWindow, 0, Integer.MAX_VALUE);
        this.links = new LinkLifecycle(this);
        this.outbound = new OutboundTransfers(this);
        this.inbound = new InboundTransfers(this);
    }

    /**
     * The engine (connection) of this session.
     *
     * @return the engine that began this session; the same for the session's whole life
     */
    public Engine engine() {
        return engine;
    }

    /**
     * The channel we send this session's frames on.
     *
     * @return our channel number, from 0 up to the peer's channel-max
     */
    public int localChannel() {
        return localChannel;
    }

    /**
     * The channel the peer sends this session's frames on, or -1 before its begin.
     *
     * @return the peer's channel number, or -1 until its begin arrived
     */
    public int remoteChannel() {
        return remoteChannel;
    }

    void remoteChannel(int channel) {
        this.remoteChannel = channel;
    }

    /** The session's transfer windows (AMQP 1.0 §2.5.6), changed only by the engine. */
    SessionWindow window() {
        return window;
    }

    /**
     * Whether both sides have begun and neither has ended.
     *
     * @return true between both begins and the first end
     */
    public boolean isOpen() {
        return remoteChannel >= 0 && !endSent && !endReceived && !refused;
    }

    /**
     * Whether this side ended the session: its end (asked for by the application, or sent by the engine for a
     * session error or a limit) went out before the peer's. Then the error {@link EngineHandler#onSessionEnd} reports
     * is the one this side sent; false when the peer ended it, or it went with its connection.
     *
     * @return true once this side ended the session first
     */
    public boolean endedHere() {
        return endedHere;
    }

    boolean endSent() {
        return endSent;
    }

    void endSent(boolean value) {
        this.endSent = value;
    }

    boolean endReceived() {
        return endReceived;
    }

    void endReceived(boolean value) {
        this.endReceived = value;
    }

    void refused(boolean value) {
        this.refused = value;
    }

    /**
     * The highest handle we accept from the peer (advertised in our begin).
     *
     * @return our handle-max, the largest handle the peer may give a link on this session
     */
    public int localHandleMax() {
        return localHandleMax;
    }

    /** The highest handle the peer accepts from us (from its begin), unsigned. */
    int remoteHandleMax() {
        return remoteHandleMax;
    }

    void remoteHandleMax(int handleMax) {
        this.remoteHandleMax = handleMax;
    }

    /**
     * Whether a link can be attached on this session now ({@link #attachSender}, {@link #attachReceiver}): it has
     * not ended, and a handle is free within the peer's handle-max (its begin, AMQP 1.0 §2.7.2).
     *
     * @return true when an attach would not throw
     */
    public boolean canAttach() {
        return !(!isOpen() && remoteChannel() < 0 && endSent()) && freeLocalHandle() >= 0;
    }

    /**
     * The number of links attached on this session.
     *
     * @return the number of links of this session not yet removed, both directions counted
     */
    public int linkCount() {
        return linkCount;
    }

    /**
     * An object of the application's, kept with the session.
     *
     * @return what the application last set with {@link #attachment(Object)}, or null
     */
    public Object attachment() {
        return attachment;
    }

    /**
     * Keeps an object of the application's with the session; the engine never reads it.
     *
     * @param value the object to keep, replacing any earlier one; null to clear it
     */
    public void attachment(Object value) {
        this.attachment = value;
    }

    /** The next delivery-id for a message we send on this session (§2.6.12: session-scoped, sequential). */
    int takeDeliveryId() {
        return nextDeliveryId++;
    }

    // ------------------------------------------------------------------------------------------ handles

    /** The lowest free local handle within the peer's handle-max, or -1 when none is free. */
    int freeLocalHandle() {
        long max = remoteHandleMax & 0xFFFFFFFFL;
        for (int h = 0; h < byLocalHandle.length; h++) {
            if (byLocalHandle[h] == null) {
                return h <= max ? h : -1;
            }
        }
        int h = byLocalHandle.length;
        return h <= max ? h : -1;
    }

    Link createLink(int localHandle, boolean sender) {
        if (localHandle >= byLocalHandle.length) {
            byLocalHandle = Arrays.copyOf(byLocalHandle, Math.max(localHandle + 1, byLocalHandle.length * 2));
        }
        Link link = new Link(this, localHandle, sender);
        byLocalHandle[localHandle] = link;
        linkCount++;
        engine.linkCount++;
        return link;
    }

    /**
     * Counts {@code bytes} more of the peer's attach kept on {@code link} against the connection's
     * {@link EngineConfig#maxLinkBytesPerConnection()}; given back when the link is removed.
     */
    void keepPeerBytes(Link link, int bytes) {
        link.peerBytes += bytes;
        engine.linkBytes += bytes;
    }

    Link linkByLocalHandle(int handle) {
        return handle >= 0 && handle < byLocalHandle.length ? byLocalHandle[handle] : null;
    }

    /** The link the peer knows by {@code handle} (unsigned), or null. */
    Link linkByRemoteHandle(int handle) {
        return handle >= 0 && handle < byRemoteHandle.length ? byRemoteHandle[handle] : null;
    }

    void mapRemoteHandle(int handle, Link link) {
        if (handle >= byRemoteHandle.length) {
            byRemoteHandle = Arrays.copyOf(byRemoteHandle, Math.max(handle + 1, byRemoteHandle.length * 2));
        }
        byRemoteHandle[handle] = link;
        link.onAttachReceived(handle);
    }

    void unmapRemoteHandle(Link link) {
        int h = link.remoteHandle();
        if (h >= 0 && h < byRemoteHandle.length && byRemoteHandle[h] == link) {
            byRemoteHandle[h] = null;
        }
    }

    void removeLink(Link link) {
        unmapRemoteHandle(link);
        int h = link.localHandle();
        if (h < byLocalHandle.length && byLocalHandle[h] == link) {
            byLocalHandle[h] = null;
            linkCount--;
            engine.linkCount--;
            engine.linkBytes -= link.peerBytes;
            link.peerBytes = 0;
        }
    }

    /** A link of this session with the given name and direction awaiting the peer's attach, or null. */
    Link pendingLinkNamed(byte[] name, int offset, int length, boolean sender) {
        for (Link l : byLocalHandle) {
            if (l != null && l.isSender() == sender && l.remoteHandle() < 0
                    && Arrays.equals(l.name().array(), 0, l.name().length(), name, offset, offset + length)) {
                return l;
            }
        }
        return null;
    }

    /** An idle session's links and maps let go of what they kept for reuse (see {@link Engine#trimIdle()}). */
    void trimIdle() {
        outgoing.trim();
        incoming.trim();
        for (Link l : byLocalHandle) {
            if (l != null) {
                l.trimIdle();
            }
        }
    }

    /** Every link slot by local handle, for iteration (entries may be null). */
    Link[] links() {
        return byLocalHandle;
    }

    // ------------------------------------------------------------------------------------------ begin and end

    void sendBegin() {
        Begin b = engine.out().begin().clear();
        if (remoteChannel >= 0) {
            b.remoteChannel(remoteChannel);
        }
        b.nextOutgoingId(window.nextOutgoingId());
        b.incomingWindow((int) window.incomingWindow());
        b.outgoingWindow((int) window.outgoingWindow());
        b.handleMax(localHandleMax);
        engine.writeFrame(localChannel, b);
    }

    void onRemoteBegin(Begin b) {
        window.onRemoteBegin(b.nextOutgoingId(), b.incomingWindow() & 0xFFFFFFFFL, b.outgoingWindow() & 0xFFFFFFFFL);
        remoteHandleMax = b.handleMax();
    }

    /** Ends the session cleanly from this side. */
    public void end() {
        end((ErrorCondition) null);
    }

    /**
     * Ends the session from this side with an error condition.
     *
     * @param condition the AMQP error condition to send (e.g. {@code amqp:internal-error}), or null to end without
     *     error
     * @param description human-readable detail sent with {@code condition}, or null for none
     */
    public void end(Symbol condition, String description) {
        ErrorCondition error = engine.scratch().sessionError;
        error.clear().condition(condition).description(description);
        end(error);
    }

    void end(ErrorCondition error) {
        if (endSent) {
            return;
        }
        End e = engine.out().end().clear();
        if (error != null && !error.isNull()) {
            e.error().set(error);
        }
        engine.writeFrame(localChannel, e);
        endSent = true;
        endedHere = true;
        // AMQP 1.0 §2.7.7: ending a session detaches its links; tell the application now.
        endingWith = error;
        links.abandonAll(error);
        reportEnd(error);
        endingWith = null;
        if (endReceived) {
            engine.removeSession(this);
        }
    }

    private void onRemoteEnd(End e) {
        endReceived = true;
        ErrorCondition error = e.error().isNull() ? null : e.error();
        endingWith = error;
        links.abandonAll(error);
        if (!endSent) {
            engine.writeFrame(localChannel, engine.out().end().clear());
            endSent = true;
        }
        reportEnd(error);
        endingWith = null;
        engine.removeSession(this);
    }

    /**
     * The connection ended: forget links and deliveries without sending anything. While this session is ending (an
     * application closing the connection from a link's detach that the end brought), its end keeps its own error.
     */
    void abandon(ErrorCondition error) {
        ErrorCondition ending = endingWith;
        links.abandonAll(ending != null ? ending : error);
        reportEnd(ending != null ? ending : error);
    }

    private void reportEnd(ErrorCondition error) {
        if (!endReported) {
            endReported = true;
            engine.handler.onSessionEnd(this, error);
        }
    }

    // ------------------------------------------------------------------------------------------ frames

    void onFrame(Performative p, byte[] bytes, int payloadOffset, int payloadLength) {
        Engine e = engine;
        if (p == e.in().transfer()) {
            onTransfer(e.in().transfer(), bytes, payloadOffset, payloadLength);
            return;
        }
        if (p == e.in().end()) {
            onRemoteEnd(e.in().end());
            return;
        }
        if (endSent) {
            return; // AMQP 1.0 §2.5.5: after our end, discard everything until the peer's end
        }
        if (p == e.in().flow()) {
            onFlow(e.in().flow());
        } else if (p == e.in().disposition()) {
            onDisposition(e.in().disposition());
        } else if (p == e.in().attach()) {
            links.onAttach(e.in().attach());
        } else if (p == e.in().detach()) {
            links.onDetach(e.in().detach());
        } else {
            engine.lifecycle.connectionError(ErrorConditions.ILLEGAL_STATE, p.typeName() + " on a session channel");
        }
    }

    /** Ends the session because the peer broke a session rule. */
    void sessionError(Symbol condition, String description) {
        end(condition, description);
    }

    // ------------------------------------------------------------------------------------------ flow

    private void onFlow(Flow f) {
        window.onRemoteFlow(f.hasNextIncomingId(), f.nextIncomingId(), f.incomingWindow() & 0xFFFFFFFFL,
                f.nextOutgoingId(), f.outgoingWindow() & 0xFFFFFFFFL);
        if (f.hasHandle()) {
            Link link = linkByRemoteHandle(f.handle());
            if (link == null) {
                sessionError(ErrorConditions.SESSION_UNATTACHED_HANDLE, "flow for handle "
                        + Integer.toUnsignedString(f.handle()) + ", which is not attached");
                return;
            }
            if (!link.state().detachedHere()) {
                // §2.6.6: a flow that crossed our detach is not answered; the handle is no longer ours to send on.
                onLinkFlow(link, f);
            }
        } else if (f.echo()) {
            writeSessionFlow();
        }
        // The session window may have opened for every sending link that waited for it.
        outbound.pumpWindowBlocked();
    }

    private void onLinkFlow(Link link, Flow f) {
        if (link.isSender()) {
            long credit = f.hasLinkCredit() ? f.linkCredit() & 0xFFFFFFFFL : link.credit().credit();
            link.credit().onFlowAtSender(f.hasDeliveryCount(), f.deliveryCount(), credit, f.drain());
            pump(link);
        } else {
            boolean draining = link.credit().drain();
            if (f.hasDeliveryCount()) {
                link.credit().onFlowAtReceiver(f.deliveryCount());
            }
            if (draining && link.credit().credit() == 0) {
                engine.handler.onDrained(link);
            }
        }
        if (f.echo() && link.isOpen()) {
            writeLinkFlow(link, false);
        }
    }

    void writeLinkFlow(Link link, boolean echo) {
        writeLinkFlow(link, echo, link.credit().drain());
    }

    /**
     * Writes a link flow with an explicit drain flag: a sender answering a drain reports drain=true with the
     * advanced delivery-count and no credit (AMQP 1.0 §2.6.7), which is how receivers (protonj2, proton-j) know
     * the drain finished.
     */
    void writeLinkFlow(Link link, boolean echo, boolean drain) {
        if (!window.held() && !endSent) {
            // The flow tells the peer our incoming window anyway: reopened now, it spares a session flow later.
            window.replenishIncoming();
        }
        Flow f = flowFields();
        f.handle(link.localHandle());
        f.deliveryCount(link.credit().deliveryCount());
        f.linkCredit((int) link.credit().credit());
        f.drain(drain);
        f.echo(echo);
        engine.writeFrame(localChannel, f);
    }

    /**
     * Holds the incoming window shut (it is not reopened once used) until {@link #releaseIncoming()}: a receiver
     * whose application cannot take more of a streamed message stops the peer this way (see
     * {@link SessionWindow#hold()}). Holds are counted; the other links of the session wait too, as AMQP's
     * window is the session's.
     */
    public void holdIncoming() {
        window.hold();
    }

    /**
     * Releases one {@link #holdIncoming()}; when none is left, reopens the window to its maximum and tells the
     * peer at once, even when some window is left: a peer that stopped on the held window may wait for a flow
     * before it sends again (Qpid JMS does), and the flow costs one small frame per resume.
     */
    public void releaseIncoming() {
        window.release();
        if (!endSent && !window.held()) {
            window.replenishIncoming();
            writeSessionFlow();
        }
    }

    void writeSessionFlow() {
        engine.writeFrame(localChannel, flowFields());
    }

    private Flow flowFields() {
        Flow f = engine.out().flow().clear();
        if (window.remoteBegun()) {
            f.nextIncomingId(window.nextIncomingId());
        }
        f.incomingWindow((int) window.incomingWindow());
        f.nextOutgoingId(window.nextOutgoingId());
        f.outgoingWindow((int) window.outgoingWindow());
        return f;
    }

    // ------------------------------------------------------------------------------------------ transfers

    Delivery send(Link link, byte[] message, int offset, int length, boolean settled) {
        return outbound.send(link, message, offset, length, settled);
    }

    void pump(Link link) {
        outbound.pump(link);
    }

    OutboundTransfers outbound() {
        return outbound;
    }

    private void onTransfer(Transfer t, byte[] bytes, int payloadOffset, int payloadLength) {
        inbound.onTransfer(t, bytes, payloadOffset, payloadLength);
    }

    void replenishAutoCredit(Link link) {
        inbound.replenishAutoCredit(link);
    }

    // ------------------------------------------------------------------------------------------ settlement

    void settle(Delivery d, DeliveryState outcome) {
        Link link = d.link();
        int id = d.deliveryId();
        d.locallySettled(true);
        if (outcome != null) {
            copyState(outcome, d.localState());
        }
        if (!link.isSender()) {
            if (incoming.remove(id) == d) {
                engine.incomingUnsettled--;
                if (!d.remotelySettled() && isOpen() && link.isOpen()) {
                    writeDisposition(Role.RECEIVER, id, d.localState());
                }
            }
            ReceiverState receiving = link.receiving();
            if (receiving.incoming() == d) {
                receiving.discarding(true); // settled before its last frame: drop the rest
                return;
            }
            engine.recycle(d);
            replenishAutoCredit(link);
        } else {
            if (outgoing.remove(id) == d && !d.remotelySettled() && isOpen() && link.isOpen()) {
                writeDisposition(Role.SENDER, id, d.localState());
            }
            if (d.complete()) {
                engine.recycle(d);
            }
        }
    }

    void writeDisposition(Role role, int deliveryId, DeliveryState state) {
        engine.writeSettlement(localChannel, role, deliveryId, state);
    }

    private void onDisposition(Disposition disp) {
        boolean peerIsReceiver = disp.role() == Role.RECEIVER;
        DeliveryMap map = peerIsReceiver ? outgoing : incoming;
        int first = disp.first();
        int last = disp.hasLast() ? disp.last() : first;
        if (SerialNumber.lessThan(last, first)) {
            sessionError(ErrorConditions.INVALID_FIELD, "disposition range ends before it starts");
            return;
        }
        if (peerIsReceiver) {
            // The peer can only settle what it was sent before it wrote this frame: a delivery the application sends
            // from onDeliveryUpdated below takes the next id, which may lie inside a range wider than what was sent.
            int lastSent = nextDeliveryId - 1;
            if (SerialNumber.lessThan(lastSent, first)) {
                return;
            }
            if (SerialNumber.lessThan(lastSent, last)) {
                last = lastSent;
            }
        }
        long span = SerialNumber.distance(first, last);
        if (span <= 2L * map.size() + 8) {
            for (long i = 0; i <= span; i++) {
                Delivery d = map.get(first + (int) i);
                if (d != null) {
                    applyDisposition(map, d, disp, peerIsReceiver);
                }
            }
        } else {
            // A wide range over few deliveries: visit the deliveries, not the ids (a peer may send 0..2^32-1).
            for (int slot = 0; slot < map.capacity(); slot++) {
                Delivery d = map.at(slot);
                if (d != null && SerialNumber.lessThanOrEqual(first, d.deliveryId())
                        && SerialNumber.lessThanOrEqual(d.deliveryId(), last)) {
                    if (applyDisposition(map, d, disp, peerIsReceiver)) {
                        slot--; // an entry may have shifted into this slot
                    }
                }
            }
        }
    }

    /**
     * Copies a delivery state; accepted, the commonest outcome by far, has no fields (AMQP 1.0 §3.4.2), so it is
     * set by its kind alone instead of a field-by-field copy for every delivery of a disposition range.
     */
    private static void copyState(DeliveryState from, DeliveryState to) {
        if (from.kind() == DeliveryState.Kind.ACCEPTED) {
            if (to.kind() != DeliveryState.Kind.ACCEPTED) {
                to.accepted();
            }
        } else {
            to.set(from);
        }
    }

    /** Applies the peer's disposition to one delivery; returns true when it left the map. */
    private boolean applyDisposition(DeliveryMap map, Delivery d, Disposition disp, boolean peerIsReceiver) {
        if (!disp.state().isNull()) {
            copyState(disp.state(), d.remoteState());
        }
        if (disp.settled()) {
            d.remotelySettled(true);
        }
        Link link = d.link();
        if (peerIsReceiver && d.remotelySettled()) {
            map.remove(d.deliveryId());
            engine.handler.onDeliveryUpdated(link, d);
            if (d.link() == link && d.complete()) {
                engine.recycle(d);
            }
            return true;
        }
        engine.handler.onDeliveryUpdated(link, d);
        return false;
    }

    // ------------------------------------------------------------------------------------------ links

    /**
     * Attaches a sending link to {@code targetAddress} (null: the anonymous relay, routed by each message's to).
     *
     * @param name the link name, unique among this connection's sending links (AMQP 1.0 §2.6.1); also the source
     *     address
     * @param targetAddress the address of the node to send to, or null for the anonymous relay
     * @return the new link, its attach queued; open once the peer's attach arrives
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachSender(String name, String targetAddress) {
        return links.attachLocal(name, true, null, targetAddress, false);
    }

    /**
     * As {@link #attachSender(String, String)}; with {@code settled}, asks for snd-settle-mode {@code settled}: every
     * message of the link is sent pre-settled (at-most-once, AMQP 1.0 §2.8.2), and the peer sends no disposition.
     *
     * @param name the link name, unique among this connection's sending links; also the source address
     * @param targetAddress the address of the node to send to, or null for the anonymous relay
     * @param settled send every message pre-settled
     * @return the new link, its attach queued
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachSender(String name, String targetAddress, boolean settled) {
        return links.attachLocal(name, true, null, targetAddress, false, null, false, settled);
    }

    /**
     * Attaches a sending link whose target is a temporary queue the peer creates (a dynamic target with the
     * {@code temporary-queue} capability, as Qpid JMS {@code createTemporaryQueue} does). The queue's address is in
     * {@code link.target().address()} once the peer's attach arrives; a receiving link attached to that address
     * consumes from it, and the queue is deleted when this link ends.
     *
     * @param name the link name, unique among this connection's sending links (AMQP 1.0 §2.6.1)
     * @return the new link, its attach queued; the queue's address is known once the peer's attach arrives
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachTemporaryQueue(String name) {
        return links.attachLocal(name, true, null, null, false,
                io.amqpservlet.protocol.types.messaging.Capabilities.TEMPORARY_QUEUE, false, false);
    }

    /**
     * Attaches a receiving link from {@code sourceAddress}.
     *
     * @param name the link name, unique among this connection's receiving links (AMQP 1.0 §2.6.1); also the target
     *     address
     * @param sourceAddress the address of the node to receive from
     * @return the new link, its attach queued; open once the peer's attach arrives
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachReceiver(String name, String sourceAddress) {
        return links.attachLocal(name, false, sourceAddress, null, false);
    }

    /**
     * As {@link #attachReceiver(String, String)}; with {@code settled}, asks the peer for snd-settle-mode
     * {@code settled}: it sends every message pre-settled (at-most-once, AMQP 1.0 §2.8.2), and this side settles none.
     * The peer's attach says what it does ({@link Link#sndSettleMode()}).
     *
     * @param name the link name, unique among this connection's receiving links; also the target address
     * @param sourceAddress the address of the node to receive from
     * @param settled ask the peer to send pre-settled
     * @return the new link, its attach queued
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachReceiver(String name, String sourceAddress, boolean settled) {
        return links.attachLocal(name, false, sourceAddress, null, false, null, false, settled);
    }

    /**
     * Attaches a receiving link from a dynamic source: the peer creates a node and names it in its attach.
     *
     * @param name the link name, unique among this connection's receiving links (AMQP 1.0 §2.6.1)
     * @return the new link, its attach queued; the node's address is in {@code link.source().address()} once the peer's
     *     attach arrives
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachDynamicReceiver(String name) {
        return links.attachLocal(name, false, null, null, true);
    }

    /**
     * As {@link #attachDynamicReceiver(String)}, asking with {@code settled} for snd-settle-mode {@code settled}: the
     * peer sends every message pre-settled (at-most-once, AMQP 1.0 §2.8.2), and this side settles none. What a
     * request/response client wants for its responses: a response lost with its connection could not be sent again
     * anyway, and each unsettled one would cost a disposition frame from us and a wake-up at the server.
     *
     * @param name the link name, unique among this connection's receiving links (AMQP 1.0 §2.6.1)
     * @param settled ask the peer to send pre-settled
     * @return the new link, its attach queued; the node's address is in {@code link.source().address()} once the
     *     peer's attach arrives
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachDynamicReceiver(String name, boolean settled) {
        return links.attachLocal(name, false, null, null, true, null, false, settled);
    }

    /**
     * Attaches the sending half of a link pair (OASIS "AMQP Request-Response Messaging with Link Pairing"): a sending
     * link to {@code address} with the link property {@code paired = true}. With the receiving half of the same name
     * ({@link #attachPairedReceiver}), attached before or after it on this session, it forms a pair once the peer has
     * echoed the property for both: {@link Link#paired()} then returns the other half, and a request sent with
     * {@code reply-to = "$me"} is answered on the receiving half. A peer that does not pair answers without the
     * property, and the links stay plain ones ({@link Link#paired()} null).
     *
     * @param name the pair's name, the same for both halves; also this half's source address (the client terminus,
     *     which the receiving half's target repeats)
     * @param address the node both halves attach to: this half's target
     * @param settled whether to ask for snd-settle-mode settled (every message sent pre-settled, AMQP 1.0 §2.8.2), as
     *     RabbitMQ's management clients do
     * @return the new link, its attach queued
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachPairedSender(String name, String address, boolean settled) {
        return links.attachLocal(name, true, null, address, false, null, true, settled);
    }

    /**
     * Attaches the receiving half of a link pair: a receiving link from {@code address} with the link property
     * {@code paired = true}; see {@link #attachPairedSender}.
     *
     * @param name the pair's name, the same for both halves; also this half's target address (the client terminus)
     * @param address the node both halves attach to: this half's source
     * @param settled whether to ask the peer for snd-settle-mode settled (it then sends every message pre-settled)
     * @return the new link, its attach queued
     * @throws IllegalStateException when the session has ended or no handle is free within the peer's handle-max
     */
    public Link attachPairedReceiver(String name, String address, boolean settled) {
        return links.attachLocal(name, false, address, null, false, null, true, settled);
    }

    /**
     * Ends a link from this side.
     *
     * @param link a link of this session; nothing happens when our detach for it was already sent
     * @param condition the AMQP error condition to send, or null to detach without error
     * @param description human-readable detail sent with {@code condition}, or null for none
     */
    public void detach(Link link, Symbol condition, String description) {
        links.detach(link, condition, description);
    }

    @Override
    public String toString() {
        return "Session[channel=" + localChannel + "/" + remoteChannel + ", links=" + linkCount + "]";
    }
}
