package io.amqpservlet.gateway.faults;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker that crashes under load: two gateway processes serve one durable queue of an ActiveMQ Artemis process with
 * a persistent journal; while they hold their credit's worth of requests, the broker is killed with SIGKILL and
 * started again on its journal. Every request is answered, those sent before the crash and those sent after the
 * restart, and a request is served twice only if it was in flight at the crash: held by a gateway (at most its
 * credit), or accepted by the gateway without the broker's journal having the acceptance yet.
 */
@Timeout(300)
class AttachBrokerKilledIT {
    private static final int CREDIT = 4;
    private static final int GATEWAYS = 2;
    private static final int BEFORE = 200;
    private static final int AFTER = 50;
    private static final String WORK = "/work?ms=100";
    /** How long before the crash a serving may start and still be in flight at it: 10 times the work. */
    private static final long IN_FLIGHT_WINDOW_MILLIS = 1_000;

    @TempDir
    Path dir;

    @Test
    void everyRequestIsAnsweredAndOnlyWorkInFlightAtTheCrashIsServedTwice() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String uri = "amqp://127.0.0.1:" + port + "/orders";
        ArtemisProcess.Settings settings = new ArtemisProcess.Settings(dir.resolve("broker"), "127.0.0.1", port, 0,
                List.of(), List.of("orders", "replies"));
        try (ArtemisProcess broker = ArtemisProcess.start(settings);
             GatewayProcess a = GatewayProcess.start(dir, "gateway-a", uri, "--attach-credit", "" + CREDIT);
             GatewayProcess b = GatewayProcess.start(dir, "gateway-b", uri, "--attach-credit", "" + CREDIT);
             Requester requester = new Requester("127.0.0.1", port, "orders", "replies")) {
            a.awaitLog("attached to broker", 60_000);
            b.awaitLog("attached to broker", 60_000);
            requester.connect();
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < BEFORE; i++) {
                requester.send("before-" + i, WORK);
                ids.add("before-" + i);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (requester.answered().size() < BEFORE / 4) {
                assertTrue(System.nanoTime() < deadline, "answers before the crash: " + requester.answered().size()
                        + "\n" + a.log() + "\n" + b.log());
                requester.receive(500);
            }
            int answeredAtCrash = requester.answered().size();
            long crash = System.nanoTime();
            long crashMillis = System.currentTimeMillis();
            broker.kill();
            long goneMillis = System.currentTimeMillis(); // the broker may still deliver until SIGKILL takes effect
            broker.restart();
            long restarted = System.nanoTime();
            requester.connect();
            for (int i = 0; i < AFTER; i++) {
                requester.send("after-" + i, WORK);
                ids.add("after-" + i);
            }
            long firstAnswerAfterRestart = 0;
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!requester.answered().containsAll(ids)) {
                assertTrue(System.nanoTime() < deadline, missing(ids, requester) + "\n--- gateway-a\n" + a.log()
                        + "\n--- gateway-b\n" + b.log() + "\n--- broker\n" + broker.logTail());
                int n = requester.receive(500);
                assertTrue(n >= 0, "the restarted broker dropped the client");
                if (n > 0 && firstAnswerAfterRestart == 0) {
                    firstAnswerAfterRestart = System.nanoTime();
                }
            }
            long allAnswered = requester.lastAnswerNanos();
            Map<String, Set<String>> twice = requester.servedTwice();
            Map<String, Integer> ranTwice = GatewayProcess.ranMoreThanOnce(a, b);
            List<String> lost = new ArrayList<>(a.connectionsLost());
            lost.addAll(b.connectionsLost());
            System.out.printf("AttachBrokerKilledIT: %d requests (%d before the crash, %d answered then), %d answers,"
                            + " %d served twice %s, %d answers delivered again; broker down and back in %d ms, first"
                            + " answer %d ms after it was back, every answer %d ms after the crash; servlets run twice"
                            + " on %s; connections lost:%n%s%n",
                    ids.size(), BEFORE, answeredAtCrash, requester.received(), twice.size(), twice.keySet(),
                    requester.deliveredAgain(), millis(restarted - crash), millis(firstAnswerAfterRestart - restarted),
                    millis(allAnswered - crash), ranTwice, String.join("\n", lost));
            assertTrue(twice.size() <= CREDIT * GATEWAYS, twice.size() + " requests served twice, more than the "
                    + CREDIT * GATEWAYS + " the gateways can hold: " + twice);
            for (Map.Entry<String, Set<String>> e : twice.entrySet()) {
                assertTrue(e.getKey().startsWith("before-"), "sent after the restart, yet served twice: " + e);
                assertEquals(2, e.getValue().size(), "served more than twice: " + e);
            }
            // A servlet runs again on a request the broker delivers again after the restart: one a gateway held when
            // its connection ended (at most its credit), or one whose acceptance the broker had taken and not yet
            // written to its journal when it was killed. Either was in flight at the crash: its first serving started
            // moments before it, never earlier than the work and the journal's write allow.
            Map<String, List<Long>> starts = new HashMap<>(a.startMillis());
            b.startMillis().forEach((id, t) -> starts.merge(id, t, (x, y) -> {
                List<Long> both = new ArrayList<>(x);
                both.addAll(y);
                return both;
            }));
            for (Map.Entry<String, Integer> e : ranTwice.entrySet()) {
                long first = starts.get(e.getKey()).stream().mapToLong(Long::longValue).min().orElseThrow();
                assertTrue(e.getKey().startsWith("before-") && e.getValue() == 2
                                && first >= crashMillis - IN_FLIGHT_WINDOW_MILLIS && first <= goneMillis,
                        "servlets ran " + e.getValue() + " times on " + e.getKey() + ", first " + (crashMillis - first)
                                + " ms before the crash; connections lost:\n" + String.join("\n", lost));
            }
            // Nothing is left behind in the queue: every request was settled.
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (broker.messageCount("orders") != 0) {
                assertTrue(System.nanoTime() < deadline, "left in the queue: " + broker.messageCount("orders"));
                Thread.sleep(100);
            }
        }
    }

    private static String missing(Set<String> ids, Requester requester) {
        Set<String> missing = new HashSet<>(ids);
        missing.removeAll(requester.answered());
        return missing.size() + " requests not answered: " + (missing.size() > 20 ? "(first 20) "
                + List.copyOf(missing).subList(0, 20) : missing);
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
