package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.TimeoutException;

/**
 * What the engine thread does with an exchange that is answered (docs/design.md §3, outcomes): sends its response on
 * the reply link, whole or as the parts of a streamed one, and settles its request: accepted once the response is on
 * its way (in attach mode, once the broker accepted it), released after a timeout's 503, modified with
 * delivery-failed when no whole response was produced, settled by status when one-way
 * ({@link OneWayOutcome}). Also answers requests that never reach a servlet (refused, expired). A request delivery
 * is settled only once the whole message has arrived. Engine thread only.
 */
final class Settlement {
    /** Why a response to a request message its sender aborted fails: nothing answers it (AMQP 1.0 §2.6.14). */
    private static final String ABORTED = "the sender aborted the request message: not answered";

    private final ServingHandler handler;
    private final ConnectionReusables reusables;
    /** The responses going out in parts now. */
    private final ArrayList<StreamedResponse> streaming = new ArrayList<>();

    Settlement(ServingHandler handler, ConnectionReusables reusables) {
        this.handler = handler;
        this.reusables = reusables;
    }

    /** The response to {@code exchange} is too large for its client: see {@link ServingHandler#responseTooLarge}. */
    ResponseTooLargeException responseTooLarge(Exchange exchange, IllegalArgumentException tooLarge) {
        return handler.responseTooLarge(exchange, tooLarge);
    }

    /**
     * A request that cannot be served (docs/mapping.md): answered with {@code status} at once, without a servlet, as
     * a server answers a bad request line; a one-way one is settled by that status.
     */
    void answerWithoutServlet(Engine engine, Exchange exchange, int status, String reason) {
        if (exchange.wantsResponse()) {
            HttpFields.Mutable headers = HttpFields.build();
            headers.put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
            ResponseEncoder encoder = reusables.encoder();
            encoder.begin(status, headers, exchange.request.replyTo(), exchange.request.correlationId(),
                    HttpVersion.HTTP_1_1, false, exchange.durableResponse);
            encoder.data(ByteBuffer.wrap(reason.getBytes(StandardCharsets.UTF_8)));
            encoder.end();
            exchange.answer(status, encoder);
        } else {
            exchange.answer(status, null);
        }
        exchange.answeredWithoutServlet(status);
        complete(engine, exchange, false);
    }

    /**
     * A request whose expiry passed before it could be served (docs/mapping.md, "Expiry"): no servlet runs. With a
     * reply-to it is answered 504 and accepted, so the client hears at once rather than at its own timeout, and a
     * broker does not deliver it again; a one-way request is rejected, so a broker dead-letters it instead of
     * retrying what nobody wants any more.
     */
    void expired(Engine engine, Exchange exchange) {
        handler.settings.counters().expired.increment();
        if (!exchange.wantsResponse()) {
            engine.reject(exchange.delivery, ErrorConditions.PRECONDITION_FAILED,
                    "the request expired before it was served");
            if (exchange.streamedRequest == null) {
                reusables.release(exchange); // never dispatched: no one else saw it
            }
            return;
        }
        answerWithoutServlet(engine, exchange, HttpStatus.GATEWAY_TIMEOUT_504,
                "the request expired before it was served");
    }

    /**
     * An exchange came back from Jetty (or was answered without it): sends its response on the reply link and
     * settles the request delivery, or for a one-way request settles it by status.
     */
    void complete(Engine engine, Exchange exchange, boolean transportClosing) {
        Delivery request = exchange.liveDelivery();
        StreamedRequest streamed = exchange.streamedRequest;
        if (streamed != null && request != null && !request.complete() && !transportClosing) {
            streamed.park(exchange); // settled only once complete: answered at its last frame
            return;
        }
        if (exchange.settled) {
            return;
        }
        exchange.settled = true;
        try {
            settle(engine, exchange, request, transportClosing);
        } finally {
            // The reply link copied the response (sent or queued it), or it is not going anywhere.
            handler.servedDone(exchange);
            ResponseEncoder encoder = exchange.encoder;
            exchange.encoder = null;
            exchange.response = null;
            reusables.release(encoder);
            if (exchange.engineDone()) {
                reusables.release(exchange);
            }
        }
    }

