package io.amqpservlet.protocol.text;

import io.amqpservlet.protocol.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StringCacheTest {
    private static final StringCache CACHE = KnownStrings.CACHE;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String lookup(String s) {
        byte[] b = utf8(s);
        return CACHE.lookup(b, 0, b.length);
    }

    @Test
    void hitReturnsTheSharedInstance() {
        // String literals are interned: the cache must return the very object KnownStrings was built from.
        assertSame("content-type", lookup("content-type"));
        assertSame("GET", lookup("GET"));
        assertSame("http:request", lookup("http:request"));
        assertSame("text/plain; charset=utf-8", lookup("text/plain; charset=utf-8"));
        byte[] framed = utf8("xxapplication/jsonyy");
        assertSame("application/json", CACHE.lookup(framed, 2, 16));
    }

    @Test
    void everyKnownStringHits() {
        String[][] groups = {KnownStrings.HTTP_METHODS, KnownStrings.HEADER_NAMES, KnownStrings.CONTENT_TYPES,
            KnownStrings.HTTP_OVER_AMQP};
        for (String[] group : groups) {
            for (String s : group) {
                assertSame(s, lookup(new String(s.toCharArray())), s);
            }
        }
    }

    @Test
    void missReturnsNullOrDecodes() {
        assertNull(lookup("content-typ"));
        assertNull(lookup("Content-Type"), "exact lookup is case-sensitive");
        assertNull(lookup("x-some-very-long-header-name-that-is-longer-than-any-cached-key-in-the-table"));
        byte[] b = utf8("x-caf\u00e9");
        assertEquals("x-caf\u00e9", CACHE.get(b, 0, b.length));
        byte[] hit = utf8("accept");
        assertSame("accept", CACHE.get(hit, 0, hit.length));
        byte[] bad = {'a', (byte) 0xC0, (byte) 0xAF};
        assertThrows(IllegalArgumentException.class, () -> CACHE.get(bad, 0, bad.length));
    }

    @Test
    void caseInsensitiveLookupFindsTheLowercaseName() {
        byte[] mixed = utf8("Content-Type");
        assertSame("content-type", CACHE.lookupIgnoreCase(mixed, 0, mixed.length));
        byte[] upper = utf8("X-REQUEST-ID");
        assertSame("x-request-id", CACHE.lookupIgnoreCase(upper, 0, upper.length));
        assertSame("x-request-id", CACHE.getLowerCase(upper, 0, upper.length));
        byte[] method = utf8("get");
        assertNull(CACHE.lookupIgnoreCase(method, 0, method.length), "only all-lowercase entries match");
        byte[] miss = utf8("X-Custom-\u00c9");
        assertEquals("x-custom-\u00c9", CACHE.getLowerCase(miss, 0, miss.length), "only ASCII letters fold");
    }

    @Test
    void builderKeepsDuplicatesOnceAndFindsManyEntries() {
        StringCache.Builder builder = StringCache.builder().add("a").add("a").add("A");
        String[] names = new String[2000];
        for (int i = 0; i < names.length; i++) {
            names[i] = "name-" + i;
        }
        StringCache cache = builder.addAll(names).addAll(CACHE).build();
        assertEquals(2 + names.length + CACHE.size(), cache.size());
        for (String name : names) {
            byte[] b = utf8(name);
            assertSame(name, cache.lookup(b, 0, b.length));
        }
        byte[] a = utf8("A");
        assertSame("A", cache.lookup(a, 0, 1));
        assertSame("a", cache.lookupIgnoreCase(a, 0, 1));
        byte[] ct = utf8("content-type");
        assertSame("content-type", cache.lookup(ct, 0, ct.length));
        assertNotSame(names[0], cache.lookup(utf8("name-20000"), 0, 10));
    }

    @Test
    void lookupsProbeOnlyAFewSlots() {
        // The builder picks, among a few seeds and two table sizes, the layout with the shortest longest probe
        // run: for the ~120 known strings no lookup looks at more than three slots (case twins such as UTF-8 and
        // utf-8 always share a home slot, so one step is unavoidable).
        assertTrue(CACHE.maxDisplacement() <= 2, "max displacement " + CACHE.maxDisplacement());
        StringCache methods = StringCache.builder().addAll(KnownStrings.HTTP_METHODS).build();
        assertEquals(0, methods.maxDisplacement());
    }

    @Test
    void keysOfEveryLengthAroundTheEightByteStepHitAndMiss() {
        // The hash reads eight bytes per step and then a tail: lengths 0..17 cross both paths and the boundary.
        StringCache.Builder builder = StringCache.builder();
        String[] keys = new String[18];
        for (int n = 0; n < keys.length; n++) {
            keys[n] = "abcdefghijklmnopq".substring(0, n);
            builder.add(keys[n]);
        }
        StringCache cache = builder.build();
        for (int n = 0; n < keys.length; n++) {
            // Framed at the very end of a larger array, so that a read past the end would throw.
            byte[] framed = utf8("##" + keys[n]);
            assertSame(keys[n], cache.lookup(framed, 2, n), "length " + n);
            byte[] upper = utf8(keys[n].toUpperCase(java.util.Locale.ROOT));
            assertSame(keys[n], cache.lookupIgnoreCase(upper, 0, n), "length " + n);
            if (n > 0) {
                assertNull(cache.lookup(upper, 0, n), "exact lookup is case-sensitive, length " + n);
                byte[] changed = utf8(keys[n]);
                changed[n - 1] = 'z'; // the last byte differs: in the tail, or in the last 8-byte step
                assertNull(cache.lookup(changed, 0, n), "length " + n);
                assertNull(cache.lookupIgnoreCase(changed, 0, n), "length " + n);
            }
        }
    }

    @Test
    void caseTwinsAreBothFoundExactly() {
        StringCache cache = StringCache.builder().add("UTF-8").add("utf-8").add("Accept").build();
        byte[] upper = utf8("UTF-8");
        byte[] lower = utf8("utf-8");
        byte[] mixed = utf8("uTf-8");
        assertSame("UTF-8", cache.lookup(upper, 0, upper.length));
        assertSame("utf-8", cache.lookup(lower, 0, lower.length));
        assertNull(cache.lookup(mixed, 0, mixed.length));
        assertSame("utf-8", cache.lookupIgnoreCase(upper, 0, upper.length));
        byte[] accept = utf8("accept");
        assertNull(cache.lookupIgnoreCase(accept, 0, accept.length), "Accept is not an all-lowercase entry");
    }

    @Test
    void foldingCollisionsOfNonLettersAreNotMatches() {
        // Setting bit 0x20 also maps '[' onto '{' and '@' onto '`': equal hashes, but the bytes decide.
        StringCache cache = StringCache.builder().add("a[b").add("x@y").build();
        byte[] brace = utf8("a{b");
        byte[] tick = utf8("x`y");
        assertNull(cache.lookup(brace, 0, brace.length));
        assertNull(cache.lookupIgnoreCase(brace, 0, brace.length));
        assertNull(cache.lookupIgnoreCase(tick, 0, tick.length));
        byte[] nonAscii = {(byte) 0xC3, (byte) 0xA9};
        assertNull(cache.lookup(nonAscii, 0, 2));
    }

    @Test
    void rangesOutsideTheArrayThrow() {
        byte[] b = utf8("accept");
        assertThrows(IndexOutOfBoundsException.class, () -> CACHE.lookup(b, 2, b.length));
    }

    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    @Test
    void hitsAllocateNothing() {
        byte[] exact = utf8("application/x-www-form-urlencoded");
        byte[] mixed = utf8("Accept-Encoding");
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                sink += CACHE.get(exact, 0, exact.length).length()
                        + CACHE.lookupIgnoreCase(mixed, 0, mixed.length).length();
            }
        };
        loop.run();
        loop.run();
        assertEquals(20_000L * (exact.length + mixed.length), sink, "both lookups hit");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
