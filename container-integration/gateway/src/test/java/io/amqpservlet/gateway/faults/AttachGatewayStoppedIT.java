package io.amqpservlet.gateway.faults;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gateway that stops answering without going away: of two gateway processes on one queue of an Artemis process,
 * one is stopped with SIGSTOP for 30 s while it holds requests, and continued with SIGCONT. Its sockets stay open and
 * its kernel keeps acknowledging, so only the broker's idle timeout can tell: the broker drops the connection once it
 * has heard nothing for its own idle timeout (the acceptor's {@code amqpIdleTimeout}, 10 s here; what the gateway
 * announces only sets how often the broker sends it empty frames), and delivers what the stopped gateway held to the
 * other. Every request is answered; one is served twice only if the stopped gateway's response reached the broker
 * before the stop and the request's acceptance did not. Once
 * continued, the stopped gateway finds its connection closed: the responses of the requests it was serving have
 * nowhere to go and are dropped, so nothing it held is answered by it after the stop; it attaches again and serves
 * new requests.
 */
@Timeout(300)
class AttachGatewayStoppedIT {
    private static final int CREDIT = 4;
    private static final long BROKER_IDLE_TIMEOUT_MILLIS = 10_000;
    private static final long GATEWAY_IDLE_TIMEOUT_MILLIS = 10_000;
    private static final long STOPPED_MILLIS = 30_000;
    private static final long SEND_INTERVAL_MILLIS = 100;
    private static final String WORK = "/work?ms=200";
    /** Long enough that a burst of them is still being served when the gateway is stopped. */
    private static final String LONG_WORK = "/work?ms=1000";

    @TempDir
    Path dir;

