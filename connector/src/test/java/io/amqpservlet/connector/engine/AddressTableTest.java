package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AddressTableTest {

    @Test
    void findsAnAddressByTheBytesOfAField() {
        AddressTable<String> t = new AddressTable<>();
        assertTrue(t.add("amqp-reply-7f3a2c", "link-1"));
        byte[] frame = "xxamqp-reply-7f3a2cyy".getBytes(StandardCharsets.US_ASCII);
        assertEquals("link-1", t.get(frame, 2, 17));
        assertNull(t.get(frame, 2, 16));
    }

    @Test
    void refusesADuplicateAddress() {
        AddressTable<String> t = new AddressTable<>();
        assertTrue(t.add("a", "1"));
        assertFalse(t.add("a", "2"));
        assertEquals("1", t.get("a"));
    }

    @Test
    void removingEveryAddressOfALinkKeepsTheRestReachable() {
        AddressTable<Object> t = new AddressTable<>();
        Object creator = new Object();
        Object other = new Object();
        for (int i = 0; i < 100; i++) {
            t.add("tmp-" + i, i % 3 == 0 ? creator : other);
        }
        assertEquals(34, t.removeValue(creator));
        assertEquals(66, t.size());
        for (int i = 0; i < 100; i++) {
            Object v = t.get("tmp-" + i);
            if (i % 3 == 0) {
                assertNull(v, "tmp-" + i);
            } else {
                assertSame(other, v, "tmp-" + i);
            }
        }
    }

    @Test
    void behavesLikeAHashMapUnderRandomChurn() {
        long seed = 1982;
        Random r = new Random(seed);
        AddressTable<Integer> t = new AddressTable<>();
        Map<String, Integer> model = new HashMap<>();
        for (int step = 0; step < 20_000; step++) {
            String k = "n" + r.nextInt(300);
            if (r.nextBoolean()) {
                boolean added = t.add(k, step);
                assertEquals(!model.containsKey(k), added, "seed " + seed + " step " + step);
                model.putIfAbsent(k, step);
            } else {
                byte[] b = k.getBytes(StandardCharsets.US_ASCII);
                assertEquals(model.remove(k), t.remove(b, 0, b.length), "seed " + seed + " step " + step);
            }
            assertEquals(model.size(), t.size());
        }
        for (Map.Entry<String, Integer> e : model.entrySet()) {
            assertEquals(e.getValue(), t.get(e.getKey()));
        }
    }
}
