package io.amqpservlet.connector.engine;

import java.util.Arrays;

/**
 * An engine's deliveries, reused (docs/design.md §2: deliveries are pooled). Every delivery made is kept, numbered;
 * the free ones are a stack of those numbers, so taking and returning one writes no object reference: under G1 each
 * reference write into a long-lived object costs a barrier with a memory fence, and an unsettled message takes
 * and returns a delivery on both sides of the link.
 */
final class DeliveryPool {
    // Nothing until the first delivery (docs/design.md §2: an idle connection costs little); doubled as needed.
    private static final Delivery[] NO_DELIVERIES = {};
    private static final int[] NO_INDEXES = {};
    private Delivery[] all = NO_DELIVERIES;
    private int made;
    private int[] free = NO_INDEXES;
    private int freeCount;

    /** A free delivery, or a new one when none is free. */
    Delivery take() {
        if (freeCount > 0) {
            return all[free[--freeCount]];
        }
        if (made == all.length) {
            all = Arrays.copyOf(all, Math.max(4, made * 2));
            free = Arrays.copyOf(free, Math.max(4, made * 2)); // room for every delivery made to be free at once
        }
        Delivery d = new Delivery();
        d.poolIndex = made;
        all[made++] = d;
        return d;
    }

    /** Returns a delivery taken from this pool; the caller makes sure it is returned once. */
    void put(Delivery d) {
        free[freeCount++] = d.poolIndex;
    }

    /** Whether every delivery made is free again: none is in flight or held by a link or a map. */
    boolean allFree() {
        return freeCount == made;
    }

    /** Forgets every delivery (all free, see {@link #allFree()}): an idle connection holds none. */
    void clear() {
        all = NO_DELIVERIES;
        free = NO_INDEXES;
        made = 0;
        freeCount = 0;
    }

    /** How many deliveries are free. */
    int freeCount() {
        return freeCount;
    }
}
