package io.amqpservlet.gateway.faults;

import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The client side of the fault tests, through the broker only: sends durable requests to the request queue, each
 * with its own message-id and the reply queue as reply-to, waits for the broker to accept each (so it is in the
 * journal), and takes the answers from the reply queue. It keeps, per request id, the serving token of every answer
 * ({@link ServingTokenServlet}): two answers with one token are one serving the broker delivered twice, two tokens
 * are a request served twice. Single-threaded; after the broker went away, {@link #connect()} again.
 */
final class Requester implements AutoCloseable {
    private static final long WAIT_SECONDS = 30;

    /**
     * One answer taken.
     *
     * @param serving its serving token ({@code PID-N}: the gateway process and its count)
     * @param deliveryCount the request's delivery count as the servlet saw it: above 0 when the broker delivered it
     *     again
     * @param atNanos when it was taken ({@link System#nanoTime()})
     */
    record Answer(String serving, long deliveryCount, long atNanos) {
        /** {@return whether the gateway process {@code pid} served it} */
        boolean servedBy(long pid) {
            return serving.startsWith(pid + "-");
        }
    }

    private final Client client = Client.create();
    private final String host;
    private final int port;
    private final String requestQueue;
    private final String replyQueue;
    private Connection connection;
    private Sender sender;
    private Receiver receiver;
    /** Request id → each answer, in arrival order. */
    private final Map<String, List<Answer>> answers = new LinkedHashMap<>();
    private int received;
    private long lastAnswerNanos;

    Requester(String host, int port, String requestQueue, String replyQueue) {
        this.host = host;
        this.port = port;
        this.requestQueue = requestQueue;
        this.replyQueue = replyQueue;
    }

    /** Connects (again), with a sender to the request queue and a receiver on the reply queue. */
    void connect() throws Exception {
        if (connection != null) {
            connection.close();
        }
        connection = client.connect(host, port, new ConnectionOptions());
        sender = connection.openSender(requestQueue);
        sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        receiver = connection.openReceiver(replyQueue);
        receiver.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** Sends request {@code id} for {@code to} and waits until the broker has accepted it. */
    void send(String id, String to) throws Exception {
        Tracker t = sender.send(Message.create("request " + id).durable(true).to(to).subject("GET").messageId(id)
                .replyTo(replyQueue));
        t.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        if (t.remoteState() == null || t.remoteState().getType() != DeliveryState.Type.ACCEPTED) {
            throw new AssertionError("the broker did not accept request " + id + ": " + t.remoteState());
        }
    }

    /**
     * Takes the answers that arrive within {@code millis} (returning early once one is there and nothing more comes
     * at once).
     *
     * @return the number taken; -1 when the connection failed (the broker went away)
     */
    int receive(long millis) {
        int n = 0;
        try {
            Delivery d = receiver.receive(millis, TimeUnit.MILLISECONDS);
            while (d != null) {
                Message<Object> m = d.message();
                d.accept();
                if (!"200".equals(m.subject())) {
                    throw new AssertionError("answer " + m.correlationId() + " has status " + m.subject());
                }
                lastAnswerNanos = System.nanoTime();
                answers.computeIfAbsent(String.valueOf(m.correlationId()), id -> new ArrayList<>())
                        .add(new Answer(String.valueOf(m.property("x-serving")),
                                Long.parseLong(String.valueOf(m.property("x-delivery-count"))), lastAnswerNanos));
                received++;
                n++;
                d = receiver.tryReceive();
            }
            return n;
        } catch (ClientException e) {
            return n > 0 ? n : -1;
        }
    }

    /** Request ids with at least one answer. */
    Set<String> answered() {
        return answers.keySet();
    }

    /** Answers taken, duplicates included. */
    int received() {
        return received;
    }

    /** When the last answer arrived ({@link System#nanoTime()}); 0 before the first. */
    long lastAnswerNanos() {
        return lastAnswerNanos;
    }

    /** When the first of {@code ids} got its first answer ({@link System#nanoTime()}); 0 when none has one. */
    long firstAnswerNanos(Set<String> ids) {
        long first = 0;
        for (String id : ids) {
            List<Answer> a = answers.get(id);
            if (a != null && (first == 0 || a.get(0).atNanos() < first)) {
                first = a.get(0).atNanos();
            }
        }
        return first;
    }

    /** When the last of {@code ids} got its first answer ({@link System#nanoTime()}); 0 when one has none yet. */
    long answeredAllNanos(Set<String> ids) {
        long last = 0;
        for (String id : ids) {
            List<Answer> a = answers.get(id);
            if (a == null) {
                return 0;
            }
            last = Math.max(last, a.get(0).atNanos());
        }
        return last;
    }

    /** Request ids served more than once: answers with two serving tokens or more. */
    Map<String, Set<String>> servedTwice() {
        Map<String, Set<String>> twice = new LinkedHashMap<>();
        for (Map.Entry<String, List<Answer>> e : answers.entrySet()) {
            Set<String> servings = servings(e.getValue());
            if (servings.size() > 1) {
                twice.put(e.getKey(), servings);
            }
        }
        return twice;
    }

    /** Answers the broker delivered again: the same serving of the same request taken more than once. */
    int deliveredAgain() {
        int again = 0;
        for (List<Answer> a : answers.values()) {
            again += a.size() - servings(a).size();
        }
        return again;
    }

    /** Every answer taken, by request id, in arrival order; still there after {@link #close()}. */
    Map<String, List<Answer>> answers() {
        return answers;
    }

    private static Set<String> servings(List<Answer> answers) {
        Set<String> servings = new HashSet<>();
        for (Answer a : answers) {
            servings.add(a.serving());
        }
        return servings;
    }

    @Override
    public void close() {
        client.close();
    }
}
