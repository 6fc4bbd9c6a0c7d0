package io.amqpservlet.gateway.faults;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A network partition between a gateway and its broker: packets dropped both ways for 30 s, no FIN, no RST. The
 * broker (an Artemis process) runs in a network namespace of the test's own, reached by the client over one veth
 * link and by the gateway process over another; the gateway's link is set down for 30 s while requests keep coming.
 * The gateway hears nothing, not even the empty frames the broker sends at the pace the gateway's idle timeout asks
 * for (AMQP 1.0 §2.4.5), closes the connection once its idle timeout passes, keeps trying while the link is down,
 * connects again once it is up, and every request is answered, none served twice but what it held when the link went
 * down.
 */
@Timeout(300)
class AttachPartitionIT {
    private static final int CREDIT = 4;
    private static final long IDLE_TIMEOUT_MILLIS = 10_000;
    private static final long PARTITION_MILLIS = 30_000;
    private static final long SEND_INTERVAL_MILLIS = 50;
    private static final String WORK = "/work?ms=50";
    private static final int PORT = 5672; // the namespace's own: nothing else listens there

    @TempDir
    Path dir;

    @Test
    void theGatewayNoticesByItsIdleTimeoutReconnectsAfterThePartitionAndLosesNothing() throws Exception {
        try (NetworkNamespace ns = NetworkNamespace.create()) {
            NetworkNamespace.Link clientLink = ns.addLink();
            NetworkNamespace.Link gatewayLink = ns.addLink();
            ArtemisProcess.Settings settings = new ArtemisProcess.Settings(dir.resolve("broker"), "0.0.0.0", PORT, 0,
                    ns.launcher(), List.of("orders", "replies"));
            try (ArtemisProcess broker = ArtemisProcess.start(settings);
                 GatewayProcess gateway = GatewayProcess.start(dir, "gateway",
                         "amqp://" + gatewayLink.address() + ":" + PORT + "/orders", "--attach-credit", "" + CREDIT,
                         "--attach-idle-timeout", "" + IDLE_TIMEOUT_MILLIS);
                 Requester requester = new Requester(clientLink.address(), PORT, "orders", "replies")) {
                gateway.awaitLog("attached to broker", 60_000);
                requester.connect();
                Set<String> ids = new HashSet<>();
                long start = System.nanoTime();
                long cut = 0;
                long healed = 0;
                long noticed = 0;
                long reattached = 0;
                Set<String> sentBeforeCut = new HashSet<>();
                Set<String> sentBeforeHeal = new HashSet<>();
                int sentDuringPartition = 0;
                int next = 0;
                // Requests at a steady pace throughout: 5 s before the cut, the 30 s of it, and 5 s after.
                while (true) {
                    long now = System.nanoTime();
                    if (cut == 0 && now - start >= TimeUnit.SECONDS.toNanos(5)) {
                        ns.cut(gatewayLink);
                        cut = System.nanoTime();
                    } else if (cut != 0 && healed == 0 && now - cut >= TimeUnit.MILLISECONDS.toNanos(PARTITION_MILLIS)) {
                        ns.heal(gatewayLink);
                        healed = System.nanoTime();
                    } else if (healed != 0 && now - healed >= TimeUnit.SECONDS.toNanos(5)) {
                        break;
                    }
                    if (cut != 0 && noticed == 0 && !gateway.logLines("no frame received").isEmpty()) {
                        noticed = System.nanoTime();
                    }
                    if (healed != 0 && reattached == 0 && gateway.logLines("attached to broker").size() >= 2) {
                        reattached = System.nanoTime();
                    }
                    if (now - start >= next * TimeUnit.MILLISECONDS.toNanos(SEND_INTERVAL_MILLIS)) {
                        requester.send("r" + next, WORK);
                        ids.add("r" + next);
                        if (cut == 0) {
                            sentBeforeCut.add("r" + next);
                        }
                        if (healed == 0) {
                            sentBeforeHeal.add("r" + next);
                            if (cut != 0) {
                                sentDuringPartition++;
                            }
                        }
                        next++;
                    }
                    assertTrue(requester.receive(5) >= 0, "the client's own link failed");
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (!requester.answered().containsAll(ids)) {
                    assertTrue(System.nanoTime() < deadline, (ids.size() - requester.answered().size())
                            + " requests not answered\n--- gateway\n" + gateway.log() + "\n--- broker\n"
                            + broker.logTail());
                    if (reattached == 0 && gateway.logLines("attached to broker").size() >= 2) {
                        reattached = System.nanoTime();
                    }
                    requester.receive(200);
                }
                List<String> attached = gateway.logLines("attached to broker");
                List<String> givenUp = gateway.logLines("; connecting to ");
                Map<String, Set<String>> twice = requester.servedTwice();
                Map<String, Integer> ranTwice = GatewayProcess.ranMoreThanOnce(gateway);
                System.out.printf("AttachPartitionIT: %d requests (%d sent during the partition), %d answers, %d served"
                                + " twice %s; idle timeout %d ms, partition noticed %d ms after the cut, %d connections"
                                + " given up on (a line each); attached again %d ms after the link was up, every"
                                + " request sent until then answered %d ms after it; servlet run twice on %s%n%s%n",
                        ids.size(),
                        sentDuringPartition, requester.received(), twice.size(), twice.keySet(), IDLE_TIMEOUT_MILLIS,
                        millis(noticed - cut), givenUp.size(), millis(reattached - healed),
                        millis(requester.answeredAllNanos(sentBeforeHeal) - healed), ranTwice,
                        String.join("\n", givenUp));
                assertTrue(noticed != 0, "the gateway never noticed the partition:\n" + gateway.log());
                assertTrue(noticed - cut <= TimeUnit.MILLISECONDS.toNanos(IDLE_TIMEOUT_MILLIS + 5_000),
                        "noticed " + millis(noticed - cut) + " ms after the cut, idle timeout " + IDLE_TIMEOUT_MILLIS);
                assertTrue(noticed < healed, "noticed only once the link was up again");
                assertTrue(attached.size() >= 2 && reattached > healed, "attached again after the partition:\n"
                        + gateway.log());
                assertTrue(twice.size() <= CREDIT, twice.size() + " requests served twice, more than the "
                        + CREDIT + " the gateway held: " + twice);
                for (Map.Entry<String, Set<String>> e : twice.entrySet()) {
                    assertTrue(sentBeforeCut.contains(e.getKey()), "served twice, yet sent after the cut: " + e);
                    assertEquals(2, e.getValue().size(), "served more than twice: " + e);
                }
                // A servlet whose response was lost in the cut link runs again on the redelivery: what the gateway
                // held at the cut, no more.
                assertTrue(ranTwice.size() <= CREDIT, "servlets ran twice on " + ranTwice);
                for (Map.Entry<String, Integer> e : ranTwice.entrySet()) {
                    assertTrue(sentBeforeCut.contains(e.getKey()) && e.getValue() == 2, "servlet run "
                            + e.getValue() + " times on " + e.getKey());
                }
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (broker.messageCount("orders") != 0) {
                    assertTrue(System.nanoTime() < deadline, "left in the queue: " + broker.messageCount("orders"));
                    Thread.sleep(100);
                }
            }
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
