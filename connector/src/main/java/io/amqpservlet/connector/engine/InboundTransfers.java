package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;

/**
 * Messages a session receives (AMQP 1.0 §2.6.12-§2.6.14, §2.7.5): the session window and link credit checked
 * per frame, limits on size and deliveries in flight, messages handed over whole (viewed in place when they fit in
 * one frame) or frame by frame for streaming links, aborted deliveries dropped.
 */
final class InboundTransfers {
    /** AMQP 1.0 §2.8.7: a delivery-tag may be up to 32 octets. */
    static final int MAX_DELIVERY_TAG_BYTES = 32;

    private final Session session;
    private final Engine engine;
    private final SessionWindow window;

    InboundTransfers(Session session) {
        this.session = session;
        this.engine = session.engine();
        this.window = session.window();
    }

    void onTransfer(Transfer t, byte[] bytes, int payloadOffset, int payloadLength) {
        if (session.endSent()) {
            window.onTransferReceived();
            return;
        }
        if (!window.onTransferReceived()) {
            session.sessionError(ErrorConditions.SESSION_WINDOW_VIOLATION, "transfer beyond the incoming window of "
                    + engine.config.sessionIncomingWindowFrames() + " frames");
            return;
        }
        onCountedTransfer(t, bytes, payloadOffset, payloadLength);
        // Every counted frame, also one dropped for a detached link, used window: reopen it however the frame
        // ended, or a peer whose window ran out on dropped frames could never send on the session's other links.
        if (!session.endSent() && window.needsIncomingFlow()) {
            window.replenishIncoming();
            session.writeSessionFlow();
        }
    }

    private void onCountedTransfer(Transfer t, byte[] bytes, int payloadOffset, int payloadLength) {
        Link link = session.linkByRemoteHandle(t.handle());
        if (link == null || link.isSender()) {
            unusableLink(t, link);
            return;
        }
        if (link.state().detachedHere()) {
            return; // we detached: the peer has not seen it yet
        }
        if (link.receiving().incoming() == null && !t.more() && !t.aborted()) {
            onWholeMessage(link, t, bytes, payloadOffset, payloadLength);
            return;
        }
        onPartOfMessage(link, t, bytes, payloadOffset, payloadLength);
    }

    /**
     * The common case, a message in one frame, kept apart from the rest so that the JIT inlines it: the same steps
     * as {@link #onPartOfMessage} takes for such a frame. Streaming links get such messages whole too: one frame
     * is already in memory, and a view over it costs nothing.
     */
    private void onWholeMessage(Link link, Transfer t, byte[] bytes, int payloadOffset, int payloadLength) {
        ReceiverState receiving = link.receiving();
        Delivery d = startDelivery(link, t, true);
        if (d == null) {
            return;
        }
        d.addBytes(payloadLength);
        if (payloadLength > engine.config.maxMessageSizeBytes() && !keepDiscarding(receiving)) {
            receiving.incoming(d); // as for a message of many frames: the link's end (or its last frame) recycles it
            if (tooLarge(link, d)) {
                onPartOfMessage(link, d, t, bytes, payloadOffset, payloadLength, true);
            }
        } else if (receiving.discarding()) {
            onPartOfMessage(link, d, t, bytes, payloadOffset, payloadLength, true);
        } else {
            deliverWhole(link, d, bytes, payloadOffset, payloadLength);
        }
    }

    private void unusableLink(Transfer t, Link link) {
        if (link == null) {
            session.sessionError(ErrorConditions.SESSION_UNATTACHED_HANDLE, "transfer for handle "
                    + Integer.toUnsignedString(t.handle()) + ", which is not attached");
        } else {
            session.sessionError(ErrorConditions.SESSION_ERRANT_LINK, "transfer on a link where the peer receives");
        }
    }

    /**
     * Whether a message past the size limit goes on being discarded as it was: when messages too large are rejected,
     * one already being dropped (it came beyond credit or the in-flight limit, to be released; or it was settled
     * before its end) is left to that, so that it is settled once, as it would have been.
     */
    private boolean keepDiscarding(ReceiverState receiving) {
        return engine.config.rejectTooLargeMessages() && receiving.discarding();
    }

