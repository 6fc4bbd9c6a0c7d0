package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.types.transport.Transfer;

/**
 * Messages a session sends (AMQP 1.0 §2.6.12, §2.7.5): straight from the caller's bytes when credit and the
 * session window allow the whole message now, otherwise from the link's queue as flow arrives; each message
 * split into transfer frames that fit the peer's max-frame-size.
 */
final class OutboundTransfers {
    private final Session session;
    private final Engine engine;
    private final SessionWindow window;
    /**
     * Whether a link stopped sending because the peer's session window was closed: only then can a session flow
     * that reopens it let another link send, so only then does a flow visit every link of the session.
     */
    private boolean blockedOnWindow;
    /** Set while the application itself moves an open message: it needs no onSendable for its own call. */
    private boolean applicationPump;

    OutboundTransfers(Session session) {
        this.session = session;
        this.engine = session.engine();
        this.window = session.window();
    }

    Delivery send(Link link, byte[] message, int offset, int length, boolean settled) {
        SenderState sending = link.sending();
        if (settled && !sending.hasQueued() && link.credit().canSend() && window.canSend() && !engine.outputFull()
                && engine.tracer == null
                && FirstTransferFrame.fits(length, SenderState.TAG_BYTES, engine.remoteMaxFrameSize())) {
            // A pre-settled message that goes now, in one frame, is settled and forgotten the moment it is written:
            // it needs no pooled delivery, only a record of what was sent to hand back (AMQP 1.0 §2.6.12).
            Delivery d = engine.settledSend();
            d.initSettledSend();
            writeWhole(link, d, message, offset, length, true);
            return d;
        }
        Delivery d = engine.takeDelivery(link, 0);
        d.locallySettled(settled);
        int payloadPerFrame = engine.remoteMaxFrameSize() - FrameHeader.SIZE - Engine.TRANSFER_OVERHEAD_BYTES;
        // No division for the common message that fits in one frame.
        long framesNeeded = length <= payloadPerFrame ? 1 : (length + (long) payloadPerFrame - 1) / payloadPerFrame;
        if (!sending.hasQueued() && link.credit().canSend() && window.remoteIncomingWindow() >= framesNeeded
                && !engine.outputFull()) {
            // The common case: everything can go now, straight from the caller's bytes, without a copy.
            if (engine.tracer == null
                    && FirstTransferFrame.fits(length, SenderState.TAG_BYTES, engine.remoteMaxFrameSize())) {
                writeWhole(link, d, message, offset, length, settled);
                finishSent(d, settled);
                return d;
            }
            int sent = 0;
            boolean first = true;
            do {
                sent = writeTransfer(link, d, message, offset, length, sent, first, settled, false);
                first = false;
            } while (sent < length);
            finishSent(d, settled);
            return d;
        }
        if (!engine.canQueue(length)
                || !sending.enqueue(message, offset, length, settled, d, engine.config.maxBufferedMessagesPerLink())) {
            engine.recycle(d);
            return null;
        }
        pump(link);
        return d;
    }

    /** Queues an open message (see {@link Link#beginMessage}) and sends what can go. */
    Delivery beginMessage(Link link, byte[] message, int offset, int length, boolean settled) {
        SenderState sending = link.sending();
        Delivery d = engine.takeDelivery(link, 0);
        d.locallySettled(settled);
        if (!engine.canQueue(length)
                || !sending.enqueue(message, offset, length, settled, d, engine.config.maxBufferedMessagesPerLink())) {
            engine.recycle(d);
            return null;
        }
        sending.openMessage = d;
        sending.openMessageBytes = length;
        pumpForApplication(link);
        return d;
    }

    /** Sends what an application call (begin, append, end, abort of an open message) made sendable. */
    void pumpForApplication(Link link) {
        applicationPump = true;
        try {
            pump(link);
        } finally {
            applicationPump = false;
        }
    }

