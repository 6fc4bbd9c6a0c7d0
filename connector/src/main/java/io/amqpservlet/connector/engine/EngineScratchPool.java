package io.amqpservlet.connector.engine;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@link EngineScratch scratch} of the engines of one {@link EngineConfig} that are idle now, for engines that
 * start working to take (docs/design.md §2): a fixed array of slots claimed with atomic swaps, so any thread may take
 * and give back without a lock and without allocating. It keeps at most its number of slots; beyond that, given-back
 * scratch is dropped and takers make new ones, so a burst of busy connections costs allocation, never memory kept
 * once they are idle again.
 */
final class EngineScratchPool {
    private final EngineConfig config;
    private final AtomicReferenceArray<EngineScratch> slots;

    EngineScratchPool(EngineConfig config, int slots) {
        this.config = config;
        this.slots = new AtomicReferenceArray<>(slots);
    }

    /** Any thread: scratch no other engine holds. */
    EngineScratch take() {
        int n = slots.length();
        for (int i = 0; i < n; i++) {
            if (slots.getPlain(i) != null) {
                EngineScratch s = slots.getAndSet(i, null);
                if (s != null) {
                    return s;
                }
            }
        }
        return new EngineScratch(config);
    }

    /** Any thread: {@code s} is no longer used by its engine; dropped when every slot is taken. */
    void giveBack(EngineScratch s) {
        s.trim();
        int n = slots.length();
        for (int i = 0; i < n; i++) {
            if (slots.getPlain(i) == null && slots.compareAndSet(i, null, s)) {
                return;
            }
        }
    }
}