    /**
     * {@code d} passed the size limit: the link is detached, or ({@link EngineConfig#rejectTooLargeMessages()}) the
     * message alone is rejected and dropped; then true, and the frame goes on as one of a message being discarded.
     */
    private boolean tooLarge(Link link, Delivery d) {
        String why = "message exceeds " + engine.config.maxMessageSizeBytes() + " bytes";
        if (!engine.config.rejectTooLargeMessages()) {
            session.links.detach(link, ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED, why);
            return false;
        }
        // What the application has of it (the head of a streamed message) ends as an aborted message's does.
        engine.handler.onMessageTooLarge(link, d, engine.config.maxMessageSizeBytes());
        DeliveryState rejected = engine.scratchOutcome().rejected();
        rejected.error().condition(ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED).description(why);
        session.settle(d, rejected); // before its last frame: the rest is dropped, then it is recycled
        return true;
    }

    /** A frame of a multi-frame, streamed or aborted message, or one being discarded. */
    private void onPartOfMessage(Link link, Transfer t, byte[] bytes, int payloadOffset, int payloadLength) {
        ReceiverState receiving = link.receiving();
        Delivery d = receiving.incoming();
        if (d == null) {
            d = startDelivery(link, t, false);
            if (d == null) {
                return;
            }
        } else if (t.hasDeliveryId() && t.deliveryId() != d.deliveryId()) {
            session.links.detach(link, ErrorConditions.INVALID_FIELD, "delivery-id changed within a multi-frame transfer");
            return;
        }
        if (t.aborted()) {
            // AMQP 1.0 §2.6.14: an aborted delivery is settled and its partial payload discarded.
            receiving.incoming(null);
            forgetIncoming(d);
            if (!receiving.discarding()) {
                engine.handler.onMessageAborted(link, d);
            }
            engine.recycle(d);
            return;
        }
        d.addBytes(payloadLength);
        if (d.sizeBytes() > engine.config.maxMessageSizeBytes() && !keepDiscarding(receiving) && !tooLarge(link, d)) {
            return;
        }
        onPartOfMessage(link, d, t, bytes, payloadOffset, payloadLength, !t.more());
    }

    private void onPartOfMessage(Link link, Delivery d, Transfer t, byte[] bytes, int payloadOffset,
                                 int payloadLength, boolean last) {
        ReceiverState receiving = link.receiving();
        if (receiving.discarding()) {
            if (last) {
                // Refused for overload: released, so the peer may send it again later. Not when the application
                // settled it before this frame (Session.settle): its disposition has gone out already.
                receiving.incoming(null);
                boolean settledByApplication = d.locallySettled();
                if (!d.remotelySettled() && !settledByApplication) {
                    session.writeDisposition(Role.RECEIVER, d.deliveryId(), engine.scratchOutcome().released());
                }
                engine.recycle(d);
                if (settledByApplication) {
                    replenishAutoCredit(link); // as for a message the application saw whole (afterDelivered)
                }
            }
        } else if (receiving.streaming()) {
            if (last) {
                d.complete(true);
                receiving.incoming(null);
            }
            int generation = d.generation();
            engine.handler.onMessageChunk(link, d, bytes, payloadOffset, payloadLength, last);
            if (last) {
                afterDelivered(link, d, generation);
            }
        } else if (!last) {
            receiving.assemble(bytes, payloadOffset, payloadLength);
        } else if (receiving.assembled() == 0) {
            deliverWhole(link, d, bytes, payloadOffset, payloadLength);
        } else {
            byte[] whole = receiving.assemble(bytes, payloadOffset, payloadLength);
            deliverWhole(link, d, whole, 0, receiving.assembled());
        }
    }