    /** Sends queued messages of {@code link} as far as credit and the session window allow. */
    void pump(Link link) {
        SenderState sending = link.sending();
        boolean openProgressed = false;
        while (sending.hasQueued() && link.isOpen() && session.isOpen()) {
            boolean first = !sending.headStarted();
            Delivery d = sending.headDelivery();
            if (d == sending.abortedMessage) {
                if (!first && !window.canSend()) {
                    blockedOnWindow = true;
                    break;
                }
                abortHead(link, d, first);
                continue;
            }
            boolean open = d == sending.openMessage;
            if (open && !first && sending.sentOfHead() == sending.headLength()) {
                break; // everything given so far is out: wait for more bytes (or the end)
            }
            if (first && !link.credit().canSend()) {
                break;
            }
            if (!window.canSend()) {
                blockedOnWindow = true;
                break;
            }
            if (engine.outputFull()) {
                // The transport has not written what waits (the peer may have stopped reading): encode no further
                // ahead of the socket, whatever credit and window allow; Engine.endFlush pumps again.
                engine.blockedOnOutput();
                break;
            }
            int sent = writeTransfer(link, d, sending.headBytes(), 0, sending.headLength(), sending.sentOfHead(),
                    first, sending.headSettled(), open);
            sending.headStarted(true);
            engine.queuedBytes -= sent - sending.sentOfHead();
            sending.sentOfHead(sent);
            openProgressed |= open;
            if (sent == sending.headLength() && !open) {
                boolean settled = sending.headSettled();
                sending.dequeue();
                finishSent(d, settled);
            }
        }
        if (openProgressed && !applicationPump && link.isOpen()) {
            engine.handler.onSendable(link); // the application may give the open message more bytes
        }
        if (!link.isOpen()) {
            return;
        }
        // AMQP 1.0 §2.6.7: once no message can use the credit left, a drain uses it up (delivery-count advances by
        // it) and is answered with a flow, drain=true, even when nothing was sent; at no credit that is at once,
        // whatever is queued. Clients wait for this answer (a receiver's drain that never ends is a hang).
        if (link.credit().drain() && link.credit().drainIfIdle(canUseCredit(link, sending))) {
            session.writeLinkFlow(link, false, true);
        }
        if (!sending.hasQueued() && link.credit().canSend()) {
            engine.handler.onSendable(link);
        }
    }

    /**
     * Whether a queued message can start on the credit left, now or as soon as the session window or the socket
     * lets it: not when there is no credit, and not when the only message queued has begun (it took its credit
     * with its first frame) or the head is an open message waiting for the application's next bytes.
     */
    private static boolean canUseCredit(Link link, SenderState sending) {
        if (!sending.hasQueued() || !link.credit().canSend()) {
            return false;
        }
        if (!sending.headStarted()) {
            return true;
        }
        boolean waitsForApplication = sending.headDelivery() == sending.openMessage
                && sending.sentOfHead() == sending.headLength();
        return sending.queued() > 1 && !waitsForApplication;
    }

    /** Pumps every sending link of the session that has messages queued. */
    void pumpAll() {
        Link[] all = session.links();
        for (Link l : all) {
            if (l != null && l.isSender() && l.sending().hasQueued()) {
                pump(l);
            }
        }
    }

    /** Pumps every link that waits for session window, after a flow that may have reopened it. */
    void pumpWindowBlocked() {
        if (!blockedOnWindow || !window.canSend()) {
            return;
        }
        blockedOnWindow = false;
        Link[] all = session.links();
        for (Link l : all) {
            if (l != null && l.isSender() && l.sending().hasQueued()) {
                pump(l); // sets blockedOnWindow again if the window closes before every link is done
            }
        }
    }

