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
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** Sets bit 0x20 of every byte: folds 'A'..'Z' onto 'a'..'z' (and leaves every lowercase letter as it is). */
    private static final long FOLD = 0x2020202020202020L;
    /** Odd multipliers (from the golden ratio and splitmix64) the builder tries as hash seeds. */
    private static final long[] SEEDS = {0x9E3779B97F4A7C15L, 0xBF58476D1CE4E5B9L, 0x94D049BB133111EBL,
        0xD6E8FEB86659FD93L};
    /** The builder grows the table up to this many times the smallest size looking for a better layout. */
    private static final int MAX_SPREAD = 2;

    private final long seed;
    private final int mask;
    /** The most slots any key sits past its home slot: lookups probe no further. */
    private final int maxDisplacement;
    private final int[] hashes;
    /** Each key as the words {@link #wordAt} reads, so that a lookup compares eight bytes per step. */
    private final long[][] words;
    /** Per word, 0x20 in the bytes where the key has a lowercase ASCII letter: the bit case may flip. */
    private final long[][] letterBits;
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
        words = new long[bestCapacity][];
        letterBits = new long[bestCapacity][];
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
            words[slot] = words(key);
            letterBits[slot] = letterBits(key);
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

    /** {@return a builder for a custom cache} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return how many distinct strings the cache holds} */
    public int size() {
        return size;
    }

    /**
     * {@return the most slots a lookup probes past the home slot (0 when every key sits in its own home slot); for tests
     * and diagnostics}
     */
    public int maxDisplacement() {
        return maxDisplacement;
    }

    /*
     * Bytes are read as 64-bit words: for 8 bytes or more, one word per 8 bytes from the start and the last word
     * ending at the last byte (overlapping the one before it when the length is not a multiple of 8); for 4..7
     * bytes the first and the last four bytes in one word; for 0..3 bytes the bytes themselves. The length is
     * compared separately, so the overlap never lets two different byte runs look equal.
     */

    private static int wordCount(int length) {
        return length < 8 ? 1 : (length + 7) >>> 3;
    }

    /** Word {@code w} of {@code bytes[offset, offset + length)}, as described above. */
    private static long wordAt(byte[] bytes, int offset, int length, int w) {
        if (length >= 8) {
            int at = offset + (w << 3);
            return (long) LONG.get(bytes, Math.min(at, offset + length - 8));
        }
        if (length >= 4) {
            return ((int) INT.get(bytes, offset) & 0xFFFFFFFFL) | ((long) (int) INT.get(bytes, offset + length - 4) << 32);
        }
        long v = 0;
        for (int i = 0; i < length; i++) {
            v |= (bytes[offset + i] & 0xFFL) << (i << 3);
        }
        return v;
    }

    private static long[] words(byte[] key) {
        long[] w = new long[wordCount(key.length)];
        for (int i = 0; i < w.length; i++) {
            w[i] = wordAt(key, 0, key.length, i);
        }
        return w;
    }

    private static long[] letterBits(byte[] key) {
        byte[] marks = new byte[key.length];
        for (int i = 0; i < key.length; i++) {
            marks[i] = (byte) (key[i] >= 'a' && key[i] <= 'z' ? 0x20 : 0);
        }
        return words(marks);
    }

    /**
     * A hash of the words of the bytes with bit 0x20 set in every byte, which folds ASCII letters to lowercase:
     * equal for two byte runs that differ only in the case of ASCII letters.
     */
    private static int hash(long seed, byte[] bytes, int offset, int length) {
        long h = (length + 1) * seed;
        for (int w = 0, n = wordCount(length); w < n; w++) {
            h = (h ^ (wordAt(bytes, offset, length, w) | FOLD)) * seed;
        }
        // The high bits of a product depend on all the input bits; bring them down to the low bits the index uses.
        return (int) (h ^ (h >>> 32) ^ (h >>> 47));
    }

    /**
     * The cached String whose UTF-8 form is exactly {@code bytes[offset, offset + length)}, or null.
     *
     * @param bytes holds the bytes to look up
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return the cached String, or null
     */
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
            if (hashes[slot] == hash && key.length == length && equalWords(words[slot], bytes, offset, length)) {
                return values[slot];
            }
        }
        return null;
    }

    private static boolean equalWords(long[] key, byte[] bytes, int offset, int length) {
        for (int w = 0; w < key.length; w++) {
            if (wordAt(bytes, offset, length, w) != key[w]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The cached all-lowercase String that equals {@code bytes[offset, offset + length)} ignoring ASCII case, or
     * null: {@code Content-Type} and {@code CONTENT-TYPE} both give the cached {@code content-type}.
     *
     * @param bytes holds the bytes to look up
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @return the cached String, or null
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
                    && equalWordsIgnoreCase(words[slot], letterBits[slot], bytes, offset, length)) {
                return values[slot];
            }
        }
        return null;
    }

    /**
     * Whether the bytes equal the all-lowercase key except that letters may be uppercase: the words may differ
     * only in bit 0x20 of bytes where the key has a letter ('A' is 'a' without 0x20; '@' and '`' differ in the
     * same bit but the key has no letter there).
     */
    private static boolean equalWordsIgnoreCase(long[] key, long[] letters, byte[] bytes, int offset, int length) {
        for (int w = 0; w < key.length; w++) {
            long diff = wordAt(bytes, offset, length, w) ^ key[w];
            // Names usually arrive lowercase already: the letter mask is only loaded for a word that differs.
            if (diff != 0 && (diff & ~letters[w]) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the cached String for these bytes, or a new one decoded as strict UTF-8 on a miss}
     *
     * @param bytes holds the bytes to look up
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @throws IllegalArgumentException on a miss whose bytes are not valid UTF-8
     */
    public String get(byte[] bytes, int offset, int length) {
        String cached = lookup(bytes, offset, length);
        return cached != null ? cached : Utf8.decode(bytes, offset, length);
    }

    /**
     * {@return the cached lowercase String for these bytes ignoring ASCII case, or on a miss a new String decoded as strict
     * UTF-8 and lowercased (ASCII letters only, as HTTP field names are; RFC 9110 §5.1)}
     *
     * @param bytes holds the bytes to look up
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
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

        /**
         * Adds a string (duplicates are kept once); the cache will return this very instance.
         *
         * @param value the string to cache
         * @return this builder
         */
        public Builder add(String value) {
            if (value == null) {
                throw new NullPointerException("value");
            }
            strings.add(value);
            return this;
        }

        /**
         * Adds each string of {@code values}.
         *
         * @param values the strings to cache
         * @return this builder
         */
        public Builder addAll(String[] values) {
            for (String value : values) {
                add(value);
            }
            return this;
        }

        /**
         * Adds every string of another cache (for extending {@link KnownStrings#CACHE}).
         *
         * @param cache the cache whose strings to add
         * @return this builder
         */
        public Builder addAll(StringCache cache) {
            for (String value : cache.values) {
                if (value != null) {
                    add(value);
                }
            }
            return this;
        }

        /** {@return the immutable cache} */
        public StringCache build() {
            return new StringCache(strings);
        }
    }
}
