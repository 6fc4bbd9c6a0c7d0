package io.amqpservlet.jetty.internal.budget;

/**
 * The connections in their handshake, oldest first: one list server-wide and one per {@link SourceAddress}, both
 * threaded through the {@link Handshake}s, so finding the oldest, adding and removing are constant time. It answers
 * who goes first when a handshake limit is full: the oldest handshake that has stalled (lasted
 * {@link ServerBudget#HANDSHAKE_STALLED_MILLIS} or more), never a newer one. A handshake between live peers takes a
 * few round trips, so what is that old is a peer that stopped talking (or a refused connection that does not
 * answer our close).
 *
 * <p>Guarded by the budget's lock.
 */
final class HandshakeQueue {
    /** One connection in its handshake, while it is: made when it starts, dropped when it ends. */
    static final class Handshake {
        final BudgetShare share;
        final SourceAddress source;
        final long startMillis;
        /** Neighbours in the server-wide queue. */
        Handshake older;
        Handshake newer;
        /** Neighbours among the handshakes of the same source address. */
        Handshake olderHere;
        Handshake newerHere;

        Handshake(BudgetShare share, SourceAddress source, long startMillis) {
            this.share = share;
            this.source = source;
            this.startMillis = startMillis;
        }
    }

    private Handshake oldest;
    private Handshake newest;

    /** Adds {@code h} as the newest handshake, server-wide and of its source address (if it has one). */
    void add(Handshake h) {
        h.older = newest;
        if (newest != null) {
            newest.newer = h;
        } else {
            oldest = h;
        }
        newest = h;
        SourceAddress source = h.source;
        if (source != null) {
            h.olderHere = source.newestHandshake;
            if (source.newestHandshake != null) {
                source.newestHandshake.newerHere = h;
            } else {
                source.oldestHandshake = h;
            }
            source.newestHandshake = h;
        }
    }

    /** Removes {@code h}, which is in the queue. */
    void remove(Handshake h) {
        if (h.older != null) {
            h.older.newer = h.newer;
        } else {
            oldest = h.newer;
        }
        if (h.newer != null) {
            h.newer.older = h.older;
        } else {
            newest = h.older;
        }
        SourceAddress source = h.source;
        if (source != null) {
            if (h.olderHere != null) {
                h.olderHere.newerHere = h.newerHere;
            } else {
                source.oldestHandshake = h.newerHere;
            }
            if (h.newerHere != null) {
                h.newerHere.olderHere = h.olderHere;
            } else {
                source.newestHandshake = h.olderHere;
            }
        }
    }

    /** {@return the oldest handshake if it has stalled at {@code nowMillis}, else null} */
    Handshake oldestStalled(long nowMillis) {
        return stalled(oldest, nowMillis);
    }

    /** {@return the oldest handshake of {@code source} if it has stalled at {@code nowMillis}, else null} */
    static Handshake oldestStalledOf(SourceAddress source, long nowMillis) {
        return stalled(source.oldestHandshake, nowMillis);
    }

    private static Handshake stalled(Handshake h, long nowMillis) {
        return h != null && nowMillis - h.startMillis >= ServerBudget.HANDSHAKE_STALLED_MILLIS ? h : null;
    }
}
