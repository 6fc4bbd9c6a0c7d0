package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.jetty.internal.mapping.MappedRequest;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One request message and its answer, seen from the AMQP side: the mapped request, the delivery to settle, and the
 * response once it is complete. Its life is an {@link ExchangeState}; the state and the use's generation share one
 * atomic word, so a hand-back checks both at once.
 *
 * <p>Threads: the engine thread maps the request and hands the exchange to Jetty; the servlet side (or the request
 * timeout) then fills the response half and hands the exchange back through the connection's {@link EngineInbox},
 * which orders those writes before the engine thread reads them. The delivery is touched only on the engine thread.
 *
 * <p><b>Reuse.</b> An exchange and its {@link #stream} go back to their connection's {@link ConnectionReusables}
 * once BOTH the engine thread has settled the request ({@link #engineDone()}) and Jetty has ended the stream
 * ({@link #streamDone()}), and only if it was answered the plain way (no timeout, failure or streaming: those paths
 * keep references that may outlive the request).
 */
public final class Exchange {
    private static final int STATE_BITS = 3;
    private static final int STATE_MASK = (1 << STATE_BITS) - 1;

    // ---------------------------------------------------------------- request (engine thread, before dispatch)
    /** What the request message became; filled by the mapper. */
    final MappedRequest request = new MappedRequest();
    /**
     * The Jetty authentication the request is made by (the connection's user, or the message's own on an attachment
     * that trusts user-id), or null for none; set as the request is mapped.
     */
    Request.AuthenticationState user;
    /** The request delivery; compare {@link #deliveryGeneration} before use, deliveries are pooled. */
    Delivery delivery;
    int deliveryGeneration;
    /** The body of a request that arrives in several frames, handed to the servlet as it comes; else null. */
    RequestBody streamedBody;
    /** The message being streamed in, while it is (engine thread only); null for a message that came whole. */
    StreamedRequest streamedRequest;
    /**
     * The response is sent durable (AMQP 1.0 §3.2.1): the request was, and what holds the response once the request
     * is settled is a broker (attach mode), which must keep it as surely as it kept the request.
     */
    boolean durableResponse;

    // ---------------------------------------------------------------- response (servlet side, then engine thread)
    /** The HTTP status the response carried, or 0 when the exchange failed without one. */
    int status;
    /** The encoded response message, {@code [responseOffset, responseOffset + responseLength)}; null when one-way. */
    byte[] response;
    int responseOffset;
    int responseLength;
    /** The pooled encoder that holds {@link #response}, returned to its pool once the engine has sent it; or null. */
    ResponseEncoder encoder;
    /** The last send's callback: completed on the engine thread once the response is on its way, or failed. */
    private final AtomicReference<Callback> callback = new AtomicReference<>();
    /** Why the exchange ended without a response, or null. */
    Throwable failure;
    /** The response going out in parts while the servlet writes it, or null (engine thread). */
    StreamedResponse streamedResponse;
    /** A streamed response exceeded the client's max-message-size (engine thread). */
    boolean responseTooLarge;
    /**
     * The engine thread has settled the request (engine thread): later response parts are refused. Usually after the
     * hand-back; earlier when a streamed response finds no reply link, so the request is settled while its servlet
     * still writes.
     */
    boolean settled;
    /**
     * The sender aborted the request message (AMQP 1.0 §2.6.14) while the servlet had it (engine thread): the
     * message is discarded as if never sent, so nothing answers it; a broker delivers it again.
     */
    boolean requestAborted;
    /**
     * What the request counts in the byte budget while it is served (engine thread): {@code BudgetShare.EXCHANGE_BYTES},
     * and a whole request's body.
     */
    int countedBytes;

    /** {@code generation << STATE_BITS | state}: one word, so a hand-back checks both at once. */
    private final AtomicInteger lifecycle = new AtomicInteger();
    /** Two owners until reuse: the engine thread (until settled) and Jetty (until the stream ended). */
    private final AtomicInteger owners = new AtomicInteger();
    /** The stream that served this exchange the last time, reused with it; null before the first dispatch. */
    HttpStreamOverAmqp stream;

    /** Engine thread: readies a new or pooled exchange for the request of {@code d}, in a generation of its own. */
    void reset(Delivery d) {
        delivery = d;
        deliveryGeneration = d.generation();
        request.clear();
        user = null;
        streamedBody = null;
        streamedRequest = null;
        durableResponse = false;
        status = 0;
        response = null;
        responseOffset = 0;
        responseLength = 0;
        encoder = null;
        callback.set(null);
        failure = null;
        streamedResponse = null;
        responseTooLarge = false;
        settled = false;
        requestAborted = false;
        countedBytes = 0;
        owners.set(2);
        lifecycle.set(word(generation() + 1, ExchangeState.MAPPED));
    }

    private static int word(int generation, ExchangeState state) {
        return generation << STATE_BITS | state.ordinal();
    }

    /** {@return what the request message became} */
    public MappedRequest request() {
        return request;
    }

    /** The generation of this use of the exchange (see {@link #handBack}). */
    int generation() {
        return lifecycle.get() >>> STATE_BITS;
    }

    /** {@return where this use of the exchange is in its life} */
    public ExchangeState state() {
        return ExchangeState.of(lifecycle.get() & STATE_MASK);
    }

    /** Engine thread: the request goes to Jetty. */
    void serving() {
        lifecycle.set(word(generation(), ExchangeState.SERVING));
    }

    /** Engine thread: answered without a servlet (refused, expired); never dispatched, so no one else holds it. */
    void answeredWithoutServlet(int status) {
        this.status = status;
        lifecycle.set(word(generation(), ExchangeState.ANSWERED));
        owners.set(1); // Jetty never owned it
    }

    /**
     * Hands the exchange, in its use of {@code generation}, back to the engine thread as {@code outcome}: true only
     * for the first of the servlet's last write, a failure and the timeout, and false when the exchange has been
     * recycled since that holder saw it.
     */
    boolean handBack(int generation, ExchangeState outcome) {
        return lifecycle.compareAndSet(word(generation, ExchangeState.SERVING), word(generation, outcome));
    }

    /** Whether the use of {@code generation} ended by its request timeout. */
    boolean timedOut(int generation) {
        return lifecycle.get() == word(generation, ExchangeState.TIMED_OUT);
    }

    /** Whether this use ended by its request timeout (engine thread, after the hand-back). */
    boolean timedOut() {
        return state() == ExchangeState.TIMED_OUT;
    }

    /**
     * The complete response: {@code done} holds the encoded message (null for a one-way request) and goes back to
     * the connection's encoders once the reply link has copied it.
     */
    void answer(int status, ResponseEncoder done) {
        this.status = status;
        if (done != null) {
            response = done.array();
            responseOffset = done.offset();
            responseLength = done.length();
            encoder = done;
        }
    }

    /** The engine thread is done with it; true when it may be reused now. */
    boolean engineDone() {
        return owners.decrementAndGet() == 0 && reusable();
    }

    /** Jetty ended its stream successfully; true when it may be reused now. */
    boolean streamDone() {
        return owners.decrementAndGet() == 0 && reusable();
    }

    /** Only the plain path is reused: the others leave references (parts, sweeps, bodies) that may linger. */
    private boolean reusable() {
        return state() == ExchangeState.ANSWERED && failure == null && streamedResponse == null
                && streamedRequest == null && streamedBody == null;
    }

    void callback(Callback value) {
        callback.set(value);
    }

    /**
     * Takes the last send's callback, once: the engine thread takes it to complete it, a cancelled send takes it
     * to fail it, whichever comes first. {@link Callback#NOOP} when there is none (any more).
     */
    Callback takeCallback() {
        Callback c = callback.getAndSet(null);
        return c == null ? Callback.NOOP : c;
    }

    /** Whether this message asked for a response (has a reply-to). */
    boolean wantsResponse() {
        return request.wantsResponse();
    }

    /** The request's delivery if it is still the one we were given (deliveries are pooled), else null. */
    Delivery liveDelivery() {
        Delivery d = delivery;
        return d.link() != null && d.generation() == deliveryGeneration ? d : null;
    }
}
