package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.log.PeerLog;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;

/**
 * What a connection's engine hears, turned into served requests: each request message that arrives (whole, or as
 * the frames of a streamed one) is admitted or not ({@link RequestAdmission}), mapped, and handed to Jetty
 * ({@link ExchangeDispatcher}); each exchange that comes back is sent and settled ({@link Settlement}). The base of
 * the two ways a connection serves: {@link ListenerHandler}, for clients that connect to us, and
 * {@link AttachedHandler}, for a connection we made to a broker; they differ in how a connection opens, where a
 * response goes and when its request is settled.
 *
 * <p>Every method runs on the connection's engine thread (whoever is running its serialised pass). Callbacks of the
 * servlet side are never completed inside an engine call: they go to the thread's {@link CompletedCallbacks},
 * completed by the driving thread once it has let go of the engine.
 */
public abstract class ServingHandler implements EngineHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ServingHandler.class);
    final ServingSettings settings;
    final EngineInbox inbox;
    final BudgetShare budget;
    final RequestAdmission admission;
    private final ConnectionMetaData connection;
    /** Whether requests are {@code https}; the mapper is the thread's ({@link PassScratch}). */
    private final boolean secure;
    /** The SASL identity as the Jetty authentication of every request; set before the first, read by any thread. */
    private volatile Request.AuthenticationState authentication;
    /** The idle timeout request streams start with (the connector's), known when the engine starts. */
    private long streamIdleTimeoutMillis;
    /** Made with the first request: a connection that never served one does not hold them. */
    private ExchangeDispatcher dispatcher;
    private Settlement settlement;
    /** AMQP messages received (requests) and sent (responses), for Jetty's connection statistics. */
    private volatile long messagesIn;
    private volatile long messagesOut;

    ServingHandler(ServingSettings settings, ConnectionMetaData connection, EngineInbox inbox, BudgetShare budget,
                   boolean secure) {
        this.settings = settings;
        this.connection = connection;
        this.inbox = inbox;
        this.budget = budget;
        this.secure = secure;
        this.admission = new RequestAdmission(budget);
    }

    // ------------------------------------------------------------------------------------------ mode hooks

    /**
     * The link the response to {@code exchange} goes on, or null when there is none: for reply-to {@code $me}, the
     * other half of the request link's pair while it is attached (link pairing); otherwise the mode's reply route.
     */
    Link replyLink(Engine engine, Exchange exchange) {
        if (exchange.request.replyToPaired()) {
            Link paired = exchange.request.pairedReplyLink();
            return paired != null && paired.isOpen() ? paired : null;
        }
        return replyRoute(engine, exchange.request.replyTo());
    }

    /** The link a response to {@code replyTo} (not {@code $me}) goes on, or null when there is none. */
    abstract Link replyRoute(Engine engine, byte[] replyTo);

    /** Whether the request's reply link already buffers as many responses as it may (then it is released unserved). */
    abstract boolean replyBufferFull(Engine engine, Exchange exchange);

    /** The response to {@code request} is on its way as {@code response} on {@code replies}: settle the request. */
    abstract void answered(Engine engine, Link replies, Delivery response, Delivery request, boolean timedOut);

    /** The response to {@code request} has no link to go on ({@code address} names none now): settle it so. */
    abstract void unanswerable(Engine engine, Exchange exchange, Delivery request, String address);

    /** A request message arrives, before it is admitted (engine thread). */
    void requestArriving(Engine engine) {
    }

    /**
     * Engine thread, every pass: the mode's own deadlines.
     *
     * @return when to look again, {@code Long.MAX_VALUE} for no need
     */
    public long tick(Engine engine, long nowMillis) {
        return Long.MAX_VALUE;
    }

    // ------------------------------------------------------------------------------------------ the connection

    /**
     * Engine thread, once, as the engine is made: the idle timeout request streams start with (the connector's; the
     * end point's own is 0 from now on), and the identity TLS established for SASL EXTERNAL, or null.
     */
    public void engineStarting(long streamIdleTimeoutMillis, String externalIdentity) {
        this.streamIdleTimeoutMillis = streamIdleTimeoutMillis;
    }

    /** The authentication of every request of this connection (before the first one arrives). */
    void authenticatedAs(Request.AuthenticationState authentication) {
        this.authentication = authentication;
    }

    /**
     * The authentication of this connection's requests (a jetty-security {@code AuthenticationState.Succeeded}), or
     * null when the peer is anonymous or jetty-security is absent. Any thread.
     */
    public Request.AuthenticationState authentication() {
        return authentication;
    }

    /**
     * The authentication of the request being served whose id ({@code Request.getId()}) is {@code requestId}: the
     * connection's, unless the mode gives each request a user of its own. Any thread.
     */
    public Request.AuthenticationState authentication(String requestId) {
        return authentication;
    }

    /**
     * Engine thread, as a request is mapped: the authentication it is made by. The connection's, unless the mode
     * reads the user from the message.
     */
    Request.AuthenticationState requestUser(MessageView message) {
        return authentication;
    }

    /** The dispatcher, or null before the first request. */
    final ExchangeDispatcher dispatcherIfAny() {
        return dispatcher;
    }

    /** Any thread: a graceful stop has begun; requests that arrive from now on are released. */
    public void stopAdmitting() {
        admission.stop();
    }

    /** {@return whether a graceful stop has begun} */
    public boolean stopping() {
        return admission.stopping();
    }

    /** {@return requests handed to Jetty and not yet back on the engine thread} Engine thread. */
    public int inFlight() {
        ExchangeDispatcher d = dispatcher;
        return d == null ? 0 : d.inFlight();
    }

    /** {@return the requests being served now} Any thread. */
    public int activeRequests() {
        ExchangeDispatcher d = dispatcher;
        return d == null ? 0 : d.activeRequests();
    }

    /** {@return the most body bytes one streamed request of this connection has had waiting unread} */
    public long maxBufferedRequestBytes() {
        ExchangeDispatcher d = dispatcher;
        return d == null ? 0 : d.maxBufferedRequestBytes();
    }

    /** {@return the peer's container-id, as its open gave it (cut, control characters replaced), or null} Any thread. */
    public String containerId() {
        return null;
    }

    /** {@return AMQP messages received on this connection: request messages, whole or streamed} */
    public long messagesIn() {
        return messagesIn;
    }

    /** {@return AMQP messages sent on this connection: response messages} */
    public long messagesOut() {
        return messagesOut;
    }

    /** {@return how many objects the connection keeps for its next requests, for tests} */
    public int reusablesKept() {
        ExchangeDispatcher d = dispatcher;
        return d == null ? 0 : d.reusables().kept();
    }

    /**
     * Engine thread, every pass: lets go of what the connection kept for reuse once it has served nothing for a
     * while (see {@link ConnectionReusables#trimWhenIdle}).
     *
     * @return when to look again, or {@code Long.MAX_VALUE}
     */
    public long trimWhenIdle(long nowMillis, Engine engine) {
        ExchangeDispatcher d = dispatcher;
        return d == null ? Long.MAX_VALUE : d.reusables().trimWhenIdle(nowMillis, d.inFlight() > 0, engine);
    }

    /** Engine thread: exchanges, parts and bodies the servlet side handed back, taken from the inbox. */
    public void completed(Engine engine, Exchange exchange, boolean transportClosing) {
        dispatcher.returned();
        settlement.complete(engine, exchange, transportClosing);
    }

    /** Engine thread: a part of a streamed response, from the inbox. */
    public void responsePart(Engine engine, ResponsePart part, boolean transportClosing) {
        settlement.responsePart(engine, part, transportClosing);
    }

    /** Engine thread: the connection closed: responses still streaming fail, so no servlet write waits forever. */
    public void connectionClosed() {
        if (settlement != null) {
            settlement.connectionClosed();
        }
    }

    /**
     * Any thread: reading or writing the socket failed (a TLS alert, a reset), and the connection is ending for it.
     * Nothing to do here: a client's connection ends like any other; a connection this side made may keep it as its
     * end reason.
     */
    public void transportFailed(Throwable failure) {
    }

    /**
     * Any thread, once: Jetty closed the connection (whichever way it ended); requests still being served have no
     * connection to answer on.
     */
    public void transportClosed(Throwable cause) {
        ExchangeDispatcher d = dispatcher;
        if (d != null) {
            d.connectionClosed(cause);
        }
    }

    /** The dispatcher and settlement, made with the first request. */
    final ExchangeDispatcher dispatcher() {
        ExchangeDispatcher d = dispatcher;
        if (d == null) {
            d = new ExchangeDispatcher(connection, connection.getConnector(), settings, inbox, streamIdleTimeoutMillis);
            dispatcher = d;
            settlement = new Settlement(this, d.reusables());
        }
        return d;
    }

    final Settlement settlement() {
        return settlement;
    }

    // ------------------------------------------------------------------------------------------ requests

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        requestArriving(link.session().engine());
        messagesIn++;
        serve(link, delivery, message);
    }

    /** A whole request message: admitted, mapped and served, or answered as the admission says. */
    private void serve(Link link, Delivery delivery, MessageView message) {
        Engine engine = link.session().engine();
        if (!admission.takesRequests()) {
            release(engine, delivery);
            return;
        }
        Exchange exchange = newExchange(delivery);
        try {
            map(message, link, exchange, false);
        } catch (DecodeException | IllegalArgumentException e) {
            rejectMalformed(engine, delivery, e.getMessage());
            return;
        }
        switch (admission.admit(exchange, this, engine)) {
            case SERVE:
                serveAdmitted(engine, exchange);
                break;
            case RELEASE:
                release(engine, delivery);
                dispatcher().reusables().release(exchange); // no one else saw it
                break;
            case REFUSE:
                settings.counters().refused.increment();
                settlement.answerWithoutServlet(engine, exchange, exchange.request.refusedStatus(),
                        exchange.request.refusedReason());
                break;
            default:
                settlement.expired(engine, exchange);
                break;
        }
    }

    /**
     * Engine thread: hands an admitted request to Jetty (an attachment may hold it back first: {@link AttachedHandler}).
     * What it costs beside its body ({@link BudgetShare#EXCHANGE_BYTES})
     * and its body, which came whole, count in the byte budget until the exchange is complete ({@link #servedDone}),
     * as a streamed body's unread bytes do: a servlet that holds requests (asynchronous, or slow) holds their bodies.
     */
    void serveAdmitted(Engine engine, Exchange exchange) {
        countServed(exchange, exchange.request.body().length);
        dispatcher().dispatch(exchange);
    }

    /** Engine thread: {@code exchange}, with {@code bodyBytes} of whole body, counts in the byte budget now. */
    final void countServed(Exchange exchange, int bodyBytes) {
        int bytes = BudgetShare.EXCHANGE_BYTES + bodyBytes;
        budget.addServedBytes(bytes);
        exchange.countedBytes = bytes;
    }

    /** Engine thread: the exchange is complete; what it counted goes back to the byte budget. */
    final void servedDone(Exchange exchange) {
        int bytes = exchange.countedBytes;
        if (bytes > 0) {
            exchange.countedBytes = 0;
            budget.addServedBytes(-bytes); // also after the connection closed: the servlet held it until now
        }
    }

    /** An exchange for the request of {@code delivery}: one kept for reuse, or a new one. */
    final Exchange newExchange(Delivery delivery) {
        Exchange exchange = dispatcher().reusables().exchange();
        exchange.reset(delivery);
        return exchange;
    }

    /** Maps {@code message} (the header sections only when {@code streamed}) into {@code exchange}'s request. */
    final void map(MessageView message, Link link, Exchange exchange, boolean streamed) {
        PassScratch.get().mapper(secure).map(message, link, openHostname(), settings.serverName(),
                settings.maxHeaderChars(), NanoTime.now(), streamed, exchange.request);
        exchange.user = requestUser(message);
        exchange.durableResponse = exchange.request.durable() && keepsResponses();
    }

    /**
     * Whether a response, once its request is settled, is held by something that keeps durable messages (a broker):
     * then the response to a durable request is durable too. A client's own link holds nothing: no.
     */
    boolean keepsResponses() {
        return false;
    }

    /**
     * The response to {@code exchange} is larger than the client's max-message-size ({@code tooLarge} says how
     * large): the client's doing, so one INFO line within the peer-error allowance and no stack trace, or a client
     * asking for large responses could fill the log. {@return what the servlet's write and Jetty's end of the request
     * fail with: quiet to Jetty}
     */
    final ResponseTooLargeException responseTooLarge(Exchange exchange, IllegalArgumentException tooLarge) {
        if (LOG.isInfoEnabled()) {
            long leftOut = settings.peerLog().permit(PeerLog.Kind.PEER_ERROR);
            if (leftOut >= 0) {
                MetaData.Request request = exchange.request.request();
                LOG.info("AMQP response to {} for {} {} not sent: {}; its request is modified (undeliverable-here){}",
                        peerAddress(), request == null ? "?" : request.getMethod(),
                        request == null ? "?" : request.getHttpURI().getPathQuery(), tooLarge.getMessage(),
                        PeerLog.leftOut(leftOut));
            }
        }
        return new ResponseTooLargeException(tooLarge.getMessage());
    }

    /** {@return the peer's address as {@code host:port}, for log lines} */
    final String peerAddress() {
        return PeerLog.address(connection.getRemoteSocketAddress());
    }

    /** The hostname of the client's open as a request's Host when it names none, or null. */
    String openHostname() {
        return null;
    }

    /** docs/design.md §3: shutdown and overload → released; the client may send it again. */
    final void release(Engine engine, Delivery delivery) {
        settings.counters().released.increment();
        engine.release(delivery);
    }

    /**
     * docs/design.md §3: a message that cannot produce a response at all (malformed sections, text that is not UTF-8)
     * is rejected with {@code amqp:decode-error}.
     */
    final void rejectMalformed(Engine engine, Delivery delivery, String why) {
        settings.counters().refused.increment();
        engine.reject(delivery, ErrorConditions.DECODE_ERROR, why);
    }

    /** A streamed message without data sections, now complete: served as a message of one frame is. */
    final void serveWhole(Link link, Delivery delivery, byte[] message, int length) {
        MessageView view = PassScratch.get().headView;
        try {
            view.wrap(message, 0, length);
        } catch (DecodeException e) {
            rejectMalformed(link.session().engine(), delivery, e.getMessage());
            return;
        }
        serve(link, delivery, view); // counted when its first frame arrived
    }

    /** The header sections of a streamed request ({@code head[0, length)}) are in: maps them into {@code exchange}. */
    final void mapHead(byte[] head, int length, Link link, Exchange exchange) {
        MessageView view = PassScratch.get().headView;
        view.wrap(head, 0, length);
        map(view, link, exchange, true);
    }

    @Override
    public void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length, boolean last) {
        StreamedRequest streamed = link.attachment() instanceof StreamedRequest s && s.delivery() == delivery ? s : null;
        if (streamed == null) {
            requestArriving(link.session().engine());
            messagesIn++;
            streamed = new StreamedRequest(this, link, delivery);
            link.attachment(streamed);
        }
        streamed.chunk(payload, offset, length, last);
    }

    @Override
    public void onMessageAborted(Link link, Delivery delivery) {
        if (link.attachment() instanceof StreamedRequest streamed) {
            streamed.abandoned("the sender aborted the request message", true);
        }
    }

    /**
     * A request over the size limit that the engine rejected (attach mode: the broker dead-letters it rather than
     * deliver it again): a servlet that had begun it sees its body fail, and nothing answers it. Counted as refused
     * unless its head had reached admission, and one INFO line within the peer-error allowance.
     */
    @Override
    public void onMessageTooLarge(Link link, Delivery delivery, long maxMessageSizeBytes) {
        String why = "the request message exceeds " + maxMessageSizeBytes + " bytes";
        if (!(link.attachment() instanceof StreamedRequest streamed && streamed.tooLarge(why))) {
            settings.counters().refused.increment();
        }
        if (LOG.isInfoEnabled()) {
            long leftOut = settings.peerLog().permit(PeerLog.Kind.PEER_ERROR);
            if (leftOut >= 0) {
                LOG.info("AMQP request from {} rejected with amqp:link:message-size-exceeded: {}{}", peerAddress(),
                        why, PeerLog.leftOut(leftOut));
            }
        }
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        if (link.attachment() instanceof StreamedRequest streamed) {
            streamed.abandoned("the request link ended before the message did", false);
        } else if (link.isSender()) {
            StreamedResponse.onLinkEnded(link);
        }
    }

    @Override
    public void onSendable(Link link) {
        StreamedResponse.onSendable(link, PassScratch.get().bytes);
    }

    /** A response message went out (whole, or the first transfer of a streamed one). */
    final void responseSent() {
        messagesOut++;
    }

    // ------------------------------------------------------------------------------------------ callbacks

    static void succeed(Callback callback) {
        CompletedCallbacks.ofThisThread().succeeded(callback);
    }

    static void fail(Callback callback, Throwable failure) {
        CompletedCallbacks.ofThisThread().failed(callback, failure);
    }
}
