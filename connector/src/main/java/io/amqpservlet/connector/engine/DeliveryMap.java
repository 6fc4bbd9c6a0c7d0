package io.amqpservlet.connector.engine;

import java.util.Arrays;

/**
 * Unsettled deliveries of one session and direction, keyed by delivery-id, for applying dispositions (AMQP 1.0
 * §2.7.6, a range of ids). Open addressing on the int key with backward-shift deletion: no boxing, no per-entry
 * objects, no tombstones. Not thread-safe.
 *
 * <p>Delivery-ids are handed out sequentially per session (§2.6.12), so the keys in the map are usually a window
 * of consecutive ids. The slot is the id times an odd constant, modulo the capacity: a bijection on the low bits,
 * so any {@code capacity} consecutive ids land in distinct slots, scattered rather than in one run. While no entry
 * sits away from its home slot ({@link #displaced} is 0) a removal needs no backward shift at all, which makes
 * settling in order O(1) instead of a scan to the end of a cluster.
 */
final class DeliveryMap {
    // No slots until the first delivery (docs/design.md §2: an idle session costs little); then two, doubled as
    // deliveries are put.
    private static final int[] NO_KEYS = {};
    private static final Delivery[] NO_VALUES = {};
    private int[] keys = NO_KEYS;
    private Delivery[] values = NO_VALUES;
    private int size;
    /** Entries not in their home slot; removals shift entries back only while there are any. */
    private int displaced;

    int size() {
        return size;
    }

    private static int slot(int id, int mask) {
        return (id * 0x9E3779B9) & mask;
    }

    Delivery get(int id) {
        if (size == 0) {
            return null; // also: no slots yet
        }
        int mask = keys.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            Delivery d = values[i];
            if (d == null) {
                return null;
            }
            if (keys[i] == id) {
                return d;
            }
        }
    }

    /** Adds or replaces. */
    void put(int id, Delivery delivery) {
        if ((size + 1) * 4 > keys.length * 3) {
            resize(Math.max(2, keys.length * 2));
        }
        int mask = keys.length - 1;
        int i = slot(id, mask);
        for (; values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == id) {
                values[i] = delivery;
                return;
            }
        }
        keys[i] = id;
        values[i] = delivery;
        size++;
        if (i != slot(id, mask)) {
            displaced++;
        }
    }

    Delivery remove(int id) {
        if (size == 0) {
            return null;
        }
        int mask = keys.length - 1;
        for (int i = slot(id, mask); values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == id) {
                Delivery old = values[i];
                deleteAt(i);
                return old;
            }
        }
        return null;
    }

    /** The delivery in slot {@code index} of the backing table, or null; for iterating every entry. */
    Delivery at(int index) {
        return values[index];
    }

    int capacity() {
        return values.length;
    }

    /** Gives the slots back when the map is empty (an idle session), so it starts small again. */
    void trim() {
        if (size == 0) {
            keys = NO_KEYS;
            values = NO_VALUES;
            displaced = 0;
        }
    }

    void clear() {
        Arrays.fill(values, null);
        size = 0;
        displaced = 0;
    }

    private void deleteAt(int slot) {
        int mask = keys.length - 1;
        int hole = slot;
        values[hole] = null;
        size--;
        if (slot(keys[hole], mask) != hole) {
            displaced--;
        }
        if (displaced == 0) {
            return; // every entry is in its home slot: none can have probed past this one
        }
        for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j], mask);
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                values[j] = null;
                if (home == hole) {
                    displaced--; // moved back into its home slot
                }
                hole = j;
            }
        }
    }

    private void resize(int capacity) {
        int[] oldKeys = keys;
        Delivery[] oldValues = values;
        keys = new int[capacity];
        values = new Delivery[capacity];
        int mask = capacity - 1;
        displaced = 0;
        for (int j = 0; j < oldValues.length; j++) {
            if (oldValues[j] != null) {
                int i = slot(oldKeys[j], mask);
                if (values[i] != null) {
                    displaced++;
                }
                while (values[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }
}
