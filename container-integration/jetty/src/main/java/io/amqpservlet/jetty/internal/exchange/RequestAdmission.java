package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.mapping.MappedRequest;

/**
 * Whether a request goes to a servlet, and if not, how it is answered: one decision for a message that came whole and
 * for one whose body streams in (decided once its header sections are in, before any servlet sees it). The outcomes
 * of docs/design.md §3 and docs/mapping.md, "Expiry":
 * <ul>
 *   <li>the server is stopping, or its byte budget is used up: {@link Verdict#RELEASE released}, so the client may
 *   send it again (here once the server is back or has room, or elsewhere);</li>
 *   <li>the message is no HTTP request (no method, a bad target, an unreadable body): {@link Verdict#REFUSE answered}
 *   with the mapper's 4xx or 505, without a servlet, as an HTTP server answers a bad request line;</li>
 *   <li>its expiry has passed: {@link Verdict#EXPIRE answered 504} without a servlet, or rejected when one-way;</li>
 *   <li>the client is not taking its responses (its reply link buffers too many, or it has not settled as many as
 *   the engine keeps): released, before any servlet acts
 *   on it (AMQP 1.0 §3.4.5);</li>
 *   <li>otherwise {@link Verdict#SERVE served}.</li>
 * </ul>
 * The engine thread asks; {@link #stop()} may come from any thread.
 */
final class RequestAdmission {
    /** What becomes of a request. */
    enum Verdict {
        SERVE,
        RELEASE,
        REFUSE,
        EXPIRE
    }

    private final BudgetShare budget;
    /** A graceful stop has begun: requests that arrive from now on are released. */
    private volatile boolean stopping;

    RequestAdmission(BudgetShare budget) {
        this.budget = budget;
    }

    /** Any thread: the server is stopping gracefully; requests that arrive from now on are released. */
    void stop() {
        stopping = true;
    }

    boolean stopping() {
        return stopping;
    }

    /**
     * Whether a new request message may be read at all: false while stopping or over the byte budget, so that it is
     * released before anything of it is mapped or kept.
     */
    boolean takesRequests() {
        return !stopping && budget.takesRequests();
    }

    /** The verdict on a mapped request; {@code handler} says whether its reply link has room. */
    Verdict admit(Exchange exchange, ServingHandler handler, Engine engine) {
        if (!takesRequests()) {
            return Verdict.RELEASE; // a streamed request's header sections may have taken a while
        }
        MappedRequest request = exchange.request;
        if (request.refusedStatus() != 0) {
            return Verdict.REFUSE;
        }
        long expiresAt = request.expiresAtMillis();
        if (expiresAt != 0 && System.currentTimeMillis() >= expiresAt) {
            return Verdict.EXPIRE;
        }
        if (handler.replyBufferFull(engine, exchange)) {
            return Verdict.RELEASE;
        }
        return Verdict.SERVE;
    }
}
