package io.amqpservlet.jetty.internal.exchange;

import java.util.concurrent.atomic.LongAdder;

/**
 * Requests that ended without their servlet's answer reaching the client, counted per factory (or attachment) so that
 * none is lost silently: requests that had expired before they could be served, and responses a servlet finished
 * after the request timeout had already answered 503 for it.
 */
public final class RequestCounters {
    /**
     * Where a connection made without a factory counts: one shared instance, so that no connection carries counters
     * of its own (an idle connection's memory is budgeted, docs/design.md §2).
     */
    public static final RequestCounters UNATTRIBUTED = new RequestCounters();

    public final LongAdder expiredRequests = new LongAdder();
    public final LongAdder lateResponses = new LongAdder();
}
