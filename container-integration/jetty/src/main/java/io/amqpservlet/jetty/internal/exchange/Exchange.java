package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.AmqpBody;
import io.amqpservlet.jetty.AmqpRequestAttributes;
import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.mapping.RequestMapper;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.types.messaging.MessageId;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.util.Callback;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One request message and its answer, seen from the AMQP side: what the connection needs to route the response
 * (reply-to, correlation id) and to settle the request delivery, plus the response once it is complete.
 *
 * <p>Threads: the engine thread fills the request half ({@link RequestMapper}) before the exchange is handed
 * to Jetty; the servlet side then fills the response half and hands the exchange back through the connection's
 * queue ({@link AmqpConnection#complete(Exchange)}), which orders those writes before the engine thread reads
 * them. The delivery and link are touched only on the engine thread.
 *
 * <p><b>Reuse.</b> An exchange and its {@link #stream} go back to their connection's pool once BOTH the engine
 * thread has settled the request ({@link #engineDone()}) and Jetty has ended the stream ({@link #streamDone()}),
 * and only if nothing unusual happened (no timeout, failure or streaming: those paths keep references that may
 * outlive the request). Anything that may still hold a stale reference (the request timeout) claims the exchange
 * through {@link #handBack(int)} with the generation it saw: a recycled exchange has a new generation, so the
 * claim fails instead of touching the next request.
 */
public final class Exchange {
    // ---------------------------------------------------------------- request (engine thread, before dispatch)
    /** The request delivery; compare {@link #deliveryGeneration} before use, deliveries are pooled. */
    public Delivery delivery;
    public int deliveryGeneration;
    /** The request's reply-to address (UTF-8), or null for a one-way request. */
    public byte[] replyTo;
    /** The reply-to is {@code $me}: the response goes on {@link #pairedReplyLink} (link pairing). */
    public boolean replyToPaired;
    /** For {@link #replyToPaired}: the other half of the request link's pair when the request arrived, or null. */
    public Link pairedReplyLink;
    /** The request's correlation-id, else its message-id, with its AMQP type (WD06 §4); null kind when neither. */
    public final MessageId correlationId = new MessageId();
    public MetaData.Request request;
    /** The whole body, when the message arrived whole; else null and the body streams in {@link #streamedBody}. */
    public byte[] body;
    /** The body of a request that arrives in several frames, handed to the servlet as it comes; else null. */
    public RequestBody streamedBody;
    /** The message being streamed in, while it is (engine thread only); null for a message that came whole. */
    public StreamedRequest streamedRequest;
    /** Set when the request timed out: the response is a 503 and the request delivery is released. */
    public volatile boolean timedOut;
    /** The values of the {@link AmqpRequestAttributes}; null (or 0) when the message has no such field. */
    public Object messageIdAttribute;
    public Object correlationIdAttribute;
    public String linkAddress;
    public long deliveryCount;
    /**
     * When the request expires, in milliseconds since the epoch (its absolute-expiry-time, else creation-time plus
     * ttl); 0 when it names no expiry. An expired request is answered 504 without a servlet (docs/mapping.md).
     */
    public long expiresAtMillis;
    /** The request's typed body ({@link AmqpBody#REQUEST_VALUE}), or null. */
    public Object typedValue;
    /** The body reached the servlet as JSON made from an AMQP value: a JSON response goes back as an amqp-value. */
    public boolean jsonBody;
    /** Set when the message cannot become an HTTP request: the status to answer with, without a servlet. */
    public int rejectStatus;
    public String rejectReason;

    // ---------------------------------------------------------------- response (servlet side, then engine thread)
    /** The HTTP status the response carried, or 0 when the exchange failed without one. */
    public int status;
    /** The encoded response message, {@code [responseOffset, responseOffset + responseLength)}; null when one-way. */
    public byte[] response;
    public int responseOffset;
    public int responseLength;
    /** The pooled encoder that holds {@link #response}, returned to its pool once the engine has sent it; or null. */
    public ResponseEncoder encoder;
    /** The last send's callback: completed on the engine thread once the response is on its way, or failed. */
    private final AtomicReference<Callback> callback = new AtomicReference<>();
    /** Why the exchange ended without a response (the stream failed), or null. */
    public Throwable failure;
    /** The response going out in parts while the servlet writes it, or null (engine thread). */
    public StreamedResponse streamedResponse;
    /** A streamed response exceeded the client's max-message-size (engine thread). */
    public boolean responseTooLarge;
    /** The engine thread has settled this exchange: later response parts are refused (engine thread). */
    public boolean completedOnEngine;
    /** {@code generation * 2}, plus 1 once handed back: one atomic word, so a claim checks both at once. */
    private final AtomicInteger handBackState = new AtomicInteger();
    /** Two owners until reuse: the engine thread (until settled) and Jetty (until the stream ended). */
    private final AtomicInteger owners = new AtomicInteger();
    /** The stream that served this exchange the last time, reused with it; null before the first dispatch. */
    public HttpStreamOverAmqp stream;

    /** Engine thread: readies a new or pooled exchange for the request of {@code delivery}. */
    public void reset(Delivery d) {
        delivery = d;
        deliveryGeneration = d.generation();
        replyTo = null;
        replyToPaired = false;
        if (pairedReplyLink != null) {
            pairedReplyLink = null; // most exchanges never hold one: skip the reference store
        }
        correlationId.clear();
        request = null;
        body = null;
        streamedBody = null;
        streamedRequest = null;
        timedOut = false;
        messageIdAttribute = null;
        correlationIdAttribute = null;
        linkAddress = null;
        deliveryCount = 0;
        expiresAtMillis = 0;
        typedValue = null;
        jsonBody = false;
        rejectStatus = 0;
        rejectReason = null;
        status = 0;
        response = null;
        responseOffset = 0;
        responseLength = 0;
        encoder = null;
        callback.set(null);
        failure = null;
        streamedResponse = null;
        responseTooLarge = false;
        completedOnEngine = false;
        owners.set(2);
        handBackState.set((generation() + 1) * 2); // not handed back, in a generation no stale holder knows
    }

    /** The generation of this use of the exchange (see {@link #handBack(int)}). */
    public int generation() {
        return handBackState.get() >>> 1;
    }

    /** The engine thread is done with it; true when it may be reused now. */
    public boolean engineDone() {
        return owners.decrementAndGet() == 0 && reusable();
    }

    /** Jetty ended its stream successfully; true when it may be reused now. */
    public boolean streamDone() {
        return owners.decrementAndGet() == 0 && reusable();
    }

    /** Only the plain path is reused: the others leave references (parts, sweeps, bodies) that may linger. */
    private boolean reusable() {
        return !timedOut && failure == null && streamedResponse == null && streamedRequest == null
                && streamedBody == null;
    }

    public void callback(Callback value) {
        callback.set(value);
    }

    /**
     * Takes the last send's callback, once: the engine thread takes it to complete it, a cancelled send takes it
     * to fail it, whichever comes first. {@link Callback#NOOP} when there is none (any more).
     */
    public Callback takeCallback() {
        Callback c = callback.getAndSet(null);
        return c == null ? Callback.NOOP : c;
    }

    /** Whether this message asked for a response (has a reply-to). */
    public boolean wantsResponse() {
        return replyTo != null;
    }

    /**
     * Marks the exchange, in its use of {@code generation}, as handed back to the engine thread; true only the
     * first time, and false when the exchange has been recycled since that holder saw it.
     */
    public boolean handBack(int generation) {
        return handBackState.compareAndSet(generation * 2, generation * 2 + 1);
    }
}
