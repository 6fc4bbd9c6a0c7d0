package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The delivery-id map against {@link HashMap} under the key patterns a session sees: a sliding window of
 * consecutive ids settled in and out of order, ids wrapping past 2^32 − 1, and ids that all share a home slot.
 */
class DeliveryMapTest {

    private static void check(DeliveryMap map, Map<Integer, Delivery> expected, List<Integer> everSeen) {
        assertEquals(expected.size(), map.size());
        for (int id : everSeen) {
            assertSame(expected.get(id), map.get(id), "id " + id);
        }
    }

    private static void run(long seed, int base, int stride, int windowMax) {
        Random random = new Random(seed);
        DeliveryMap map = new DeliveryMap();
        Map<Integer, Delivery> expected = new HashMap<>();
        List<Integer> live = new ArrayList<>();
        List<Integer> everSeen = new ArrayList<>();
        int next = base;
        for (int step = 0; step < 5_000; step++) {
            if (live.size() < windowMax && (live.isEmpty() || random.nextInt(3) != 0)) {
                int id = next;
                next += stride;
                Delivery d = new Delivery();
                map.put(id, d);
                expected.put(id, d);
                live.add(id);
                everSeen.add(id);
            } else {
                // Mostly the oldest (settled in order), sometimes any.
                int index = random.nextInt(4) == 0 ? random.nextInt(live.size()) : 0;
                int id = live.remove(index);
                assertSame(expected.remove(id), map.remove(id));
                assertNull(map.remove(id));
            }
            if (step % 97 == 0) {
                check(map, expected, everSeen.subList(Math.max(0, everSeen.size() - 300), everSeen.size()));
            }
        }
        check(map, expected, everSeen);
    }

    @Test
    void consecutiveIdsSettledMostlyInOrder() {
        for (long seed = 0; seed < 10; seed++) {
            run(seed, 0, 1, 100);
        }
    }

    @Test
    void idsWrappingPastTheTopOfTheSerialRange() {
        run(1, -50, 1, 200);
    }

    @Test
    void idsThatAllShareAHomeSlot() {
        run(2, 7, 1 << 16, 40); // equal modulo every capacity up to 2^16: every put collides
    }

    @Test
    void sparseIds() {
        run(3, 5, 37, 300);
    }
}
