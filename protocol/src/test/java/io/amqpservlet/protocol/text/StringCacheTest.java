package io.amqpservlet.protocol.text;

import io.amqpservlet.protocol.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
