package io.amqpservlet.jetty.internal.log;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * The AMQP errors this side sent its peers, counted by where they went ({@link Scope}: a connection's close, a
 * session's end, a link's detach or refusal) and by condition ({@code amqp:decode-error}, ...): what an operator
 * reads to see which errors a listener's clients, or an attachment's broker, meet, and how often, without reading
 * the log. One per factory (its listener connections) and one per broker attachment (its connections to brokers);
 * any thread counts. Errors are rare next to requests, so counting one may allocate.
 *
 * <p>The conditions are the server's own, not the peers': at most {@value #MAX_CONDITIONS} are counted apart per
 * scope, and any beyond under {@value #OTHER} (none of ours comes near).
 */
public final class ErrorsSent {
    /** Where an error went. */
    public enum Scope {
        /** The close of a connection. */
        CONNECTION,
        /** The end of a session. */
        SESSION,
        /** The detach of a link, or the refusal of a client's attach. */
        LINK;

        /** {@return the scope's name in lower case, as meters and JMX show it} */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * {@return the scope whose {@link #tag()} is {@code tag}}
         *
         * @throws IllegalArgumentException for no scope's tag
         */
        public static Scope ofTag(String tag) {
            for (Scope scope : values()) {
                if (scope.tag().equals(tag)) {
                    return scope;
                }
            }
            throw new IllegalArgumentException("no scope " + tag + ": connection, session or link");
        }
    }

    /** Conditions counted apart per scope at most. */
    public static final int MAX_CONDITIONS = 32;
    /** What any condition beyond {@link #MAX_CONDITIONS} is counted as. */
    public static final String OTHER = "other";

    @SuppressWarnings("unchecked")
    private final ConcurrentHashMap<String, LongAdder>[] counts = new ConcurrentHashMap[Scope.values().length];
    private final CopyOnWriteArrayList<BiConsumer<Scope, String>> watchers = new CopyOnWriteArrayList<>();

    public ErrorsSent() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new ConcurrentHashMap<>();
        }
    }

    /** Counts one error of {@code condition} sent to a peer in {@code scope}. */
    public void sent(Scope scope, String condition) {
        ConcurrentHashMap<String, LongAdder> ofScope = counts[scope.ordinal()];
        LongAdder count = ofScope.get(condition);
        if (count == null) {
            count = firstOf(scope, ofScope.size() < MAX_CONDITIONS ? condition : OTHER);
        }
        count.increment();
    }

    /** The first error of its kind: its count, made once; the watchers hear of it before it is counted. */
    private LongAdder firstOf(Scope scope, String key) {
        boolean[] made = new boolean[1];
        LongAdder count = counts[scope.ordinal()].computeIfAbsent(key, k -> {
            made[0] = true;
            return new LongAdder();
        });
        if (made[0]) {
            for (BiConsumer<Scope, String> watcher : watchers) {
                watcher.accept(scope, key);
            }
        }
        return count;
    }

    /** {@return how many errors of {@code condition} went in {@code scope}; 0 for one never sent} */
    public long count(Scope scope, String condition) {
        LongAdder count = counts[scope.ordinal()].get(condition);
        return count == null ? 0 : count.sum();
    }

    /**
     * {@return the errors sent in {@code scope} so far, by condition, in the conditions' order}: a condition shows once
     * its first error is counted, after the watchers have heard of it (so a meter is there for whatever this shows).
     */
    public Map<String, Long> byCondition(Scope scope) {
        Map<String, Long> all = new TreeMap<>();
        counts[scope.ordinal()].forEach((condition, count) -> {
            long sum = count.sum();
            if (sum > 0) {
                all.put(condition, sum);
            }
        });
        return all;
    }

    /**
     * Calls {@code watcher} with each scope and condition an error was sent in so far, then with each new one as
     * its first error is sent (on the thread that sends it, before that error is counted). A kind sent while the
     * watcher is added may be reported twice.
     */
    public void watch(BiConsumer<Scope, String> watcher) {
        watchers.add(watcher);
        for (Scope scope : Scope.values()) {
            for (String condition : counts[scope.ordinal()].keySet()) {
                watcher.accept(scope, condition);
            }
        }
    }
}
