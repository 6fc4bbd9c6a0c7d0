package io.amqpservlet.protocol.types;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/** Test support: seeded random field values that favour the edges of each encoding (0, 255, 256, 2^32-1). */
public final class RandomValues {
    private final Random random;

    public RandomValues(long seed) {
        this.random = new Random(seed);
    }

    public boolean chance() {
        return random.nextBoolean();
    }

    public int uint() {
        switch (random.nextInt(6)) {
            case 0: return 0;
            case 1: return random.nextInt(256);
            case 2: return 256 + random.nextInt(65536);
            case 3: return -1;
            default: return random.nextInt();
        }
    }

    public int below(int bound) {
        return random.nextInt(bound);
    }

    public long ulong() {
        return random.nextBoolean() ? random.nextInt(300) : random.nextLong();
    }

    public String text() {
        int n = random.nextInt(5) == 0 ? 256 + random.nextInt(40) : random.nextInt(24);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('!' + random.nextInt(94)));
        }
        return sb.toString();
    }

    public String textOrNull() {
        return random.nextInt(3) == 0 ? null : text();
    }

    public byte[] bytes() {
        byte[] b = new byte[random.nextInt(33)];
        random.nextBytes(b);
        return b;
    }

    /** Up to {@code max} random bytes, often more than 255 (a vbin32). */
    public byte[] bytesUpTo(int max) {
        byte[] b = new byte[random.nextInt(max + 1)];
        random.nextBytes(b);
        return b;
    }

    /** Null, or one to three symbols (sometimes one, which peers may send as a single symbol). */
    public Symbol[] symbolsOrNull() {
        int n = random.nextInt(4);
        if (n == 0) {
            return null;
        }
        Symbol[] s = new Symbol[n];
        for (int i = 0; i < n; i++) {
            s[i] = Symbol.of("cap-" + random.nextInt(1000));
        }
        return s;
    }

    public void symbols(SymbolArray into) {
        Symbol[] s = symbolsOrNull();
        if (s == null) {
            into.clear();
        } else {
            into.set(s);
        }
    }

    public Map<String, String> mapOrNull() {
        int n = random.nextInt(3);
        if (n == 0) {
            return null;
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            m.put("key-" + i, text());
        }
        return m;
    }
}
