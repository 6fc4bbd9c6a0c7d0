package io.amqpservlet.jetty.internal.exchange;

/**
 * Where one use of an {@link Exchange} is in its life. The engine thread maps a request and hands it to Jetty; from
 * then on the first of three events hands it back, whichever thread it happens on, and the others find it gone:
 *
 * <pre>
 *            dispatch                 last write of the response
 *   MAPPED ──────────────▶ SERVING ──────────────────────────────▶ ANSWERED ─┐
 *     │                      │  stream failed (no whole response)            │
 *     │                      ├─────────────────────────────────────▶ FAILED ─┤  the engine thread
 *     │                      │  request timeout (a 503 instead)              │  sends and settles,
 *     │                      └─────────────────────────────────────▶ TIMED_OUT┤  then the exchange is
 *     │  refused or expired: answered without a servlet                      │  reused (new generation)
 *     └──────────────────────────────────────────────────────────▶ ANSWERED ─┘
 * </pre>
 *
 * A servlet that writes after the timeout handed the exchange back finds {@code TIMED_OUT}: its response goes nowhere
 * (a late response). Each use of an exchange has a generation of its own, so a holder of an older use (a timer, a
 * stream being recycled) cannot move a newer one.
 */
public enum ExchangeState {
    /** Mapped on the engine thread; not with Jetty (yet). */
    MAPPED,
    /** With Jetty: a servlet is answering it. */
    SERVING,
    /** Its response (or the one-way status) is complete, for the engine thread to send and settle. */
    ANSWERED,
    /** Ended without a whole response: the request is settled so that the client may retry. */
    FAILED,
    /** Its request timeout answered 503 for it: the request is released (in attach mode, accepted). */
    TIMED_OUT;

    private static final ExchangeState[] ALL = values();

    static ExchangeState of(int ordinal) {
        return ALL[ordinal];
    }
}
