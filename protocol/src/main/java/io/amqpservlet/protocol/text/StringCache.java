package io.amqpservlet.protocol.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Maps the UTF-8 bytes of common strings (methods, header names, content types) to one shared String instance,
 * so that decoding them costs no allocation. Built once by a {@link Builder}, then immutable and thread-safe.
 *
 * <p>Open addressing over a power-of-two table at most half full. The hash reads the bytes eight at a time with
 * ASCII letters folded to lowercase (bit 0x20 set), so that an exact lookup and a case-insensitive one probe the
 * same slots. The builder tries two table sizes and a few hash seeds and keeps the layout with the shortest
 * longest displacement (then the fewest displaced keys), and records it: a lookup probes at most that many slots
 * past the home slot, so most hits take one probe and no lookup takes more than a few. A lookup allocates
 * nothing.
 */
public final class StringCache {
    /** ASCII letters folded to lowercase; every other byte value maps to itself. */
    private static final byte[] LOWER = new byte[256];
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Sets bit 0x20 of every byte: folds 'A'..'Z' onto 'a'..'z' (and leaves every lowercase letter as it is). */
    private static final long FOLD = 0x2020202020202020L;
    /** Odd multipliers (from the golden ratio and splitmix64) the builder tries as hash seeds. */
    private static final long[] SEEDS = {0x9E3779B97F4A7C15L, 0xBF58476D1CE4E5B9L, 0x94D049BB133111EBL,
        0xD6E8FEB86659FD93L};
    /** The builder grows the table up to this many times the smallest size looking for a better layout. */
    private static final int MAX_SPREAD = 2;

    static {
        for (int i = 0; i < 256; i++) {
            LOWER[i] = (byte) (i >= 'A' && i <= 'Z' ? i + ('a' - 'A') : i);
        }
    }

    private final long seed;
    private final int mask;
    /** The most slots any key sits past its home slot: lookups probe no further. */
    private final int maxDisplacement;
    private final int[] hashes;
    private final byte[][] keys;
    private final String[] values;
    /** Whether the key has no uppercase ASCII letter: only those answer case-insensitive lookups. */
    private final boolean[] lowerCase;
    private final int size;
    private final int maxKeyLength;

    private StringCache(List<String> strings) {
        // Distinct keys, in insertion order.
        List<String> distinct = new ArrayList<>();
        List<byte[]> encoded = new ArrayList<>();
        Set<ByteBuffer> seen = new HashSet<>();
        int longest = 0;
        for (String value : strings) {
            byte[] key = value.getBytes(StandardCharsets.UTF_8);
            if (seen.add(ByteBuffer.wrap(key))) { // ByteBuffer compares content: one entry per byte sequence
                distinct.add(value);
                encoded.add(key);
                longest = Math.max(longest, key.length);
            }
        }
        int smallest = 16;
        while (smallest < distinct.size() * 2) {
            smallest <<= 1;
        }
        long bestSeed = SEEDS[0];
        int bestCapacity = smallest;
        int[] bestScore = null;
        for (int capacity = smallest; capacity <= smallest * MAX_SPREAD; capacity <<= 1) {
            for (long s : SEEDS) {
                int[] score = layoutScore(encoded, s, capacity);
                if (bestScore == null || score[0] < bestScore[0]
                        || (score[0] == bestScore[0] && score[1] < bestScore[1])) {
                    bestScore = score;
                    bestSeed = s;
                    bestCapacity = capacity;
                }
            }
        }
        seed = bestSeed;
        mask = bestCapacity - 1;
        hashes = new int[bestCapacity];
        keys = new byte[bestCapacity][];
        values = new String[bestCapacity];
        lowerCase = new boolean[bestCapacity];
        int displacement = 0;
        for (int k = 0; k < encoded.size(); k++) {
            byte[] key = encoded.get(k);
            String value = distinct.get(k);
            int hash = hash(seed, key, 0, key.length);
            int slot = hash & mask;
            int d = 0;
            while (keys[slot] != null) {
                slot = (slot + 1) & mask;
                d++;
            }
            displacement = Math.max(displacement, d);
            hashes[slot] = hash;
            keys[slot] = key;
            values[slot] = value;
            lowerCase[slot] = value.equals(value.toLowerCase(Locale.ROOT));
        }
        maxDisplacement = displacement;
        size = distinct.size();
        maxKeyLength = longest;
    }

    /** How good a layout is, lower is better: {the longest displacement, the sum of all displacements}. */
    private static int[] layoutScore(List<byte[]> encoded, long seed, int capacity) {
        int m = capacity - 1;
        boolean[] used = new boolean[capacity];
        int longest = 0;
        int total = 0;
        for (byte[] key : encoded) {
            int slot = hash(seed, key, 0, key.length) & m;
            int d = 0;
            while (used[slot]) {
                slot = (slot + 1) & m;
                d++;
            }
            used[slot] = true;
            longest = Math.max(longest, d);
            total += d;
        }
        return new int[] {longest, total};
    }

    /** A builder for a custom cache. */
    public static Builder builder() {
        return new Builder();
    }

    /** How many distinct strings the cache holds. */
    public int size() {
        return size;
    }

