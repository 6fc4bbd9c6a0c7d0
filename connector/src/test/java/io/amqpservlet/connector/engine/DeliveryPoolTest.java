package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The engine's delivery pool: free deliveries come back last in, first out; it grows past its first size. */
class DeliveryPoolTest {

    @Test
    void returnedDeliveriesAreTakenAgainAndEveryOneIsDistinctWhileOut() {
        DeliveryPool pool = new DeliveryPool();
        List<Delivery> out = new ArrayList<>();
        Map<Delivery, Boolean> distinct = new IdentityHashMap<>();
        for (int i = 0; i < 100; i++) { // past the initial 16
            Delivery d = pool.take();
            out.add(d);
            distinct.put(d, true);
        }
        assertEquals(100, distinct.size(), "no delivery is handed out twice");
        for (Delivery d : out) {
            pool.put(d);
        }
        assertEquals(100, pool.freeCount());
        assertSame(out.get(99), pool.take(), "the last returned is taken first");
        assertSame(out.get(98), pool.take());
        assertEquals(98, pool.freeCount());
    }
}
