package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.AmqpBody;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.internal.mapping.MappedRequest;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import io.amqpservlet.protocol.json.JsonToAmqp;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.CyclicTimeouts;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeoutException;

/**
 * Jetty's view of one AMQP request/response exchange: the {@link HttpStream} under an {@link HttpChannel}, as
 * HTTP/2's stream is one of many on its connection.
 *
 * <p>Request content: a message that arrived whole has its body as one last {@link Content.Chunk}, always
 * available, so {@link #demand()} only has to say so; a message of several frames streams its body in through an
 * {@link RequestBody}, which calls demand back as the engine thread brings bytes. Response: each
 * {@link #send} appends to an AMQP message being encoded on the calling (servlet) thread (properties and
 * application-properties on commit, the content buffers appended to one data section); the last send hands the finished exchange
 * to the connection, whose engine thread sends it on the reply link and settles the request. One-way requests (no
 * reply-to) encode nothing: only the status matters, for the outcome.
 *
 * <p>Jetty calls the methods of one stream one at a time (its channel serialises them), but not always on the same
 * thread, so the little mutable state is guarded by the stream's monitor or published through the exchange queue.
 */
final class HttpStreamOverAmqp implements HttpStream, CyclicTimeouts.Expirable, Runnable {
    private static final VarHandle EXPIRE_NANO_TIME;

