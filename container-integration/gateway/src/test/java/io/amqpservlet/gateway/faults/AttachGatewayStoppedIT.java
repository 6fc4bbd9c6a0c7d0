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
 * one is stopped with SIGSTOP for 30 s while it serves requests, then continued with SIGCONT. Its sockets stay open
 * and its kernel keeps acknowledging, so only the broker's idle timeout can tell, and that is the broker's own (the
 * acceptor's {@code amqpIdleTimeout}): what the gateway announces in its open only sets how often the broker sends
 * it empty frames (AMQP 1.0 §2.4.5).
 *
 * <p>With the broker's idle timeout shorter than the stop (10 s), the broker drops the stopped gateway and delivers
 * what it held to the other, which answers it before SIGCONT; once continued, the stopped gateway finds its connection
 * closed, the responses of what it was serving have nowhere to go, and it attaches again and serves new requests.
 * With the broker's default (60 s), longer than the stop, the broker keeps the stopped gateway's consumer, and what
 * it held waits for it: on SIGCONT the gateway's own idle timeout has passed, but it reads the broker's empty frames
 * (in its socket all along) before it judges the silence, keeps the connection and answers what it held, about 30 s
 * late, once each. Either way every request is answered, and a servlet runs twice, or a client gets two answers, only
 * for a request the stopped gateway held when the broker dropped it.
 */
@Timeout(300)
class AttachGatewayStoppedIT {
    private static final int CREDIT = 4;
    private static final long BROKER_IDLE_TIMEOUT_MILLIS = 10_000;
    private static final long GATEWAY_IDLE_TIMEOUT_MILLIS = 10_000;
    private static final long STOPPED_MILLIS = 30_000;
    private static final long REQUEST_TIMEOUT_MILLIS = 4 * STOPPED_MILLIS;
    private static final long SEND_INTERVAL_MILLIS = 100;
    private static final String WORK = "/work?ms=200";
    /** Long enough that a burst of them is still being served when the gateway is stopped. */
    private static final String LONG_WORK = "/work?ms=1000";

    @TempDir
    Path dir;

    /**
     * What one run saw. Times are {@link System#nanoTime()}; 0 for what did not happen.
     *
     * @param requester the client, closed, with every answer it took
     * @param stop SIGSTOP
     * @param kept when the broker last counted both consumers, while the gateway was stopped: the drop came after
     * @param dropped when the broker first counted one consumer left, while the gateway was stopped
     * @param continued SIGCONT
     * @param reattached when the continued gateway logged its second attach
     * @param servingAgain when the first answer the continued gateway served after SIGCONT arrived
     * @param startedBeforeStop what the stopped gateway's servlet had started by the stop
     * @param startedTwice the requests whose servlet ran more than once, on either gateway, and how many times
     * @param stoppedPid the stopped gateway's process
     * @param otherPid the other gateway's process
     * @param stoppedLog what the stopped gateway logged
     */
    private record Run(Requester requester, long stop, long kept, long dropped, long continued, long reattached,
                       long servingAgain, Set<String> startedBeforeStop, Map<String, Integer> startedTwice,
                       long stoppedPid, long otherPid, String stoppedLog) {
        /** What the stopped gateway had started and not answered when it was stopped. */
        Set<String> unansweredAtStop() {
            Set<String> held = new HashSet<>();
            // An answer it sent just before the stop may arrive a little after; none it serves after can before
            // SIGCONT.
            long answeredBy = stop + TimeUnit.SECONDS.toNanos(1);
            for (String id : startedBeforeStop) {
                List<Requester.Answer> answers = requester.answers().get(id);
                if (answers == null || answers.get(0).atNanos() > answeredBy) {
                    held.add(id);
                }
            }
            return held;
        }

        /** Of what the stopped gateway had started, the requests the other answered: delivered again. */
        Set<String> redelivered() {
            return held(requester, startedBeforeStop, otherPid);
        }

        /** Of {@code ids}, how many the gateway process {@code pid} answered. */
        long answeredBy(Set<String> ids, long pid) {
            return ids.stream().filter(id -> requester.answers().get(id).stream().anyMatch(a -> a.servedBy(pid)))
                    .count();
        }

        /** The stopped gateway's lines about a connection it gave up on. */
        List<String> givenUp() {
            List<String> lines = new ArrayList<>();
            for (String line : stoppedLog.split("\n")) {
                if (line.contains("; connecting to ")) {
                    lines.add(line);
                }
            }
            return lines;
        }
    }

    @Test
    void aBrokerIdleTimeoutShorterThanTheStopDropsTheGatewayAndTheOtherAnswersWhatItHeld() throws Exception {
        Run run = run(BROKER_IDLE_TIMEOUT_MILLIS);
        Requester requester = run.requester();
        Set<String> held = run.unansweredAtStop();
        Set<String> redelivered = run.redelivered();
        Map<String, Set<String>> twice = requester.servedTwice();
        long firstAnswered = requester.firstAnswerNanos(held);
        System.out.printf("AttachGatewayStoppedIT (broker idle timeout %d ms): %d requests, %d answers; the"
                        + " broker dropped the stopped gateway %d to %d ms after SIGSTOP; of the %d requests it held"
                        + " %s (delivery counts %s), the other answered the first %d ms after SIGSTOP and all %d"
                        + " ms after; after SIGCONT it attached again in %d ms and served again in %d ms; %d"
                        + " answered twice %s, %d answers delivered again, servlets run twice on %s%n%s%n",
                BROKER_IDLE_TIMEOUT_MILLIS,
                requester.answered().size(), requester.received(), millis(run.kept() - run.stop()),
                millis(run.dropped() - run.stop()),
                held.size(), held, deliveryCounts(requester, held), millis(firstAnswered - run.stop()),
                millis(requester.answeredAllNanos(held) - run.stop()), millis(run.reattached() - run.continued()),
                millis(run.servingAgain() - run.continued()), twice.size(), twice.keySet(),
                requester.deliveredAgain(), run.startedTwice(), String.join("\n", run.givenUp()));

        // The broker ended it, by its own idle timeout: not by the 5 s the gateway announced, nor much later. (The
        // stopped gateway's last frame may precede SIGSTOP by a moment.)
        assertTrue(run.dropped() != 0, "the broker kept the stopped gateway's consumer for the whole stop");
        assertTrue(run.kept() - run.stop() >= TimeUnit.MILLISECONDS.toNanos(BROKER_IDLE_TIMEOUT_MILLIS * 3 / 4)
                        && run.dropped() - run.stop()
                        <= TimeUnit.MILLISECONDS.toNanos(BROKER_IDLE_TIMEOUT_MILLIS + 5_000),
                "dropped " + millis(run.kept() - run.stop()) + " to " + millis(run.dropped() - run.stop())
                        + " ms after SIGSTOP; broker idle timeout "
                        + BROKER_IDLE_TIMEOUT_MILLIS);
        // It held requests, and the other answered each once the broker gave them back, before SIGCONT.
        assertFalse(held.isEmpty(), "the stopped gateway held nothing when it was stopped; it had started "
                + run.startedBeforeStop());
        assertTrue(redelivered.containsAll(held) && redelivered.size() <= CREDIT, "held " + held
                + ", answered by the other " + redelivered + ", credit " + CREDIT);
        for (String id : held) {
            for (Requester.Answer a : requester.answers().get(id)) {
                assertFalse(a.servedBy(run.stoppedPid()), "the stopped gateway answered " + id
                        + " after it was stopped: " + requester.answers().get(id));
                assertTrue(a.atNanos() > run.kept() && a.atNanos() < run.continued(), id + " answered "
                        + millis(a.atNanos() - run.stop()) + " ms after SIGSTOP, the broker still kept the stopped"
                        + " gateway " + millis(run.kept() - run.stop()) + " ms after, SIGCONT after "
                        + STOPPED_MILLIS + " ms");
            }
        }
        assertRanTwiceOnlyWhatWasHeld(run, redelivered);
        // Answered twice only when the stopped gateway's response got out before the stop and the acceptance of
        // its request did not: the broker delivered it again to the other.
        for (Map.Entry<String, Set<String>> e : twice.entrySet()) {
            assertTrue(redelivered.contains(e.getKey()), "answered twice, yet not delivered again: " + e);
            assertEquals(2, e.getValue().size(), "answered more than twice: " + e);
        }
        assertTrue(run.reattached() != 0, "the continued gateway did not attach again:\n" + run.stoppedLog());
        assertTrue(run.servingAgain() != 0, "the continued gateway served nothing new:\n" + run.stoppedLog());
    }

    @Test
    void aBrokerIdleTimeoutLongerThanTheStopKeepsTheGatewayAndWhatItHeldWaitsForIt() throws Exception {
        Run run = run(0); // Artemis's default: 60 s
        Requester requester = run.requester();
        Set<String> held = run.unansweredAtStop();
        Map<String, Set<String>> twice = requester.servedTwice();
        System.out.printf("AttachGatewayStoppedIT (broker idle timeout Artemis's default): %d requests, %d"
                        + " answers; the broker kept the stopped gateway; of the %d requests it held %s, the first"
                        + " was answered %d ms after SIGCONT and all %d ms after (%d by the stopped gateway, %d by"
                        + " the other); it %s; %d answered twice %s, %d answers"
                        + " delivered again, servlets run twice on %s%n%s%n",
                requester.answered().size(), requester.received(), held.size(), held,
                millis(requester.firstAnswerNanos(held) - run.continued()),
                millis(requester.answeredAllNanos(held) - run.continued()), run.answeredBy(held, run.stoppedPid()),
                run.answeredBy(held, run.otherPid()), run.reattached() == 0 ? "kept its connection"
                        : "attached again " + millis(run.reattached() - run.continued()) + " ms after SIGCONT",
                twice.size(),
                twice.keySet(), requester.deliveredAgain(), run.startedTwice(), String.join("\n", run.givenUp()));

        // The gateway's own idle timeout (10 s, 5 s announced) does not make the broker drop it.
        assertEquals(0, run.dropped(), "the broker dropped the stopped gateway "
                + millis(run.dropped() - run.stop()) + " ms after SIGSTOP");
        assertFalse(held.isEmpty(), "the stopped gateway held nothing when it was stopped; it had started "
                + run.startedBeforeStop());
        for (String id : held) {
            assertTrue(requester.answers().get(id).get(0).atNanos() > run.continued(), id + " was answered "
                    + "before SIGCONT: " + requester.answers().get(id));
        }
        // Continued, it reads the broker's empty frames (in its socket all along) before it judges the silence: it
        // keeps the connection and answers what it held itself, once each.
        assertEquals(0, run.reattached(), "the continued gateway attached again:\n" + run.stoppedLog());
        assertTrue(run.givenUp().isEmpty(), "the continued gateway gave its connection up: " + run.givenUp());
        assertEquals(held.size(), run.answeredBy(held, run.stoppedPid()), "of the " + held + " it held, the"
                + " stopped gateway answered " + run.answeredBy(held, run.stoppedPid()));
        assertEquals(Map.of(), run.startedTwice(), "servlets ran twice");
        assertEquals(Map.of(), twice, "answered twice");
    }

    /** A servlet ran twice only on a request the stopped gateway had at the stop, and never three times. */
    private static void assertRanTwiceOnlyWhatWasHeld(Run run, Set<String> held) {
        Set<String> had = new HashSet<>(held);
        had.addAll(run.unansweredAtStop());
        had.addAll(run.redelivered());
        for (Map.Entry<String, Integer> e : run.startedTwice().entrySet()) {
            assertTrue(had.contains(e.getKey()) && e.getValue() == 2, "servlets ran " + e.getValue() + " times on "
                    + e.getKey() + "; the stopped gateway had " + had);
        }
    }

    /**
     * Two gateways serve a steady flow for 3 s; a burst fills both credits; one is stopped for 30 s, continued, and
     * the flow goes on 10 s more; then every request must be answered and the queue empty.
     *
     * @param brokerIdleTimeoutMillis the acceptor's {@code amqpIdleTimeout}; 0 for Artemis's default
     */
    private Run run(long brokerIdleTimeoutMillis) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String uri = "amqp://127.0.0.1:" + port + "/orders";
        ArtemisProcess.Settings settings = new ArtemisProcess.Settings(dir.resolve("broker"), "127.0.0.1", port,
                brokerIdleTimeoutMillis, List.of(), List.of("orders", "replies"));
        // The request timeout (30 s by default) must outlast the stop: the requests the stopped gateway holds are
        // older than that on SIGCONT, and which comes first there, their 503 or the idle timeout's close, is a race.
        String[] options = {"--attach-credit", "" + CREDIT, "--attach-idle-timeout", "" + GATEWAY_IDLE_TIMEOUT_MILLIS,
                "--request-timeout", "" + REQUEST_TIMEOUT_MILLIS};
        try (ArtemisProcess broker = ArtemisProcess.start(settings);
             GatewayProcess stopped = GatewayProcess.start(dir, "gateway-stopped", uri, options);
             GatewayProcess other = GatewayProcess.start(dir, "gateway-other", uri, options);
             Requester requester = new Requester("127.0.0.1", port, "orders", "replies")) {
            stopped.awaitLog("attached to broker", 60_000);
            other.awaitLog("attached to broker", 60_000);
            requester.connect();
            Set<String> ids = new HashSet<>();
            int next = 0;
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
            Set<String> startedBeforeStop = new HashSet<>(stopped.started());
            long kept = stop;
            long dropped = 0;
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
                    if (continued == 0 && dropped == 0) {
                        long asked = System.nanoTime();
                        long consumers = broker.consumerCount("orders");
                        if (consumers == 2) {
                            kept = asked;
                        } else if (consumers == 1) {
                            dropped = System.nanoTime();
                        }
                    }
                    if (continued != 0 && reattached == 0 && stopped.logLines("attached to broker").size() >= 2) {
                        reattached = System.nanoTime();
                    }
                }
                requester.send("r" + next, WORK);
                ids.add("r" + next++);
                assertTrue(requester.receive(SEND_INTERVAL_MILLIS) >= 0, "the client's connection failed");
                if (continued != 0 && servingAgain == 0 && !answeredBy(requester, stopped.pid(), continued).isEmpty()) {
                    servingAgain = requester.lastAnswerNanos();
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!requester.answered().containsAll(ids)) {
                assertTrue(System.nanoTime() < deadline, (ids.size() - requester.answered().size())
                        + " requests not answered\n--- stopped\n" + stopped.log() + "\n--- other\n" + other.log()
                        + "\n--- broker\n" + broker.logTail());
                requester.receive(200);
            }
            if (reattached == 0 && stopped.logLines("attached to broker").size() >= 2) {
                reattached = System.nanoTime();
            }
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (broker.messageCount("orders") != 0) {
                assertTrue(System.nanoTime() < deadline, "left in the queue: " + broker.messageCount("orders"));
                Thread.sleep(100);
            }
            return new Run(requester, stop, kept, dropped, continued, reattached, servingAgain, startedBeforeStop,
                    GatewayProcess.ranMoreThanOnce(stopped, other), stopped.pid(), other.pid(), stopped.log());
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