    /**
     * Drops an aborted open message at the head: unseen if none of it went out, else with a transfer that says
     * aborted (AMQP 1.0 §2.6.14), after which the delivery is settled and forgotten on both sides.
     */
    private void abortHead(Link link, Delivery d, boolean neverSent) {
        SenderState sending = link.sending();
        sending.abortedMessage = null;
        sending.dequeue();
        if (!neverSent) {
            engine.flushDispositions();
            Transfer t = engine.out().transfer().clear();
            t.handle(link.localHandle());
            t.aborted(true);
            AmqpWriter w = engine.writer();
            int frameStart = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, session.localChannel());
            t.encode(w);
            FrameWriter.end(w, frameStart);
            window.onTransferSent();
            engine.wroteFrame();
            if (engine.tracer != null) {
                engine.tracer.sent(session.localChannel(), t, 0);
            }
            if (!d.locallySettled()) {
                session.outgoing.remove(d.deliveryId());
            }
        }
        engine.recycle(d);
    }

    private void finishSent(Delivery d, boolean settled) {
        d.complete(true);
        if (settled) {
            engine.recycle(d);
        }
    }

    /**
     * Writes a whole message as one transfer frame, directly, without the generic performative encoder (kept
     * apart from {@link #writeTransfer} so that the JIT inlines this, the path of nearly every message).
     */
    private void writeWhole(Link link, Delivery d, byte[] message, int offset, int length, boolean settled) {
        engine.flushDispositions();
        int id = session.takeDeliveryId();
        d.deliveryId(id);
        byte[] tag = link.sending().nextTag();
        if (!settled) {
            // A pre-settled delivery is recycled as soon as it is written: nobody can read its tag.
            d.tag().set(tag, 0, tag.length);
            session.outgoing.put(id, d);
        }
        link.credit().onSent();
        FirstTransferFrame.write(engine.writer(), session.localChannel(), link.localHandle(), id, tag, tag.length,
                settled, message, offset, length);
        window.onTransferSent();
        engine.wroteFrame();
        d.addBytes(length);
    }

    /**
     * Writes one transfer frame of {@code message} starting at byte {@code sent}, as much as the peer's
     * max-frame-size allows, and returns the new count of bytes sent. The first frame carries the delivery-id,
     * tag and settlement (§2.7.5); continuations carry only the handle and {@code more}.
     */
    private int writeTransfer(Link link, Delivery d, byte[] message, int offset, int length, int sent, boolean first,
                              boolean settled, boolean open) {
        int maxFrame = engine.remoteMaxFrameSize();
        if (first && !open && engine.tracer == null
                && FirstTransferFrame.fits(length, SenderState.TAG_BYTES, maxFrame)) {
            writeWhole(link, d, message, offset, length, settled);
            return length;
        }
        engine.flushDispositions();
        Transfer t = engine.out().transfer().clear();
        t.handle(link.localHandle());
        if (first) {
            int id = session.takeDeliveryId();
            d.deliveryId(id);
            byte[] tag = link.sending().nextTag();
            d.tag().set(tag, 0, tag.length);
            t.deliveryId(id);
            t.deliveryTag(tag, 0, tag.length);
            t.messageFormat(0);
            if (settled) {
                t.settled(true);
            } else {
                session.outgoing.put(id, d);
            }
            link.credit().onSent();
        }
        if (open) {
            t.more(true); // an open message has more to come, whatever fits now
        }
        AmqpWriter w = engine.writer();
        int frameStart = FrameWriter.begin(w, FrameHeader.TYPE_AMQP, session.localChannel());
        int performativeStart = w.position();
        t.encode(w);
        int room = maxFrame - (w.position() - frameStart);
        int remaining = length - sent;
        if (remaining > room) {
            // Does not fit: encode again with more=true (one byte longer at most) and fill the frame.
            w.truncate(performativeStart);
            t.more(true);
            t.encode(w);
            room = maxFrame - (w.position() - frameStart);
        }
        int n = Math.min(remaining, room);
        FrameWriter.appendPayload(w, message, offset + sent, n);
        FrameWriter.end(w, frameStart);
        window.onTransferSent();
        engine.wroteFrame();
        d.addBytes(n);
        if (engine.tracer != null) {
            engine.tracer.sent(session.localChannel(), t, n);
        }
        return sent + n;
    }

}