    @Test
    void theBrokerDropsTheStoppedGatewayByItsIdleTimeoutAndTheOtherAnswersWhatItHeldOnce() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String uri = "amqp://127.0.0.1:" + port + "/orders";
        ArtemisProcess.Settings settings = new ArtemisProcess.Settings(dir.resolve("broker"), "127.0.0.1", port,
                BROKER_IDLE_TIMEOUT_MILLIS, List.of(), List.of("orders", "replies"));
        String[] options = {"--attach-credit", "" + CREDIT, "--attach-idle-timeout", "" + GATEWAY_IDLE_TIMEOUT_MILLIS};
        try (ArtemisProcess broker = ArtemisProcess.start(settings);
             GatewayProcess stopped = GatewayProcess.start(dir, "gateway-stopped", uri, options);
             GatewayProcess other = GatewayProcess.start(dir, "gateway-other", uri, options);
             Requester requester = new Requester("127.0.0.1", port, "orders", "replies")) {
            stopped.awaitLog("attached to broker", 60_000);
            other.awaitLog("attached to broker", 60_000);
            requester.connect();
            Set<String> ids = new HashSet<>();
            int next = 0;
            // Both gateways serve for 3 s, then a burst fills both credits with work that outlasts the stop's start.
            long start = System.nanoTime();
            while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3)) {
                requester.send("r" + next, WORK);
                ids.add("r" + next++);
                requester.receive(SEND_INTERVAL_MILLIS);
            }
            for (int i = 0; i < 2 * CREDIT; i++) {
                requester.send("burst-" + i, LONG_WORK);
                ids.add("burst-" + i);
            }
            Thread.sleep(500);
            long stop = System.nanoTime();
            stopped.freeze();
            // Read while it is stopped: what its servlet had started by then.
            Set<String> startedBeforeStop = stopped.started();
            long dropped = 0;
            long firstRedeliveredAnswered = 0;
            long continued = 0;
            long reattached = 0;
            long servingAgain = 0;
            long lastPoll = 0;
            while (continued == 0 || System.nanoTime() - continued < TimeUnit.SECONDS.toNanos(10)) {
                long now = System.nanoTime();
                if (continued == 0 && now - stop >= TimeUnit.MILLISECONDS.toNanos(STOPPED_MILLIS)) {
                    stopped.thaw();
                    continued = System.nanoTime();
                }
                if (now - lastPoll >= TimeUnit.MILLISECONDS.toNanos(200)) {
                    lastPoll = now;
                    if (dropped == 0 && broker.consumerCount("orders") == 1) {
                        dropped = System.nanoTime();
                    }
                    if (continued != 0 && reattached == 0 && stopped.logLines("attached to broker").size() >= 2) {
                        reattached = System.nanoTime();
                    }
                }
                requester.send("r" + next, WORK);
                ids.add("r" + next++);
                assertTrue(requester.receive(SEND_INTERVAL_MILLIS) >= 0, "the client's connection failed");
                if (firstRedeliveredAnswered == 0 && !held(requester, startedBeforeStop, other.pid()).isEmpty()) {
                    firstRedeliveredAnswered = requester.lastAnswerNanos();
                }
                if (continued != 0 && servingAgain == 0 && !answeredBy(requester, stopped.pid(), continued).isEmpty()) {
                    servingAgain = System.nanoTime();
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!requester.answered().containsAll(ids)) {
                assertTrue(System.nanoTime() < deadline, (ids.size() - requester.answered().size())
                        + " requests not answered\n--- stopped\n" + stopped.log() + "\n--- other\n" + other.log()
                        + "\n--- broker\n" + broker.logTail());
                requester.receive(200);
            }
            // What the stopped gateway held: started before the stop, answered by the other, so delivered again.
            Set<String> redelivered = held(requester, startedBeforeStop, other.pid());
            Map<String, Set<String>> twice = requester.servedTwice();
            System.out.printf("AttachGatewayStoppedIT: %d requests, %d answers; broker idle timeout %d ms; stopped"
                            + " gateway dropped by the broker %d ms after SIGSTOP, first of the %d requests it held"
                            + " (%s, delivery counts %s) answered by the other %d ms after SIGSTOP, all of them %d ms"
                            + " after; after"
                            + " SIGCONT it attached again in %d ms and served again in %d ms; %d served twice %s, %d"
                            + " answers delivered again%n", ids.size(), requester.received(),
                    BROKER_IDLE_TIMEOUT_MILLIS, millis(dropped - stop), redelivered.size(), redelivered,
                    deliveryCounts(requester, redelivered),
                    millis(firstRedeliveredAnswered - stop), millis(requester.answeredAllNanos(redelivered) - stop),
                    millis(reattached - continued), millis(servingAgain - continued), twice.size(), twice.keySet(),
                    requester.deliveredAgain());

            // The broker, not the stopped gateway, ended it, by its own idle timeout and no sooner.
            assertTrue(dropped != 0 && dropped < continued, "the broker kept the stopped gateway's consumer for the"
                    + " whole stop\n" + broker.logTail());
            assertTrue(dropped - stop >= TimeUnit.MILLISECONDS.toNanos(BROKER_IDLE_TIMEOUT_MILLIS / 2)
                            && dropped - stop <= TimeUnit.MILLISECONDS.toNanos(BROKER_IDLE_TIMEOUT_MILLIS + 5_000),
                    "dropped " + millis(dropped - stop) + " ms after SIGSTOP; broker idle timeout "
                            + BROKER_IDLE_TIMEOUT_MILLIS);
            // It held requests, and the other gateway answered them once the broker gave them back.
            assertFalse(redelivered.isEmpty(), "the stopped gateway held nothing the broker delivered again; it had"
                    + " started " + startedBeforeStop.size() + "; answered after the stop: "
                    + answeredAfter(requester, startedBeforeStop, stop) + "\n--- stopped\n" + stopped.log());
            assertTrue(redelivered.size() <= CREDIT, redelivered.size() + " delivered again, more than the stopped "
                    + "gateway's credit: " + redelivered);
            assertTrue(firstRedeliveredAnswered >= dropped && firstRedeliveredAnswered < continued,
                    "the requests the stopped gateway held were not answered between the drop and SIGCONT");
            for (String id : redelivered) {
                for (Requester.Answer a : requester.answers().get(id)) {
                    // What the stopped gateway served after the stop had no connection to go to.
                    assertFalse(a.servedBy(stopped.pid()) && a.atNanos() > stop + TimeUnit.SECONDS.toNanos(1),
                            "the stopped gateway answered " + id + " after its stop: " + requester.answers().get(id));
                }
            }
            // Served twice only when the stopped gateway's response got out before the stop and the acceptance
            // of its request did not: a request of the stopped one, delivered again to the other.
            assertTrue(twice.size() <= CREDIT, twice + " served twice, more than the stopped gateway's credit");
            for (Map.Entry<String, Set<String>> e : twice.entrySet()) {
                assertTrue(redelivered.contains(e.getKey()), "served twice, yet not delivered again: " + e);
                assertEquals(2, e.getValue().size(), "served more than twice: " + e);
            }
            assertTrue(reattached != 0, "the continued gateway did not attach again:\n" + stopped.log());
            assertTrue(servingAgain != 0, "the continued gateway served nothing new:\n" + stopped.log());
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (broker.messageCount("orders") != 0) {
                assertTrue(System.nanoTime() < deadline, "left in the queue: " + broker.messageCount("orders"));
                Thread.sleep(100);
            }
        }
    }

    /** Of the requests in {@code started}, those the gateway process {@code pid} answered. */
    private static Set<String> held(Requester requester, Set<String> started, long pid) {
        Set<String> held = new HashSet<>();
        for (String id : started) {
            List<Requester.Answer> answers = requester.answers().get(id);
            if (answers != null) {
                for (Requester.Answer a : answers) {
                    if (a.servedBy(pid)) {
                        held.add(id);
                    }
                }
            }
        }
        return held;
    }

    /** The delivery counts the servlets saw on {@code ids}' answers. */
    private static List<Long> deliveryCounts(Requester requester, Set<String> ids) {
        List<Long> counts = new ArrayList<>();
        for (String id : ids) {
            for (Requester.Answer a : requester.answers().get(id)) {
                counts.add(a.deliveryCount());
            }
        }
        return counts;
    }

    /** The answers to {@code ids} taken after {@code sinceNanos}, for a failure's message. */
    private static String answeredAfter(Requester requester, Set<String> ids, long sinceNanos) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, List<Requester.Answer>> e : requester.answers().entrySet()) {
            if (ids.contains(e.getKey()) && e.getValue().get(e.getValue().size() - 1).atNanos() > sinceNanos) {
                text.append('\n').append(e.getKey()).append(' ').append(e.getValue());
            }
        }
        return text.toString();
    }

    /** Requests the gateway process {@code pid} answered after {@code sinceNanos}. */
    private static Set<String> answeredBy(Requester requester, long pid, long sinceNanos) {
        Set<String> ids = new HashSet<>();
        for (Map.Entry<String, List<Requester.Answer>> e : requester.answers().entrySet()) {
            for (Requester.Answer a : e.getValue()) {
                if (a.servedBy(pid) && a.atNanos() > sinceNanos) {
                    ids.add(e.getKey());
                }
            }
        }
        return ids;
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
