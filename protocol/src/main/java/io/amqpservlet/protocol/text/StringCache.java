package io.amqpservlet.protocol.text;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Maps the UTF-8 bytes of common strings (methods, header names, content types) to one shared String instance,
 * so that decoding them costs no allocation. Built once by a {@link Builder}, then immutable and thread-safe.
 *
 * <p>Open addressing over a power-of-two table at most half full. The hash is computed over the bytes with ASCII
 * letters folded to lowercase, so that an exact lookup and a case-insensitive one probe the same slots; each
 * probe compares the stored hash first and the bytes only on a hash match. A lookup allocates nothing.
 */
public final class StringCache {
    /** ASCII letters folded to lowercase; every other byte value maps to itself. */
    private static final byte[] LOWER = new byte[256];

    static {
        for (int i = 0; i < 256; i++) {
            LOWER[i] = (byte) (i >= 'A' && i <= 'Z' ? i + ('a' - 'A') : i);
        }
    }

    private final int mask;
    private final int[] hashes;
    private final byte[][] keys;
    private final String[] values;
    /** Whether the key has no uppercase ASCII letter: only those answer case-insensitive lookups. */
    private final boolean[] lowerCase;
    private final int size;
    private final int maxKeyLength;

    private StringCache(List<String> strings) {
        int capacity = 16;
        while (capacity < strings.size() * 2) {
            capacity <<= 1;
        }
        mask = capacity - 1;
        hashes = new int[capacity];
        keys = new byte[capacity][];
        values = new String[capacity];
        lowerCase = new boolean[capacity];
        int count = 0;
        int longest = 0;
        for (int s = 0; s < strings.size(); s++) {
            String value = strings.get(s);
            byte[] key = value.getBytes(StandardCharsets.UTF_8);
            int hash = hash(key, 0, key.length);
            int slot = hash & mask;
            boolean duplicate = false;
            while (keys[slot] != null) {
                if (Arrays.equals(keys[slot], key)) {
                    duplicate = true;
                    break;
                }
                slot = (slot + 1) & mask;
            }
            if (duplicate) {
                continue;
            }
            hashes[slot] = hash;
            keys[slot] = key;
            values[slot] = value;
            lowerCase[slot] = value.equals(value.toLowerCase(Locale.ROOT));
            count++;
            longest = Math.max(longest, key.length);
        }
        size = count;
        maxKeyLength = longest;
    }

    /** A builder for a custom cache. */
    public static Builder builder() {
        return new Builder();
    }

    /** How many distinct strings the cache holds. */
    public int size() {
        return size;
    }

    private static int hash(byte[] bytes, int offset, int length) {
        int h = length;
        for (int i = offset, end = offset + length; i < end; i++) {
            h = 31 * h + LOWER[bytes[i] & 0xFF];
        }
        // Spread the high bits into the low ones the table index uses.
        return h ^ (h >>> 15) ^ (h >>> 7);
    }

    /** The cached String whose UTF-8 form is exactly {@code bytes[offset, offset + length)}, or null. */
    public String lookup(byte[] bytes, int offset, int length) {
        if (length > maxKeyLength) {
            return null;
        }
        int hash = hash(bytes, offset, length);
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            byte[] key = keys[slot];
            if (key == null) {
                return null;
            }
            if (hashes[slot] == hash && key.length == length
                    && Arrays.equals(key, 0, length, bytes, offset, offset + length)) {
                return values[slot];
            }
        }
    }

    /**
     * The cached all-lowercase String that equals {@code bytes[offset, offset + length)} ignoring ASCII case, or
     * null: {@code Content-Type} and {@code CONTENT-TYPE} both give the cached {@code content-type}.
     */
    public String lookupIgnoreCase(byte[] bytes, int offset, int length) {
        if (length > maxKeyLength) {
            return null;
        }
        int hash = hash(bytes, offset, length);
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            byte[] key = keys[slot];
            if (key == null) {
                return null;
            }
            if (hashes[slot] == hash && lowerCase[slot] && key.length == length
                    && equalsIgnoreCase(key, bytes, offset)) {
                return values[slot];
            }
        }
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
