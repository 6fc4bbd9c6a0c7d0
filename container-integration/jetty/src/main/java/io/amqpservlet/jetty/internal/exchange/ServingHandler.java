package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.internal.attach.AttachedLinks;
import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.connection.CompletedCallbacks;
import io.amqpservlet.jetty.internal.connection.PassScratch;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HostPortHttpField;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.TimeoutException;

/**
 * The gateway's side of the AMQP engine: keeps credit open on the links clients send requests on, turns each
 * complete request message into an {@link Exchange} handed to Jetty, and, when an exchange comes back,
 * sends its response on the reply link and settles the request (docs/design.md §3 outcomes).
 *
 * <p>Every method runs on the connection's engine thread (whoever is running {@link AmqpConnection}'s serialised
 * loop). Callbacks of the servlet side are never completed inside an engine call: they are collected in
 * {@link #callbacks()} and completed by the driving thread once it has let go of the engine.
 */
public final class ServingHandler implements EngineHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ServingHandler.class);

    private final AmqpConnection connection;
    /** Whether requests are {@code https}; the mapper is the thread's ({@link PassScratch}). */
    private final boolean secure;
    private final String serverName;
    private final int linkCredit;
    private String openHostname;
    /** The responses going out in parts now (engine thread). */
    private final ArrayList<StreamedResponse> streamingResponses = new ArrayList<>();
    /** Made with the first callback: a connection that never served a request does not hold it. */
    private CompletedCallbacks callbacks;
    /** In attach mode, the links to the broker and their rules; null for a connection a client made to us. */
    private final AttachedLinks attached;

    public ServingHandler(AmqpConnection connection, String serverName, int linkCredit, boolean secure,
                      AttachedLinks attached) {
        this.connection = connection;
        this.secure = secure;
        this.serverName = serverName;
        this.linkCredit = linkCredit;
        this.attached = attached;
    }

    @Override
    public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        if (attached != null) {
            connection.budgetOpened(); // the attachment's own budget: counted, never refused
            attached.opened(engine, remoteOpen, NanoTime.now() / 1_000_000L);
            return null;
        }
        openHostname = remoteOpen.hostname().isNull() ? null : hostOrNull(remoteOpen.hostname().toString());
        long qpidJmsHeartbeat = connection.qpidJmsHeartbeatMillis();
        if (qpidJmsHeartbeat > 0 && ClientProduct.isQpidJms(remoteOpen)) {
            engine.advertiseIdleTimeoutMillis(qpidJmsHeartbeat); // its unflushed writes wait for a heartbeat
        }
        if (!connection.budgetOpened()) {
            // AMQP 1.0 §2.4.2: a refused connection is answered with open, then closed with the reason.
            return new ErrorCondition().condition(ErrorConditions.RESOURCE_LIMIT_EXCEEDED).description(
                    "the server has " + connection.budgetShare().budget().getMaxConnections()
                            + " AMQP connections open, its limit");
        }
        return null;
    }

    @Override
    public void onAuthenticated(Engine engine, String identity) {
        if (attached == null) {
            connection.authenticated(identity); // in attach mode that is our own identity at the broker
        }
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        if (attached != null) {
            return attached.linkAttached(link, remoteAttach);
        }
        if (!link.isSender()) {
            // The client sends requests on this link: credit is the back-pressure (docs/design.md §5).
            // Messages of several frames stream in (StreamedRequest), so a large body never sits whole here.
            link.streaming(true).autoCredit(linkCredit);
        }
        return null; // sending links are reply links; the engine has resolved their nodes
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        if (attached != null && error != null) {
            LOG.warn("{} closed the connection: {} {}", attached.brokerName(), error.condition(), error.description());
        } else if (error != null && LOG.isDebugEnabled()) {
            LOG.debug("AMQP connection {} ended: {}", connection, error);
        }
    }

    @Override
    public void onSessionEnd(io.amqpservlet.connector.engine.Session session, ErrorCondition error) {
        if (attached != null) {
            attached.sessionEnded(session.engine(), error);
        }
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        if (attached != null) {
            attached.outcome(link.session().engine(), delivery);
        }
    }

    /** Engine thread: the attach mode's deadlines; returns when to look again (Long.MAX_VALUE: no need). */
    public long tick(Engine engine, long nowMillis) {
        return attached == null ? Long.MAX_VALUE : attached.tick(engine, nowMillis);
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        if (link.attachment() instanceof StreamedRequest) {
            ((StreamedRequest) link.attachment()).abandoned("the request link ended before the message did");
        } else if (link.isSender()) {
            StreamedResponse.onLinkEnded(link);
        }
        if (attached != null) {
            attached.linkDetached(link.session().engine(), link, error);
        }
    }

    @Override
    public void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length, boolean last) {
        StreamedRequest streamed = (StreamedRequest) link.attachment();
        if (streamed == null || streamed.delivery() != delivery) {
            streamed = new StreamedRequest(this, link, delivery);
            link.attachment(streamed);
        }
        streamed.chunk(payload, offset, length, last);
    }

    @Override
    public void onMessageAborted(Link link, Delivery delivery) {
        if (link.attachment() instanceof StreamedRequest) {
            ((StreamedRequest) link.attachment()).abandoned("the client aborted the request message");
        }
    }

    public AmqpConnection connection() {
        return connection;
    }

    public Exchange newExchange(Delivery delivery) {
        Exchange exchange = connection.exchanges().acquire();
        if (exchange == null) {
            exchange = new Exchange();
        }
        exchange.reset(delivery);
        return exchange;
    }

    /** Maps the header sections of a streamed request ({@code head[0, length)}) into {@code exchange}. */
    public void mapHead(byte[] head, int length, Link link, Exchange exchange) {
        PassScratch scratch = PassScratch.get();
        scratch.headView.wrap(head, 0, length);
        scratch.mapper(secure).map(scratch.headView, link, openHostname, serverName, NanoTime.now(), exchange);
    }

    /** A streamed message without data sections, now complete: served as a message of one frame is. */
    public void serveWhole(Link link, Delivery delivery, byte[] message, int length) {
        MessageView headView = PassScratch.get().headView;
        try {
            headView.wrap(message, 0, length);
        } catch (DecodeException e) {
            link.session().engine().reject(delivery, ErrorConditions.DECODE_ERROR, e.getMessage());
            return;
        }
        onMessage(link, delivery, headView);
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        Engine engine = link.session().engine();
        if (attached != null) {
            attached.sampleOutstanding(engine);
        }
        if (connection.isDraining() || connection.budgetShare().budget().isExhausted()) {
            // docs/design.md §3: shutdown and overload → released; the client may send it again (to this server once
            // it is back, or has memory again: AmqpServerBudget).
            engine.release(delivery);
            return;
        }
        Exchange exchange = newExchange(delivery);
        try {
            PassScratch.get().mapper(secure).map(message, link, openHostname, serverName, NanoTime.now(), exchange);
        } catch (DecodeException | IllegalArgumentException e) {
            // docs/design.md §3: a message that cannot produce a response at all (malformed sections, text that is not
            // UTF-8) is rejected with amqp:decode-error.
            engine.reject(delivery, ErrorConditions.DECODE_ERROR, e.getMessage());
            return;
        }
        if (exchange.rejectStatus == 0 && exchange.expiresAtMillis != 0
                && System.currentTimeMillis() >= exchange.expiresAtMillis) {
            expired(engine, exchange);
            return;
        }
        if (exchange.rejectStatus != 0) {
            answerWithoutServlet(engine, exchange);
            return;
        }
        if (replyBufferFull(engine, exchange)) {
            // The client is not taking its responses (no credit on the reply link): overload, so the request is
            // released before any servlet acts on it (AMQP 1.0 §3.4.5), and the client may send it again later.
            engine.release(delivery);
            return;
        }
        connection.dispatch(exchange);
    }

    /**
     * Whether the request's reply link already holds as many unsent responses as the engine lets it buffer, or the
     * connection's sending links together hold as many bytes (docs/design.md §5).
     */
    private boolean replyBufferFull(Engine engine, Exchange exchange) {
        if (exchange.replyTo == null || attached != null) {
            return false; // in attach mode credit already bounds what is in flight
        }
        Link replies = replyLink(engine, exchange);
        return replies != null && (replies.queued() >= engine.config().maxBufferedMessagesPerLink()
                || engine.queuedBytes() >= engine.config().maxBufferedBytesPerConnection());
    }

    /**
     * A request whose expiry passed before it could be served (docs/mapping.md, "Expiry"): no servlet runs. With a
     * reply-to it is answered 504 and accepted, so the client hears at once rather than at its own timeout, and a
     * broker does not deliver it again; a one-way request is rejected, so a broker dead-letters it instead of
     * retrying what nobody wants any more.
     */
    private void expired(Engine engine, Exchange exchange) {
        connection.expiredRequest();
        if (!exchange.wantsResponse()) {
            // Never dispatched, so Jetty never owns it: like a message answered without a servlet, it is not pooled.
            engine.reject(exchange.delivery, ErrorConditions.PRECONDITION_FAILED,
                    "the request expired before it was served");
            return;
        }
        exchange.rejectStatus = HttpStatus.GATEWAY_TIMEOUT_504;
        exchange.rejectReason = "the request expired before it was served";
        answerWithoutServlet(engine, exchange);
    }

    /** A message that is not an HTTP request: answered with its status at once, as a server answers a bad request line. */
    public void answerWithoutServlet(Engine engine, Exchange exchange) {
        exchange.status = exchange.rejectStatus;
        if (exchange.wantsResponse()) {
            HttpFields.Mutable headers = HttpFields.build();
            headers.put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
            ResponseEncoder encoder = new ResponseEncoder();
            encoder.begin(exchange.status, headers, exchange.replyTo, exchange.correlationId);
            encoder.data(ByteBuffer.wrap(exchange.rejectReason.getBytes(StandardCharsets.UTF_8)));
            encoder.end();
            exchange.response = encoder.array();
            exchange.responseOffset = encoder.offset();
            exchange.responseLength = encoder.length();
        }
        exchange.handBack(exchange.generation());
        complete(engine, exchange, false);
    }

    /**
     * An exchange came back from Jetty: sends its response on the reply link and settles the request delivery
     * (accepted once its response is on its way), or for a one-way request settles it by status.
     */
    public void complete(Engine engine, Exchange exchange, boolean transportClosing) {
        Delivery request = liveDelivery(exchange);
        StreamedRequest streamed = exchange.streamedRequest;
        if (streamed != null && request != null && !request.complete() && !transportClosing) {
            streamed.park(exchange); // settled only once complete: answered at its last frame
            return;
        }
        if (exchange.completedOnEngine) {
            return;
        }
        exchange.completedOnEngine = true;
        try {
            settle(engine, exchange, request, transportClosing);
        } finally {
            // The reply link copied the response (sent or queued it), or it is not going anywhere.
            ResponseEncoder encoder = exchange.encoder;
            exchange.encoder = null;
            exchange.response = null;
            connection.encoders().release(encoder);
            if (exchange.engineDone()) {
                connection.exchanges().release(exchange);
            }
        }
    }

    /** Sends the response of an exchange the engine thread has just completed, and settles its request. */
    private void settle(Engine engine, Exchange exchange, Delivery request, boolean transportClosing) {
        if (exchange.streamedBody != null) {
            exchange.streamedBody.discard();
        }
        if (exchange.timedOut && exchange.streamedResponse != null && exchange.failure == null
                && !exchange.streamedResponse.ended()) {
            // Part of the response is already out: no 503 can replace it, so it is aborted instead.
            exchange.failure = new TimeoutException("request timed out while its response streamed");
        }
        if (exchange.failure != null) {
            StreamedResponse.abortIfOpen(exchange, exchange.failure);
            if (request != null && exchange.timedOut) {
                engine.release(request);
            } else if (request != null) {
                // No (whole) response was produced: the client may retry; one too large for it: not here.
                engine.modified(request, true, exchange.responseTooLarge);
            }
            return;
        }
        Callback callback = exchange.takeCallback();
        if (exchange.streamedResponse != null) {
            // Its last part is queued on the reply link (StreamedResponse): settle the request.
            if (request != null) {
                answered(engine, exchange.streamedResponse.link(), exchange.streamedResponse.delivery(), request,
                        false);
            }
            callbacks().succeeded(callback);
            return;
        }
        if (!exchange.wantsResponse()) {
            if (request != null && exchange.timedOut) {
                engine.release(request);
            } else if (request != null) {
                OneWayOutcome.settle(engine, request, exchange.status);
            }
            callbacks().succeeded(callback);
            return;
        }
        if (transportClosing || engine.isDone() || !engine.isOpen()) {
            fail(callback, new EofException("the AMQP connection closed before the response was sent"));
            return;
        }
        byte[] replyTo = exchange.replyTo;
        Link replies = replyLink(engine, exchange);
        if (replies == null) {
            String address = new String(replyTo, StandardCharsets.UTF_8);
            if (request != null) {
                settleUnanswerable(engine, exchange, request, address);
            }
            fail(callback, new IOException("no reply link for reply-to " + address));
            return;
        }
        Delivery sent;
        try {
            sent = replies.send(exchange.response, exchange.responseOffset, exchange.responseLength, false);
        } catch (IllegalArgumentException tooLarge) {
            if (request != null) {
                engine.modified(request, true, true); // the response exceeds the client's max-message-size
            }
            fail(callback, tooLarge);
            return;
        }
        if (sent == null) {
            // The reply link's buffer filled up while the servlet ran (the client grants no credit). The servlet has
            // acted on the request, so it is not "released" (§3.4.5: not acted upon) but modified with
            // delivery-failed: the client may retry, knowing it may have been processed.
            if (request != null) {
                engine.modified(request, true, false);
            }
            fail(callback, new IOException("the reply link to " + new String(replyTo, StandardCharsets.UTF_8)
                    + " buffers too many responses"));
            return;
        }
        if (request != null) {
            answered(engine, replies, sent, request, exchange.timedOut);
        }
        callbacks().succeeded(callback);
    }

    /**
     * The response to {@code request} is on its way as {@code response}: settles the request, or, in attach mode,
     * leaves that to the broker's outcome for the response (at-least-once across a gateway crash, docs/attach.md).
     */
    private void answered(Engine engine, Link replies, Delivery response, Delivery request, boolean timedOut) {
        if (attached != null && response != null) {
            attached.awaitOutcome(replies, response, request, timedOut);
        } else if (timedOut) {
            engine.release(request); // a request that timed out gets a 503 and is released
        } else {
            engine.accept(request); // 404 and 500 are responses too: the request was processed
        }
    }

    /**
     * The link the response to {@code exchange} goes on: for reply-to {@code $me}, the other half of the request
     * link's pair while it is attached (link pairing; a settled half sends the response pre-settled); in attach mode
     * a link to the broker; otherwise the reply node the reply-to names on this connection. Null when there is none.
     */
    private Link replyLink(Engine engine, Exchange exchange) {
        if (exchange.replyToPaired) {
            Link paired = exchange.pairedReplyLink;
            return paired != null && paired.isOpen() ? paired : null;
        }
        byte[] replyTo = exchange.replyTo;
        if (attached != null) {
            return attached.replyLink(replyTo, NanoTime.now() / 1_000_000L);
        }
        return engine.replyLink(replyTo, 0, replyTo.length);
    }

    /**
     * The response to {@code request} has no link to go on. In attach mode (reply-to not {@code $me}) that is the
     * broker's link not being there now: the request goes back to the queue. Otherwise the reply-to names nothing on
     * this connection: rejected, {@code amqp:not-found}.
     */
    private void settleUnanswerable(Engine engine, Exchange exchange, Delivery request, String address) {
        if (attached != null && !exchange.replyToPaired) {
            engine.modified(request, true, false);
        } else {
            engine.reject(request, ErrorConditions.NOT_FOUND, "reply-to " + address
                    + " is not a reply node on this connection");
        }
    }

    /** The request's delivery if it is still the one we were given (deliveries are pooled), else null. */
    private static Delivery liveDelivery(Exchange exchange) {
        Delivery d = exchange.delivery;
        return d.link() != null && d.generation() == exchange.deliveryGeneration ? d : null;
    }

    /**
     * A part of a response that streams, from a servlet thread: sent on the reply link as it has room (the first
     * part opens the delivery); its write completes when its bytes are with the link.
     */
    public void responsePart(Engine engine, ResponsePart part, boolean transportClosing) {
        Exchange exchange = part.exchange;
        if (exchange.completedOnEngine) {
            fail(part.callback, new EofException("the response already ended (timed out or failed)"));
            return;
        }
        StreamedResponse streamed = exchange.streamedResponse;
        if (streamed == null) {
            if (transportClosing || engine.isDone() || !engine.isOpen()) {
                fail(part.callback, new EofException("the AMQP connection closed before the response was sent"));
                return;
            }
            byte[] replyTo = exchange.replyTo;
            Link replies = replyLink(engine, exchange);
            if (replies == null) {
                String address = new String(replyTo, StandardCharsets.UTF_8);
                Delivery request = liveDelivery(exchange);
                if (request != null && (exchange.streamedRequest == null || request.complete())) {
                    settleUnanswerable(engine, exchange, request, address);
                    exchange.completedOnEngine = true;
                }
                fail(part.callback, new IOException("no reply link for reply-to " + address));
                return;
            }
            streamed = new StreamedResponse(this, exchange, replies);
            exchange.streamedResponse = streamed;
        }
        streamed.add(part, PassScratch.get().bytes);
    }

    @Override
    public void onSendable(Link link) {
        StreamedResponse.onSendable(link, PassScratch.get().bytes);
    }

    public ArrayList<StreamedResponse> streamingResponses() {
        return streamingResponses;
    }

    /** The connection closed (engine thread): responses still streaming fail, so no servlet write waits forever. */
    public void connectionClosed() {
        if (!streamingResponses.isEmpty()) {
            StreamedResponse.onConnectionClosed(this);
        }
    }

    /** A buffer for moving response bytes from Jetty's (maybe direct) buffers into the engine (the thread's). */
    public byte[] scratch() {
        return PassScratch.get().bytes;
    }

    public void succeed(Callback callback) {
        callbacks().succeeded(callback);
    }

    public void fail(Callback callback, Throwable failure) {
        callbacks().failed(callback, failure);
    }

    /** The callbacks collected so far, or null when there never were any. */
    public CompletedCallbacks pendingCallbacks() {
        return callbacks;
    }

    /** The callbacks collected during the pass, for the driving thread to complete once it left the engine. */
    public CompletedCallbacks callbacks() {
        CompletedCallbacks c = callbacks;
        if (c == null) {
            c = new CompletedCallbacks();
            callbacks = c;
        }
        return c;
    }

    /**
     * {@return {@code hostname}, or null when it is no host[:port]}: the open's hostname is only a hint (AMQP 1.0
     * §2.7.1), and RabbitMQ's clients put a virtual host there ({@code vhost:/}); a request of such a connection
     * falls back to the server name rather than being refused with 400. Checked once per connection.
     */
    private static String hostOrNull(String hostname) {
        // A port that is not digits is refused before Jetty's parser, which would log a warning per connection.
        int colon = hostname.lastIndexOf(':');
        if (colon >= 0 && colon > hostname.lastIndexOf(']')) {
            for (int i = colon + 1; i < hostname.length(); i++) {
                if (hostname.charAt(i) < '0' || hostname.charAt(i) > '9') {
                    return null;
                }
            }
        }
        try {
            new HostPortHttpField(hostname);
            return hostname;
        } catch (IllegalArgumentException | HttpException.RuntimeException notAHost) {
            return null;
        }
    }
}
