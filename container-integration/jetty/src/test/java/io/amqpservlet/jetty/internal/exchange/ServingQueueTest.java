package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A connection's requests on their way to a real Jetty pool. */
class ServingQueueTest {
    private QueuedThreadPool pool;

    @BeforeEach
    void start() throws Exception {
        pool = new QueuedThreadPool(16, 4);
        pool.start();
    }

    @AfterEach
    void stop() throws Exception {
        pool.stop();
    }

    @Test
    void aTaskThatBlocksDoesNotHoldTheOnesBehindIt() throws Exception {
        ServingQueue queue = new ServingQueue(pool);
        CountDownLatch othersDone = new CountDownLatch(20);
        CountDownLatch firstDone = new CountDownLatch(1);
        // The first waits for the twenty after it: it blocks its thread until they have run on others.
        queue.submit(() -> {
            try {
                if (othersDone.await(10, TimeUnit.SECONDS)) {
                    firstDone.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        for (int i = 0; i < 20; i++) {
            queue.submit(othersDone::countDown);
        }
        assertTrue(firstDone.await(10, TimeUnit.SECONDS), "the tasks behind a blocked one ran meanwhile");
    }

    @Test
    void tasksThatWaitTogetherAskForOneThreadNotOneEach() {
        List<Runnable> asked = new ArrayList<>();
        Executor held = asked::add; // busy: nothing asked for has started yet; not Jetty's pool, so turns of TURN
        ServingQueue queue = new ServingQueue(held);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            queue.submit(ran::incrementAndGet);
        }
        assertEquals(1, asked.size(), "a hundred waiting requests ask for one thread");
        // That thread starts: it asks for one more (others still wait) and serves a turn.
        asked.get(0).run();
        assertEquals(ServingQueue.TURN, ran.get());
        assertEquals(2, asked.size(), "one more thread asked for while requests waited, and only one");
        for (int i = 1; i < asked.size(); i++) {
            asked.get(i).run(); // each serves a turn and asks for the next; the last finds nothing
        }
        assertEquals(100, ran.get());
        int turns = (100 + ServingQueue.TURN - 1) / ServingQueue.TURN;
        assertEquals(1 + turns, asked.size(), "each turn asked for the next thread; the last of them found none left");
        queue.submit(ran::incrementAndGet);
        assertEquals(2 + turns, asked.size(),
                "a request arriving when no thread is on its way asks for one");
    }

    @Test
    void aConnectionThatAlwaysHasRequestsWaitingLeavesThePoolToOthers() throws Exception {
        QueuedThreadPool small = new QueuedThreadPool(4, 4);
        small.setReservedThreads(0);
        small.start();
        try {
            ServingQueue busy = new ServingQueue(small);
            ServingQueue other = new ServingQueue(small);
            AtomicInteger busyServed = new AtomicInteger();
            for (int i = 0; i < 200; i++) {
                busy.submit(() -> {
                    sleep(5);
                    busyServed.incrementAndGet();
                });
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (busyServed.get() < 4 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            int atSubmit = busyServed.get();
            AtomicInteger atRun = new AtomicInteger(-1);
            CountDownLatch otherDone = new CountDownLatch(1);
            other.submit(() -> {
                atRun.set(busyServed.get());
                otherDone.countDown();
            });
            assertTrue(otherDone.await(10, TimeUnit.SECONDS));
            // Every thread is the busy connection's; each gives its thread back once it sees the other's job waiting.
            assertTrue(atRun.get() - atSubmit <= 12, "the other connection's request waited for "
                    + (atRun.get() - atSubmit) + " of the busy one's (of " + (200 - atSubmit) + " waiting)");
        } finally {
            small.stop();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void everyTaskRunsOnceWhenManyThreadsSubmit() throws Exception {
        ServingQueue queue = new ServingQueue(pool);
        int submitters = 4;
        int each = 20_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(submitters * each);
        CountDownLatch done = new CountDownLatch(submitters * each);
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < submitters; s++) {
            int base = s * each;
            Thread t = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    int index = base + i;
                    queue.submit(() -> {
                        runs.incrementAndGet(index);
                        done.countDown();
                    });
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), "every task ran: " + done.getCount() + " left");
        for (int i = 0; i < runs.length(); i++) {
            assertEquals(1, runs.get(i), "task " + i + " ran once");
        }
    }
}