    static {
        try {
            EXPIRE_NANO_TIME = MethodHandles.lookup().findVarHandle(HttpStreamOverAmqp.class, "expireNanoTime", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The request whose handler this thread is running, for {@link RequestAttributesCustomizer}. */
    private static final ThreadLocal<MappedRequest> SERVED = new ThreadLocal<>();

    private final ExchangeDispatcher dispatcher;

    private final Exchange exchange;
    /** Jetty's task that runs the request's handler, until {@link #run()} runs it. */
    private Runnable handle;
    private HttpChannel channel;
    private long idNumber;
    /** The authentication the request is made by, or null; see {@link #userOf}. */
    private Request.AuthenticationState user;
    private Content.Chunk chunk;
    private MetaData.Response response;
    private ResponseEncoder encoder;
    private volatile boolean committed;
    /** A response with a Content-Length streams once this much of it is buffered (about a frame). */
    static final int STREAM_KNOWN_LENGTH_AFTER_BYTES = 64 * 1024;
    private boolean streaming;
    /** The request came as JSON made from an AMQP value and the response is JSON: it goes back as an amqp-value. */
    private boolean jsonToValue;
    private long declaredLength = -1;
    private long streamedBodyBytes;
    private volatile long idleTimeoutMillis;
    /**
     * When the request times out ({@link NanoTime}), {@link Long#MAX_VALUE} for never (no timeout, or already timed
     * out); set by {@link #init}, swapped to never by the one {@link #timeOutIfDue} that times the request out.
     */
    private volatile long expireNanoTime = Long.MAX_VALUE;
    /**
     * The exchange's generation this stream serves (see {@link Exchange#handBack}); written last by
     * {@link #init}, read first by the timeout check, so a check that sees it sees that request's expiry.
     */
    private volatile int generation;

    /** A stream for {@code exchange}, and for its later uses when the exchange is pooled. */
    HttpStreamOverAmqp(ExchangeDispatcher dispatcher, Exchange exchange) {
        this.dispatcher = dispatcher;
        this.exchange = exchange;
    }

    /** Engine thread: readies this stream for the exchange's current request, on {@code channel}, made by {@code user}. */
    void init(HttpChannel channel, long idNumber, Request.AuthenticationState user) {
        this.channel = channel;
        this.idNumber = idNumber;
        this.user = user;
        byte[] body = exchange.request.body();
        if (exchange.streamedBody == null) {
            this.chunk = body.length == 0 ? Content.Chunk.EOF : Content.Chunk.from(ByteBuffer.wrap(body), true);
        } else {
            this.chunk = null;
        }
        response = null;
        encoder = null;
        committed = false;
        streaming = false;
        jsonToValue = false;
        declaredLength = -1;
        streamedBodyBytes = 0;
        this.idleTimeoutMillis = dispatcher.streamIdleTimeoutMillis();
        long timeoutMillis = dispatcher.settings().requestTimeoutMillis();
        this.expireNanoTime = timeoutMillis > 0 ? CyclicTimeouts.Expirable.calcExpireNanoTime(timeoutMillis)
                : Long.MAX_VALUE;
        this.generation = exchange.generation();
    }

    @Override
    public long getExpireNanoTime() {
        return expireNanoTime;
    }

    /**
     * Scheduler thread (the connection's {@link ActiveStreams}): times the request out if its expiry has come.
     * The generation is read first: if the stream has been reused since, the claim in {@link #timedOut(int)} fails
     * rather than touching the new request (whose expiry is still ahead, so it is not swapped away here).
     */
    void timeOutIfDue() {
        int g = generation;
        long expire = expireNanoTime;
        if (expire != Long.MAX_VALUE && NanoTime.isBeforeOrSame(expire, NanoTime.now())
                && EXPIRE_NANO_TIME.compareAndSet(this, expire, Long.MAX_VALUE)) {
            timedOut(g);
        }
    }

    HttpChannel channel() {
        return channel;
    }

    /**
     * Any thread: the authentication of the request whose {@link #getId() id} is {@code requestId} while this stream
     * serves it, else null. The id is read again after the user, so a stream reused for a later request in between
     * never lends that request's user to the earlier one.
     */
    Request.AuthenticationState userOf(long requestId) {
        if (idNumber != requestId) {
            return null;
        }
        Request.AuthenticationState u = user;
        return idNumber == requestId ? u : null;
    }

    @Override
    public String getId() {
        return Long.toString(idNumber); // made when asked (rarely), not per request
    }

    @Override
    public Content.Chunk read() {
        RequestBody streamed = exchange.streamedBody;
        synchronized (this) {
            if (streamed == null || chunk != null) {
                Content.Chunk c = chunk;
                chunk = Content.Chunk.next(c);
                return c;
            }
        }
        return streamed.read();
    }

    @Override
    public void demand() {
        RequestBody streamed = exchange.streamedBody;
        if (streamed != null && !hasLocalChunk()) {
            streamed.demand(channel); // called back when the engine thread brings more
            return;
        }
        // The whole body is already here: content is always available. Run the demand callback on the executor
        // rather than here, so a reader that demands from its callback does not recurse.
        Runnable task = channel.onContentAvailable();
        if (task != null) {
            dispatcher.execute(task);
        }
    }

    @Override
    public void prepareResponse(HttpFields.Mutable headers) {
        // Nothing protocol-specific: AMQP has no connection-level headers.
    }

    @Override
    public void send(MetaData.Request request, MetaData.Response response, boolean last, ByteBuffer content,
                     Callback callback) {
        boolean wantsResponse = exchange.wantsResponse();
        ResponsePart part = null;
        boolean ended = false;
        synchronized (this) {
            if (response != null) {
                if (HttpStatus.isInterim(response.getStatus())) {
                    // 1xx (100-continue, 103 hints) have no AMQP form: the client already sent the whole body.
                    callback.succeeded();
                    return;
                }
                this.response = response;
                committed = true;
                if (wantsResponse) {
                    encoder = dispatcher.reusables().encoder();
                    jsonToValue = exchange.request.jsonBody() && isJson(response.getHttpFields());
                    encoder.begin(response.getStatus(), response.getHttpFields(), exchange.request.replyTo(),
                            exchange.request.correlationId(), request == null ? HttpVersion.HTTP_1_1 : request.getHttpVersion(),
                            jsonToValue || responseValue() != null, exchange.durableResponse);
                }
            }
            if (this.response == null) {
                callback.failed(new IllegalStateException("content sent before the response was committed"));
                return;
            }
            if (streaming) {
                part = streamedPart(content, last, callback);
                if (part == null) {
                    return; // the callback has failed
                }
            } else {
                if (encoder != null && !HttpMethod.HEAD.is(request.getMethod())) {
                    encoder.data(content); // copied now: the buffer is the caller's again once the callback completes
                }
                if (content != null) {
                    content.position(content.limit()); // written, as far as Jetty is concerned (HEAD, one-way: dropped)
                }
                if (!last) {
                    part = encoder == null || holdForValue() ? null : startStreaming(callback);
                    if (part == null) {
                        callback.succeeded();
                        return;
                    }
                } else {
                    ResponseEncoder done = encoder;
                    encoder = null;
                    if (done != null && !endBody(done, request, callback)) {
                        return; // the callback has failed
                    }
                    // Claim the exchange before touching its response half: a timeout (scheduler thread) that
                    // claimed it first has written its own 503 there, which the engine thread may be sending.
                    if (!exchange.handBack(generation, ExchangeState.ANSWERED)) {
                        dispatcher.reusables().release(done); // no one else has seen it
                        lateResponse(); // the timeout's 503 answered instead
                        ended = true;
                    } else {
                        exchange.answer(this.response.getStatus(), done);
                    }
                }
            }
        }
        if (part != null) {
            dispatcher.inbox().responsePart(part); // its callback completes once the reply link has taken it
            return;
        }
        if (ended) {
            callback.failed(new IllegalStateException("the exchange already ended"));
            return;
        }
        dispatcher.inbox().complete(exchange);
        // The whole response is in our encoder (the caller's buffers are free) and the exchange is the engine's:
        // the last send is done as far as Jetty is concerned, as a socket write is once the kernel has the bytes.
        // Completing it here, rather than from the engine pass that sends it, spares this thread a park whenever
        // another thread holds the engine. What the engine then meets (the reply link gone, the connection closed)
        // is settled on the AMQP side as before; Jetty's request cycle has ended by then.
        callback.succeeded();
    }

    /**
     * Finishes the message's body: the handler's typed value ({@link AmqpBody#RESPONSE_VALUE}), the JSON written
     * turned into an amqp-value ({@link #jsonToValue}), or the bytes written as one data section. False when the
     * typed value cannot be encoded: {@code callback} has failed, and the exchange ends as failed.
     */
    private boolean endBody(ResponseEncoder done, MetaData.Request request, Callback callback) {
        boolean head = request != null && HttpMethod.HEAD.is(request.getMethod());
        Object value = head ? null : responseValue();
        if (value != null) {
            try {
                done.endWithValue(value);
            } catch (IllegalArgumentException | IllegalStateException e) {
                dispatcher.reusables().release(done);
                callback.failed(new IllegalArgumentException("the typed response value cannot be encoded: "
                        + e.getMessage(), e));
                return false;
            }
        } else if (jsonToValue && !head) {
            done.endWithJson(new JsonToAmqp());
        } else {
            done.end();
        }
        return true;
    }

    /** The typed body a handler set on the request ({@link AmqpBody#RESPONSE_VALUE}), or null. */
    private Object responseValue() {
        Request r = channel.getRequest();
        return r == null ? null : r.getAttribute(AmqpBody.RESPONSE_VALUE);
    }

    private static boolean isJson(HttpFields fields) {
        String type = fields.get(HttpHeader.CONTENT_TYPE);
        if (type == null) {
            return false;
        }
        int semicolon = type.indexOf(';');
        String base = (semicolon < 0 ? type : type.substring(0, semicolon)).trim();
        return base.equalsIgnoreCase("application/json");
    }

    /**
     * Whether a response that becomes an amqp-value is still held whole: its JSON is converted once complete. One
     * that outgrows the response buffer streams as data sections after all (the conversion is given up).
     */
    private boolean holdForValue() {
        if (!jsonToValue) {
            return false;
        }
        if (encoder.bodyBytes() <= dispatcher.settings().responseBufferBytes()) {
            return true;
        }
        jsonToValue = false;
        return false;
    }

    /**
     * Whether the response buffered so far should now start to stream (see
     * {@link AmqpConnectionFactory#setResponseBufferSize}); if so, the first part: the message so far. With a
     * Content-Length the one data section is declared that long and the rest follows raw; without, the section
     * is closed and every further write is a data section of its own.
     */
    private ResponsePart startStreaming(Callback callback) {
        long buffered = encoder.bodyBytes();
        long contentLength = response.getHttpFields().getLongField(HttpHeader.CONTENT_LENGTH);
        if (contentLength >= 0) {
            if (buffered < STREAM_KNOWN_LENGTH_AFTER_BYTES || buffered >= contentLength
                    || contentLength > 0xFFFFFFFFL) {
                return null; // small, or all there (Jetty checks the length), or too long for one vbin32
            }
            encoder.declareDataLength(contentLength);
            declaredLength = contentLength;
        } else {
            if (buffered < dispatcher.settings().responseBufferBytes()) {
                return null;
            }
            encoder.closeData();
        }
        streaming = true;
        streamedBodyBytes = buffered;
        ResponsePart first = new ResponsePart(exchange, encoder.array(), encoder.offset(), encoder.length(),
                null, null, false, callback);
        encoder = null;
        return first;
    }

    /** A write of a response that already streams: its bytes go as they are (read in place by the engine thread). */
    private ResponsePart streamedPart(ByteBuffer content, boolean last, Callback callback) {
        ByteBuffer c = content != null && content.hasRemaining() ? content : null;
        int n = c == null ? 0 : c.remaining();
        byte[] prefix = null;
        if (declaredLength >= 0) {
            if (streamedBodyBytes + n > declaredLength) {
                callback.failed(new IOException("the response is longer than its Content-Length "
                        + declaredLength));
                return null;
            }
        } else if (n > 0) {
            prefix = ResponseEncoder.dataSectionHeader(n);
        }
        streamedBodyBytes += n;
        if (last) {
            if (declaredLength >= 0 && streamedBodyBytes != declaredLength) {
                callback.failed(new IOException("the response is shorter (" + streamedBodyBytes
                        + " bytes) than its Content-Length " + declaredLength));
                return null;
            }
            if (!exchange.handBack(generation, ExchangeState.ANSWERED)) {
                lateResponse();
                callback.failed(new IllegalStateException("the exchange already ended"));
                return null;
            }
            exchange.status = response.getStatus(); // read by the engine thread once the part arrives
        }
        return new ResponsePart(exchange, null, 0, 0, prefix, c, last, callback);
    }

    /**
     * Jetty gave up on the response (a failure or timeout while the last send waits for the engine thread): fails
     * that send's callback and {@code appCallback}. If the engine thread already took the callback, the response is
     * on its way and only {@code appCallback} fails.
     */
    @Override
    public Runnable cancelSend(Throwable cause, Callback appCallback) {
        Callback inFlight = exchange.takeCallback();
        return () -> Callback.combine(inFlight, appCallback).failed(cause);
    }

    private synchronized boolean hasLocalChunk() {
        return chunk != null;
    }

    /**
     * Scheduler thread: the request outlived {@link AmqpConnectionFactory#setRequestTimeout the request timeout}
     * (found by the connection's {@link ActiveStreams}, once: the expiry is swapped to never first).
     * Unless its response is already with the connection, the client gets a 503 and the request delivery is
     * released; Jetty is told the request failed, so an async servlet's cycle ends and whatever the
     * servlet still writes goes nowhere.
     */
    private void timedOut(int generation) {
        if (!exchange.handBack(generation, ExchangeState.TIMED_OUT)) {
            return; // answered in time
        }
        long timeoutMillis = dispatcher.settings().requestTimeoutMillis();
        dispatcher.settings().counters().timedOut.increment();
        ResponseEncoder timeoutResponse = null;
        if (exchange.wantsResponse()) {
            HttpFields.Mutable headers = HttpFields.build();
            headers.put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
            timeoutResponse = new ResponseEncoder();
            timeoutResponse.begin(HttpStatus.SERVICE_UNAVAILABLE_503, headers, exchange.request.replyTo(),
                    exchange.request.correlationId(), HttpVersion.HTTP_1_1, false, exchange.durableResponse);
            timeoutResponse.data(ByteBuffer.wrap(("the request was not answered within " + timeoutMillis + " ms")
                    .getBytes(StandardCharsets.UTF_8)));
            timeoutResponse.end();
        }
        exchange.answer(HttpStatus.SERVICE_UNAVAILABLE_503, timeoutResponse);
        dispatcher.inbox().complete(exchange);
        Runnable task = channel.onFailure(new TimeoutException("request timed out after " + timeoutMillis + " ms"));
        if (task != null) {
            dispatcher.execute(task);
        }
    }

    /**
     * A servlet finished a response whose exchange had already been handed back: counted as late when its request
     * timeout answered instead (it may also have been settled early, its reply link gone).
     */
    private void lateResponse() {
        if (exchange.timedOut(generation)) {
            dispatcher.settings().counters().lateResponses.increment();
        }
    }

    @Override
    public long getIdleTimeout() {
        return idleTimeoutMillis;
    }

    @Override
    public void setIdleTimeout(long idleTimeoutMs) {
        // AMQP's idle timeout is per connection and the engine enforces it; the value is kept for Jetty's asking.
        this.idleTimeoutMillis = idleTimeoutMs;
    }

    @Override
    public boolean isCommitted() {
        return committed;
    }

    @Override
    public Throwable consumeAvailable() {
        Throwable result = HttpStream.consumeAvailable(this, channel.getConnectionMetaData().getHttpConfiguration());
        if (result != null && exchange.streamedBody != null) {
            // The servlet left part of a streamed body unread: it is dropped as it arrives (StreamedRequest).
            synchronized (this) {
                chunk = Content.Chunk.from(result, true);
            }
        } else if (result != null) {
            synchronized (this) {
                if (chunk != null) {
                    chunk.release();
                }
                chunk = Content.Chunk.from(result, true);
            }
        }
        return result;
    }

    /** The exchange completed: the response (or one-way status) is with the connection. */
    @Override
    public void succeeded() {
        channel.recycle();
        dispatcher.streamEnded(this, true);
        if (exchange.streamDone()) {
            dispatcher.reusables().release(exchange); // the engine thread is done with it too
        }
    }

    /**
     * The exchange failed without a complete response (the handler failed after committing, or the response could
     * not be sent): the request is settled as modified with delivery-failed, so the client may retry.
     */
    @Override
    public void failed(Throwable x) {
        if (exchange.handBack(generation, ExchangeState.FAILED)) {
            exchange.failure = x;
            dispatcher.inbox().complete(exchange);
        }
        dispatcher.streamEnded(this, false);
    }

    /** Engine thread: the task Jetty made for this request ({@code HttpChannel.onRequest}), run by {@link #run()}. */
    void handleWith(Runnable task) {
        handle = task;
    }

    /**
     * A pool thread: runs the request's handler, with this stream's exchange known to the thread meanwhile so that
     * Jetty's customizers, which run first, can reach it ({@link RequestAttributesCustomizer}).
     */
    @Override
    public void run() {
        Runnable task = handle;
        handle = null;
        SERVED.set(exchange.request);
        try {
            task.run();
        } finally {
            SERVED.set(null);
        }
    }

    /** The request whose handler this thread is running, or null. */
    static MappedRequest servedRequest() {
        return SERVED.get();
    }

    @Override
    public String toString() {
        return "HttpStreamOverAmqp[" + idNumber + (committed ? ", committed" : "") + "]";
    }
}
