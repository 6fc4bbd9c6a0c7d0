package io.amqpservlet.jetty.internal.exchange;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A small pool of reusable objects that any thread may take from and give back to: a fixed array of slots claimed
 * with atomic swaps. No lock, no node allocated per operation (as a concurrent queue would), and no ABA hazard (as
 * a lock-free stack of reused objects has). It holds at most its number of slots; beyond that, given-back objects
 * are dropped and takers make new ones, so a burst costs allocation, never memory kept.
 *
 * @param <T> what is pooled
 */
final class SlotPool<T> {
    private final int size;
    /** Made by the first give-back: a connection that never served a request holds no slots (docs/design.md §2). */
    private volatile AtomicReferenceArray<T> slots;

    SlotPool(int slots) {
        this.size = slots;
    }

    /** Any thread: an object no one else holds, or null when the pool is empty. */
    T acquire() {
        AtomicReferenceArray<T> slots = this.slots;
        if (slots == null) {
            return null;
        }
        int n = slots.length();
        for (int i = 0; i < n; i++) {
            if (slots.get(i) != null) {
                T t = slots.getAndSet(i, null);
                if (t != null) {
                    return t;
                }
            }
        }
        return null;
    }

    /** Any thread: drops every pooled object (they are made again when needed). */
    void drain() {
        while (acquire() != null) {
            // dropped
        }
    }

    /** How many objects the pool holds now (a snapshot, for tests). */
    int size() {
        AtomicReferenceArray<T> slots = this.slots;
        int n = 0;
        for (int i = 0; slots != null && i < slots.length(); i++) {
            if (slots.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** Any thread: gives {@code t} back (the caller no longer uses it); dropped when every slot is taken. */
    void release(T t) {
        AtomicReferenceArray<T> slots = this.slots;
        if (slots == null) {
            synchronized (this) {
                slots = this.slots;
                if (slots == null) {
                    slots = new AtomicReferenceArray<>(size);
                    this.slots = slots;
                }
            }
        }
        int n = slots.length();
        for (int i = 0; i < n; i++) {
            if (slots.get(i) == null && slots.compareAndSet(i, null, t)) {
                return;
            }
        }
    }
}
