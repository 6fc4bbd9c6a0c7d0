package io.amqpservlet.connector.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Node addresses known on one connection (dynamic reply nodes, temporary queues, named receiver sources), mapped
 * to whatever the engine keeps for them. Lookups take the address as the raw bytes of a {@code to} or
 * {@code reply-to} field and allocate nothing; only adding an address (at link attach) copies its bytes.
 *
 * <p>Open addressing with linear probing over a power-of-two table, backward-shift deletion (no tombstones, so a
 * table whose links come and go does not degrade). The number of entries is bounded by the caller's link limits.
 * Not thread-safe: owned by the connection's engine.
 *
 * @param <V> the node kept for an address
 */
final class AddressTable<V> {
    // No slots until the first address (docs/design.md §2: a connection before open holds no table); then two,
    // doubled as addresses are added.
    private static final byte[][] NO_KEYS = {};
    private static final Object[] NO_VALUES = {};
    private static final int[] NO_HASHES = {};
    private byte[][] keys = NO_KEYS;
    private Object[] values = NO_VALUES;
    private int[] hashes = NO_HASHES;
    private int size;

    /** The number of addresses. */
    public int size() {
        return size;
    }

    private static int hash(byte[] b, int offset, int length) {
        int h = 0x811C9DC5; // FNV-1a: fast and well spread for short ASCII addresses
        for (int i = offset, end = offset + length; i < end; i++) {
            h = (h ^ b[i]) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }

    /** The node for the address {@code b[offset, offset + length)}, or null. */
    @SuppressWarnings("unchecked")
    public V get(byte[] b, int offset, int length) {
        if (size == 0) {
            return null; // also: no slots yet
        }
        int h = hash(b, offset, length);
        int mask = keys.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            byte[] k = keys[i];
            if (k == null) {
                return null;
            }
            if (hashes[i] == h && Arrays.equals(k, 0, k.length, b, offset, offset + length)) {
                return (V) values[i];
            }
        }
    }

    /** The node for {@code address}, or null (encodes the String: not for hot paths). */
    public V get(String address) {
        byte[] b = address.getBytes(StandardCharsets.UTF_8);
        return get(b, 0, b.length);
    }

    /**
     * Adds an address.
     *
     * @return false if the address is already present (the table is unchanged)
     */
    public boolean add(byte[] b, int offset, int length, V value) {
        return add(b, offset, length, value, false);
    }

    /**
     * Adds an address whose bytes are all of {@code key}, keeping that array rather than a copy: the caller hands it
     * over and never changes it (a node that already holds its address need not hold it twice).
     *
     * @return false if the address is already present (the table is unchanged)
     */
    public boolean addKeeping(byte[] key, V value) {
        return add(key, 0, key.length, value, true);
    }

    private boolean add(byte[] b, int offset, int length, V value, boolean keep) {
        if (value == null) {
            throw new NullPointerException("value");
        }
        if ((size + 1) * 4 > keys.length * 3) {
            resize(Math.max(2, keys.length * 2));
        }
        int h = hash(b, offset, length);
        int mask = keys.length - 1;
        int i = h & mask;
        for (; keys[i] != null; i = (i + 1) & mask) {
            if (hashes[i] == h && Arrays.equals(keys[i], 0, keys[i].length, b, offset, offset + length)) {
                return false;
            }
        }
        keys[i] = keep ? b : Arrays.copyOfRange(b, offset, offset + length);
        values[i] = value;
        hashes[i] = h;
        size++;
        return true;
    }

    /** Adds an address given as a String. */
    public boolean add(String address, V value) {
        byte[] b = address.getBytes(StandardCharsets.UTF_8);
        return add(b, 0, b.length, value);
    }

    /** Removes an address; returns its node, or null if it was not present. */
    @SuppressWarnings("unchecked")
    public V remove(byte[] b, int offset, int length) {
        if (size == 0) {
            return null;
        }
        int h = hash(b, offset, length);
        int mask = keys.length - 1;
        int i = h & mask;
        for (; keys[i] != null; i = (i + 1) & mask) {
            if (hashes[i] == h && Arrays.equals(keys[i], 0, keys[i].length, b, offset, offset + length)) {
                V old = (V) values[i];
                deleteAt(i);
                return old;
            }
        }
        return null;
    }

    /** Removes every address whose node is {@code value} (identity); returns how many. */
    public int removeValue(V value) {
        int removed = 0;
        for (int i = 0; i < keys.length; ) {
            if (keys[i] != null && values[i] == value) {
                deleteAt(i);
                removed++;
                // the slot may now hold a shifted entry: look at it again
            } else {
                i++;
            }
        }
        return removed;
    }

    private void deleteAt(int slot) {
        int mask = keys.length - 1;
        int hole = slot;
        keys[hole] = null;
        values[hole] = null;
        size--;
        // Backward-shift: move later entries of the probe run into the hole when their home slot allows it.
        for (int j = (hole + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
            int home = hashes[j] & mask;
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hashes[hole] = hashes[j];
                keys[j] = null;
                values[j] = null;
                hole = j;
            }
        }
    }

    private void resize(int capacity) {
        byte[][] oldKeys = keys;
        Object[] oldValues = values;
        int[] oldHashes = hashes;
        keys = new byte[capacity][];
        values = new Object[capacity];
        hashes = new int[capacity];
        int mask = capacity - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != null) {
                int i = oldHashes[j] & mask;
                while (keys[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
                hashes[i] = oldHashes[j];
            }
        }
    }
}