    /** Starts a delivery for the first transfer of a message; {@code whole} when that frame is all of it. */
    private Delivery startDelivery(Link link, Transfer t, boolean whole) {
        ReceiverState receiving = link.receiving();
        if (!t.hasDeliveryId()) {
            session.links.detach(link, ErrorConditions.INVALID_FIELD, "first transfer of a delivery has no delivery-id");
            return null;
        }
        if (t.deliveryTag().length() > MAX_DELIVERY_TAG_BYTES) {
            // AMQP 1.0 §2.8.7: a delivery-tag is at most 32 octets; each unsettled delivery keeps its tag.
            session.links.detach(link, ErrorConditions.INVALID_FIELD, "delivery-tag of "
                    + t.deliveryTag().length() + " bytes exceeds 32");
            return null;
        }
        if (session.incoming.get(t.deliveryId()) != null) {
            // AMQP 1.0 §2.6.12: a delivery-id names one delivery of the session until it is settled. Taking it
            // again would hide the first delivery from the peer's dispositions and from our own settlement.
            session.links.detach(link, ErrorConditions.INVALID_FIELD, "delivery-id "
                    + Integer.toUnsignedString(t.deliveryId()) + " is already in use by an unsettled delivery");
            return null;
        }
        boolean beyondCredit = false;
        if (!link.credit().onReceived()) {
            if (!engine.config.releaseBeyondCredit()) {
                session.links.detach(link, ErrorConditions.LINK_TRANSFER_LIMIT_EXCEEDED, "transfer without link credit");
                return null;
            }
            link.credit().onReceivedBeyondCredit();
            engine.receivedBeyondCredit++;
            beyondCredit = true;
        }
        boolean settled = t.hasSettled() && t.settled();
        Delivery d;
        if (settled && whole) {
            // Settled and complete: forgotten once the application has seen it, so no pooled delivery is needed.
            d = engine.settledReceive();
            d.init(link, t.deliveryId());
        } else {
            d = engine.takeDelivery(link, t.deliveryId());
        }
        MutableBytes tag = t.deliveryTag();
        d.tag().set(tag);
        d.messageFormat(t.hasMessageFormat() ? t.messageFormat() : 0);
        d.remotelySettled(settled);
        if (!whole) {
            // A message in one frame is handed over before the next frame is read: it need not be remembered as
            // the link's incoming message (a reference store, with its GC barrier, saved per message).
            receiving.incoming(d);
        }
        if (!d.remotelySettled()) {
            if (beyondCredit || engine.incomingUnsettled >= engine.config.maxDeliveriesInFlight()) {
                receiving.discarding(true); // over the in-flight limit: release it once it is complete
            } else {
                session.incoming.put(d.deliveryId(), d);
                engine.incomingUnsettled++;
            }
        }
        return d;
    }

    private void deliverWhole(Link link, Delivery d, byte[] bytes, int offset, int length) {
        d.complete(true);
        ReceiverState receiving = link.receiving();
        if (receiving.incoming() != null) {
            receiving.incoming(null); // a message of one frame never was the link's incoming one
        }
        try {
            engine.view().wrap(bytes, offset, length);
        } catch (DecodeException e) {
            // A message whose sections cannot be read can produce no response: reject it (docs/design.md §3).
            if (d.remotelySettled()) {
                engine.recycle(d);
            } else {
                DeliveryState s = engine.scratchOutcome().rejected();
                s.error().condition(ErrorConditions.DECODE_ERROR).description(e.getMessage());
                session.settle(d, s);
            }
            return;
        }
        int generation = d.generation();
        engine.handler.onMessage(link, d, engine.view());
        afterDelivered(link, d, generation);
    }

    /** After the application saw a complete message: recycle a pre-settled delivery, top up credit. */
    private void afterDelivered(Link link, Delivery d, int generation) {
        if (d.link() == link && d.generation() == generation && d.remotelySettled()) {
            engine.recycle(d);
        }
        replenishAutoCredit(link);
    }

    /**
     * Tops auto-credit up to its window once half is used. Under the cap on deliveries in flight the room comes back
     * one settlement at a time; granting each would cost a flow per message and let the peer send one message per
     * flow, so the credit waits until a quarter of the window (of the cap, when smaller) can be given at once.
     */
    void replenishAutoCredit(Link link) {
        int windowSize = link.autoCreditWindow();
        long credit = link.credit().credit();
        if (windowSize > 0 && link.isOpen() && credit <= windowSize / 2) {
            int cap = engine.config.maxDeliveriesInFlight();
            long grant = Math.min(windowSize, Math.max(0, cap - engine.incomingUnsettled));
            if (grant - credit >= Math.max(1, Math.min(windowSize, cap) / 4)) {
                engine.grantCredit(link, windowSize, false);
            }
        }
    }

    private void forgetIncoming(Delivery d) {
        if (session.incoming.remove(d.deliveryId()) == d) {
            engine.incomingUnsettled--;
        }
    }

}
