package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.Role;

/**
 * Settlements the engine has decided on but not yet written, held as one range of delivery-ids: AMQP 1.0 §2.7.6
 * lets a disposition cover first..last, so a receiver that accepts a batch of messages while it processes one input
 * buffer sends one frame instead of one per message.
 *
 * <p>The range is written before any other frame the engine writes and when the transport asks for output
 * ({@link Engine#beginFlush()}), so the frames leave in the order they were decided and no settlement waits beyond
 * the next flush; only consecutive settlements of the same channel, role and simple outcome merge.
 */
final class PendingDisposition {
    private final Engine engine;
    private boolean pending;
    private int channel;
    private Role role;
    private int first;
    private int last;
    /** The state of every delivery in the range: none, accepted or released. */
    private DeliveryState.Kind kind;
    /** The held range's outcome is in the engine's scratch, which is kept while a range is held. */

    PendingDisposition(Engine engine) {
        this.engine = engine;
    }

    boolean isPending() {
        return pending;
    }

    /**
     * Whether a settled disposition of one delivery can be held in a range at all: only outcomes without fields
     * (none, accepted, released) compare equal by their kind alone.
     */
    private static boolean batchable(DeliveryState state) {
        if (state == null) {
            return true;
        }
        DeliveryState.Kind k = state.kind();
        return k == DeliveryState.Kind.NONE || k == DeliveryState.Kind.ACCEPTED || k == DeliveryState.Kind.RELEASED;
    }

    /** Settles one delivery: extends the held range, or writes it and holds a new one, or writes one frame. */
    void settle(int channel, Role role, int deliveryId, DeliveryState state) {
        if (pending && this.channel == channel && this.role == role && deliveryId == last + 1
                && kindOf(state) == kind) {
            last++;
            return;
        }
        if (pending) {
            flush();
        }
        if (batchable(state)) {
            this.pending = true;
            this.channel = channel;
            this.role = role;
            this.first = deliveryId;
            this.last = deliveryId;
            this.kind = kindOf(state);
            return;
        }
        Disposition disp = engine.out().disposition().clear();
        disp.role(role).first(deliveryId).settled(true);
        if (state != null && !state.isNull()) {
            disp.state().set(state);
        }
        engine.writeFrame(channel, disp);
    }

    /** Writes the held range and forgets it. */
    void flush() {
        pending = false; // first: writeFrame flushes pending settlements before it writes
        Disposition disp = engine.out().disposition().clear();
        disp.role(role).first(first).settled(true);
        if (last != first) {
            disp.last(last);
        }
        if (kind == DeliveryState.Kind.ACCEPTED) {
            disp.state().set(engine.scratch().pendingOutcome.accepted());
        } else if (kind == DeliveryState.Kind.RELEASED) {
            disp.state().set(engine.scratch().pendingOutcome.released());
        }
        engine.writeFrame(channel, disp);
    }

    private static DeliveryState.Kind kindOf(DeliveryState state) {
        return state == null ? DeliveryState.Kind.NONE : state.kind();
    }
}
