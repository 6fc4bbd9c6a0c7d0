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
    private boolean pending;
    private int channel;
    private Role role;
    private int first;
    private int last;
    /** The state of every delivery in the range: {@link DeliveryState#NONE}, accepted or released. */
    private int kind;
    private final DeliveryState outcome = new DeliveryState();

    boolean isPending() {
        return pending;
    }

    /**
     * Whether a settled disposition of one delivery can be held in a range at all: only outcomes without fields
     * (none, accepted, released) compare equal by their kind alone.
     */
    static boolean batchable(DeliveryState state) {
        if (state == null) {
            return true;
        }
        int k = state.kind();
        return k == DeliveryState.NONE || k == DeliveryState.ACCEPTED || k == DeliveryState.RELEASED;
    }

    /** Whether the settlement of {@code deliveryId} extends the held range. */
    boolean extendsRange(int channel, Role role, int deliveryId, DeliveryState state) {
        return pending && this.channel == channel && this.role == role && deliveryId == last + 1
                && kindOf(state) == kind;
    }

    /** Extends the range by one delivery; {@link #extendsRange} must have said yes. */
    void extend() {
        last++;
    }

    /** Starts a range with one delivery; the caller has written any range held before. */
    void start(int channel, Role role, int deliveryId, DeliveryState state) {
        this.pending = true;
        this.channel = channel;
        this.role = role;
        this.first = deliveryId;
        this.last = deliveryId;
        this.kind = kindOf(state);
    }

    int channel() {
        return channel;
    }

    /** Fills {@code disp} (cleared by the caller) with the held range and forgets it. */
    Disposition takeInto(Disposition disp) {
        pending = false;
        disp.role(role).first(first).settled(true);
        if (last != first) {
            disp.last(last);
        }
        if (kind == DeliveryState.ACCEPTED) {
            disp.state().set(outcome.accepted());
        } else if (kind == DeliveryState.RELEASED) {
            disp.state().set(outcome.released());
        }
        return disp;
    }

    private static int kindOf(DeliveryState state) {
        return state == null ? DeliveryState.NONE : state.kind();
    }
}