    /** Sends the response of an exchange the engine thread has just completed, and settles its request. */
    private void settle(Engine engine, Exchange exchange, Delivery request, boolean transportClosing) {
        if (exchange.streamedBody != null) {
            exchange.streamedBody.discard();
        }
        StreamedResponse streamedResponse = exchange.streamedResponse;
        if (exchange.requestAborted) {
            // AMQP 1.0 §2.6.14: the request message was discarded, as if never sent: there is no delivery to settle,
            // and a broker delivers it again, so an answer now would answer it twice.
            EofException aborted = new EofException(ABORTED);
            if (streamedResponse != null) {
                streamedResponse.abort(aborted);
            }
            ServingHandler.fail(exchange.takeCallback(), aborted);
            return;
        }
        boolean timedOut = exchange.timedOut();
        if (timedOut && streamedResponse != null && exchange.failure == null && !streamedResponse.ended()) {
            // Part of the response is already out: no 503 can replace it, so it is aborted instead.
            exchange.failure = new TimeoutException("request timed out while its response streamed");
        }
        if (exchange.failure != null) {
            if (streamedResponse != null) {
                streamedResponse.abort(exchange.failure);
            }
            if (request != null && timedOut) {
                engine.release(request);
            } else if (request != null) {
                // No (whole) response was produced: the client may retry; one too large for it: not here.
                engine.modified(request, true, exchange.responseTooLarge);
            }
            return;
        }
        Callback callback = exchange.takeCallback();
        if (streamedResponse != null) {
            // Its last part is queued on the reply link (StreamedResponse): settle the request.
            if (request != null) {
                handler.answered(engine, streamedResponse.link(), streamedResponse.delivery(), request, false);
            }
            ServingHandler.succeed(callback);
            return;
        }
        if (!exchange.wantsResponse()) {
            if (request != null && timedOut) {
                engine.release(request);
            } else if (request != null) {
                OneWayOutcome.settle(engine, request, exchange.status);
            }
            ServingHandler.succeed(callback);
            return;
        }
        if (transportClosing || engine.isDone() || !engine.isOpen()) {
            ServingHandler.fail(callback, new EofException("the AMQP connection closed before the response was sent"));
            return;
        }
        byte[] replyTo = exchange.request.replyTo();
        Link replies = handler.replyLink(engine, exchange);
        if (replies == null) {
            String address = new String(replyTo, StandardCharsets.UTF_8);
            if (request != null) {
                handler.unanswerable(engine, exchange, request, address);
            }
            ServingHandler.fail(callback, new IOException("no reply link for reply-to " + address));
            return;
        }
        Delivery sent;
        try {
            sent = replies.send(exchange.response, exchange.responseOffset, exchange.responseLength, false);
        } catch (IllegalArgumentException tooLarge) {
            if (request != null) {
                engine.modified(request, true, true); // the response exceeds the client's max-message-size
            }
            ServingHandler.fail(callback, handler.responseTooLarge(exchange, tooLarge));
            return;
        }
        if (sent == null) {
            // The reply link's buffer filled up while the servlet ran (the client grants no credit), or the client
            // left the engine's limit of responses unsettled. The servlet has
            // acted on the request, so it is not "released" (§3.4.5: not acted upon) but modified with
            // delivery-failed: the client may retry, knowing it may have been processed.
            if (request != null) {
                engine.modified(request, true, false);
            }
            ServingHandler.fail(callback, new IOException("the reply link to "
                    + new String(replyTo, StandardCharsets.UTF_8) + " buffers too many responses, or the client "
                    + "has not settled too many"));
            return;
        }
        handler.responseSent();
        if (request != null) {
            handler.answered(engine, replies, sent, request, timedOut);
        }
        ServingHandler.succeed(callback);
    }

    /**
     * A part of a response that streams, from a servlet thread: sent on the reply link as it has room (the first
     * part opens the delivery); its write completes when its bytes are with the link.
     */
    void responsePart(Engine engine, ResponsePart part, boolean transportClosing) {
        Exchange exchange = part.exchange;
        if (exchange.settled || exchange.requestAborted) {
            ServingHandler.fail(part.callback, new EofException(exchange.settled
                    ? "the response already ended (timed out or failed)"
                    : ABORTED));
            return;
        }
        StreamedResponse streamed = exchange.streamedResponse;
        if (streamed == null) {
            if (transportClosing || engine.isDone() || !engine.isOpen()) {
                ServingHandler.fail(part.callback,
                        new EofException("the AMQP connection closed before the response was sent"));
                return;
            }
            Link replies = handler.replyLink(engine, exchange);
            if (replies == null) {
                String address = new String(exchange.request.replyTo(), StandardCharsets.UTF_8);
                Delivery request = exchange.liveDelivery();
                if (request != null && (exchange.streamedRequest == null || request.complete())) {
                    handler.unanswerable(engine, exchange, request, address);
                    exchange.settled = true;
                }
                ServingHandler.fail(part.callback, new IOException("no reply link for reply-to " + address));
                return;
            }
            handler.responseSent();
            streamed = new StreamedResponse(this, exchange, replies);
            exchange.streamedResponse = streamed;
        }
        streamed.add(part, PassScratch.get().bytes);
    }

    /** The responses going out in parts now (each adds and removes itself). */
    ArrayList<StreamedResponse> streaming() {
        return streaming;
    }

    /** The connection closed: responses still streaming fail, so no servlet write waits forever. */
    void connectionClosed() {
        if (!streaming.isEmpty()) {
            for (StreamedResponse r : new ArrayList<>(streaming)) {
                r.connectionClosed();
            }
        }
    }
}