    /**
     * The most slots a lookup probes past the home slot (0 when every key sits in its own home slot); for tests
     * and diagnostics.
     */
    public int maxDisplacement() {
        return maxDisplacement;
    }

    /**
     * A hash of the bytes with ASCII case folded (bit 0x20 set in every byte), eight bytes per step; equal for two
     * byte runs that differ only in the case of ASCII letters.
     */
    private static int hash(long seed, byte[] bytes, int offset, int length) {
        long h = (length + 1) * seed;
        int i = offset;
        int end = offset + length;
        for (; i + 8 <= end; i += 8) {
            h = (h ^ ((long) LONG.get(bytes, i) | FOLD)) * seed;
        }
        if (i < end) {
            long tail = 0;
            for (int shift = 0; i < end; i++, shift += 8) {
                tail |= ((bytes[i] | 0x20) & 0xFFL) << shift;
            }
            h = (h ^ tail) * seed;
        }
        // The high bits of a product depend on all the input bits; bring them down to the low bits the index uses.
        return (int) (h ^ (h >>> 32) ^ (h >>> 47));
    }

    /** The cached String whose UTF-8 form is exactly {@code bytes[offset, offset + length)}, or null. */
    public String lookup(byte[] bytes, int offset, int length) {
        if (length > maxKeyLength) {
            return null;
        }
        int hash = hash(seed, bytes, offset, length);
        int slot = hash & mask;
        for (int probe = 0; probe <= maxDisplacement; probe++, slot = (slot + 1) & mask) {
            byte[] key = keys[slot];
            if (key == null) {
                return null;
            }
            if (hashes[slot] == hash && key.length == length
                    && Arrays.equals(key, 0, length, bytes, offset, offset + length)) {
                return values[slot];
            }
        }
        return null;
    }

    /**
     * The cached all-lowercase String that equals {@code bytes[offset, offset + length)} ignoring ASCII case, or
     * null: {@code Content-Type} and {@code CONTENT-TYPE} both give the cached {@code content-type}.
     */
    public String lookupIgnoreCase(byte[] bytes, int offset, int length) {
        if (length > maxKeyLength) {
            return null;
        }
        int hash = hash(seed, bytes, offset, length);
        int slot = hash & mask;
        for (int probe = 0; probe <= maxDisplacement; probe++, slot = (slot + 1) & mask) {
            byte[] key = keys[slot];
            if (key == null) {
                return null;
            }
            if (hashes[slot] == hash && lowerCase[slot] && key.length == length
                    && equalsIgnoreCase(key, bytes, offset)) {
                return values[slot];
            }
        }
        return null;
    }

    private static boolean equalsIgnoreCase(byte[] lowerKey, byte[] bytes, int offset) {
        for (int i = 0; i < lowerKey.length; i++) {
            if (lowerKey[i] != LOWER[bytes[offset + i] & 0xFF]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The cached String for these bytes, or a new one decoded as strict UTF-8 on a miss.
     *
     * @throws IllegalArgumentException on a miss whose bytes are not valid UTF-8
     */
    public String get(byte[] bytes, int offset, int length) {
        String cached = lookup(bytes, offset, length);
        return cached != null ? cached : Utf8.decode(bytes, offset, length);
    }

    /**
     * The cached lowercase String for these bytes ignoring ASCII case, or on a miss a new String decoded as strict
     * UTF-8 and lowercased (ASCII letters only, as HTTP field names are; RFC 9110 §5.1).
     *
     * @throws IllegalArgumentException on a miss whose bytes are not valid UTF-8
     */
    public String getLowerCase(byte[] bytes, int offset, int length) {
        String cached = lookupIgnoreCase(bytes, offset, length);
        if (cached != null) {
            return cached;
        }
        String decoded = Utf8.decode(bytes, offset, length);
        for (int i = 0; i < decoded.length(); i++) {
            char c = decoded.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                char[] chars = decoded.toCharArray();
                for (int j = i; j < chars.length; j++) {
                    char d = chars[j];
                    if (d >= 'A' && d <= 'Z') {
                        chars[j] = (char) (d + ('a' - 'A'));
                    }
                }
                return new String(chars);
            }
        }
        return decoded;
    }

    /** Collects strings for a {@link StringCache}. Not thread-safe; the cache it builds is. */
    public static final class Builder {
        private final List<String> strings = new ArrayList<>();

        private Builder() {
        }

        /** Adds a string (duplicates are kept once); the cache will return this very instance. */
        public Builder add(String value) {
            if (value == null) {
                throw new NullPointerException("value");
            }
            strings.add(value);
            return this;
        }

        /** Adds each string of {@code values}. */
        public Builder addAll(String[] values) {
            for (String value : values) {
                add(value);
            }
            return this;
        }

        /** Adds every string of another cache (for extending {@link KnownStrings#CACHE}). */
        public Builder addAll(StringCache cache) {
            for (String value : cache.values) {
                if (value != null) {
                    add(value);
                }
            }
            return this;
        }

        /** The immutable cache. */
        public StringCache build() {
            return new StringCache(strings);
        }
    }
}
