package io.amqpservlet.gateway.demo;

import io.amqpservlet.jetty.internal.exchange.Exchange;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The management demo's in-memory topology: equivalence, its caps, and deletions taking their bindings along. */
class TopologyTest {
    private final Topology topology = new Topology();

    private static Topology.Queue queue(String name, boolean autoDelete) {
        return new Topology.Queue(name, true, autoDelete, false, "classic", Map.of("x-max-length", 10L));
    }

    private static Topology.Exchange exchange(String name) {
        return new Topology.Exchange(name, "direct", true, false, false, Map.of());
    }

    @Test
    void aQueueDeclaredAgainIsTheSameOnlyWithTheSameProperties() {
        assertEquals(Topology.Declared.CREATED, topology.declare(queue("q", false)));
        assertEquals(Topology.Declared.EXISTS, topology.declare(queue("q", false)));
        assertEquals(Topology.Declared.CONFLICT, topology.declare(queue("q", true)));
        assertEquals(false, topology.queue("q").autoDelete(), "a conflict changes nothing");
    }

    @Test
    void queuesExchangesAndBindingsAreCapped() {
        for (int i = 0; i < Topology.MAX_QUEUES; i++) {
            assertEquals(Topology.Declared.CREATED, topology.declare(queue("q" + i, false)));
        }
        assertEquals(Topology.Declared.FULL, topology.declare(queue("one-more", false)));
        assertEquals(Topology.Declared.EXISTS, topology.declare(queue("q0", false)), "a full topology still answers");
        for (int i = 0; i < Topology.MAX_EXCHANGES; i++) {
            assertEquals(Topology.Declared.CREATED, topology.declare(exchange("x" + i)));
        }
        assertEquals(Topology.Declared.FULL, topology.declare(exchange("one-more")));
        int bound = 0;
        for (int x = 0; bound < Topology.MAX_BINDINGS; x++) {
            for (int q = 0; q < 100 && bound < Topology.MAX_BINDINGS; q++, bound++) {
                assertEquals(Topology.Bound.BOUND, topology.bind(new Topology.Binding("x" + x, true, "q" + q, "k",
                        Map.of())));
            }
        }
        Topology.Binding extra = new Topology.Binding("x999", true, "q999", "k", Map.of());
        assertEquals(Topology.Bound.FULL, topology.bind(extra));
        assertEquals(Topology.Bound.BOUND, topology.bind(new Topology.Binding("x0", true, "q0", "k", Map.of())),
                "binding again is idempotent, even when full");
    }

    @Test
    void deletingAQueueOrAnExchangeRemovesTheirBindings() {
        topology.declare(queue("q", false));
        topology.declare(exchange("a"));
        topology.declare(exchange("b"));
        assertEquals(Topology.Bound.NOT_FOUND, topology.bind(new Topology.Binding("a", true, "missing", "k",
                Map.of())));
        topology.bind(new Topology.Binding("a", true, "q", "k", Map.of()));
        topology.bind(new Topology.Binding("a", false, "b", "k", Map.of()));
        assertEquals(1, topology.bindings("a", true, "q", "k").size());
        assertTrue(topology.deleteQueue("q"));
        assertEquals(List.of(), topology.bindings("a", true, "q", "k"));
        topology.deleteExchange("b");
        assertEquals(List.of(), topology.bindings("a", false, "b", "k"));
        assertNull(topology.queue("q"));
    }

    @Test
    void concurrentDeclarationsNeverExceedTheCap() throws Exception {
        int threads = 4;
        CountDownLatch go = new CountDownLatch(1);
        ConcurrentLinkedQueue<Topology.Declared> outcomes = new ConcurrentLinkedQueue<>();
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < Topology.MAX_QUEUES; i++) {
                    outcomes.add(topology.declare(queue(id + "-" + i, false)));
                }
            });
            ts[t].start();
        }
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(Topology.MAX_QUEUES, outcomes.stream().filter(o -> o == Topology.Declared.CREATED).count());
        assertEquals((threads - 1) * Topology.MAX_QUEUES,
                outcomes.stream().filter(o -> o == Topology.Declared.FULL).count());
    }
}
