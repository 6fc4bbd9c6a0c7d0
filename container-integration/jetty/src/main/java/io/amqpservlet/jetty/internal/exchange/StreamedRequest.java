package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.SectionScanner;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.io.EofException;

import java.util.Arrays;

/**
 * One request message that arrives in several transfer frames, read as it comes (the engine's streaming mode):
 * the header sections are kept until the first data section starts, then the request goes to the servlet and the
 * data bytes follow it through an {@link RequestBody}. The frames' payloads are the encoded message split
 * anywhere; a {@link SectionScanner} finds the sections in them.
 *
 * <p>A body that is not data sections (an amqp-value, amqp-sequence), or a message with no body, is kept whole and
 * served as a one-frame message is: such bodies are small in practice, and the engine's max-message-size still
 * bounds them. The header sections are bounded by {@link #MAX_HEAD_BYTES}.
 *
 * <p>Once its header sections are in, the request is admitted or not by the same {@link RequestAdmission} as a whole
 * message, before any servlet sees it: released at once while the server is stopping or over its byte budget, when
 * the budget has no room to reserve what its session window may still bring ({@link RequestBody#admitStream()}), or
 * when the client's reply link backs up (the engine drops its remaining frames, AMQP 1.0 §2.6.12); answered without
 * a servlet when it is no HTTP request or has expired. The request delivery is settled only once the whole message
 * has arrived: an answer that comes earlier (the servlet's, or one made without it) is parked here ({@link #park})
 * until the last frame, the rest of the body being dropped meanwhile. Engine thread only.
 */
final class StreamedRequest implements SectionScanner.Listener {
    /** The most bytes of header sections (everything before the body) kept for one request. */
    static final int MAX_HEAD_BYTES = 1024 * 1024;

    private enum Phase { HEAD, STREAM, WHOLE, DISCARD }

    private final ServingHandler handler;
    private final Link link;
    private final Delivery delivery;
    private final SectionScanner scanner = new SectionScanner();
    private Phase phase = Phase.HEAD;
    private byte[] buffer = new byte[256];
    private int buffered;
    /** What {@link #buffer} counts in the byte budget now: the bytes kept of the head, or of a body kept whole. */
    private int counted;
    private Exchange exchange;
    private Exchange parked;
    private String rejectAtEnd;
    /** The body length the client declared (a content-length application-property), or -1. */
    private long declaredLength = -1;
    /** Data bytes streamed to the servlet so far. */
    private long streamedBytes;
    /** The condition {@link #rejectAtEnd} is rejected with: a decode error, or a limit. */
    private Symbol rejectCondition = ErrorConditions.DECODE_ERROR;

    StreamedRequest(ServingHandler handler, Link link, Delivery delivery) {
        this.handler = handler;
        this.link = link;
        this.delivery = delivery;
    }

    Delivery delivery() {
        return delivery;
    }

    /** The payload of one transfer frame; {@code last} for the message's final frame. */
    void chunk(byte[] payload, int offset, int length, boolean last) {
        if ((phase == Phase.HEAD || phase == Phase.WHOLE) && !handler.admission.takesRequests()) {
            // Shutdown or overload while the head, or a body kept whole, arrives: what was kept is dropped, and the
            // request released as a whole message is.
            settleNow();
            handler.release(link.session().engine(), delivery);
            return;
        }
        if (phase == Phase.HEAD || phase == Phase.WHOLE) {
            if (phase == Phase.HEAD && buffered > MAX_HEAD_BYTES) {
                discard("the header sections exceed " + MAX_HEAD_BYTES + " bytes");
                rejectCondition = ErrorConditions.RESOURCE_LIMIT_EXCEEDED;
            } else {
                keep(payload, offset, length);
            }
        }
        if (phase != Phase.DISCARD) {
            try {
                scanner.feed(payload, offset, length, this);
                if (last && !scanner.atSectionBoundary()) {
                    throw new IllegalArgumentException("the message ends inside its " + scanner.section().specName()
                            + " section");
                }
            } catch (DecodeException | IllegalArgumentException e) {
                malformed(e.getMessage());
            }
        }
        if (last) {
            end();
        }
    }

    private void keep(byte[] payload, int offset, int length) {
        if (buffered + length > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffered + length, buffer.length * 2));
        }
        System.arraycopy(payload, offset, buffer, buffered, length);
        buffered += length;
        counted += length;
        handler.budget.addRequestBytes(length); // kept in memory until served or dropped, as a body waiting is
    }

    /** The kept bytes are no longer held here (copied into a request, or dropped): the budget gets them back. */
    private void dropKept() {
        buffer = null;
        if (counted > 0) {
            handler.budget.addRequestBytes(-counted);
            counted = 0;
        }
    }

    @Override
    public void onSection(MessageSection section, long position) {
        if (phase == Phase.HEAD && section.isBody()) {
            if (section == MessageSection.DATA) {
                buffered = (int) position; // the header sections only
                phase = Phase.STREAM;
                start();
            } else {
                phase = Phase.WHOLE;
            }
        } else if (phase == Phase.STREAM && section != MessageSection.DATA && section != MessageSection.FOOTER) {
            throw new IllegalArgumentException(section.specName() + " section after data sections: a body has one kind");
        }
    }

    @Override
    public void onData(byte[] bytes, int offset, int length) {
        if (phase == Phase.STREAM) {
            streamedBytes += length;
            if (declaredLength >= 0 && streamedBytes > declaredLength) {
                // As an HTTP/1 server would not take more than Content-Length as this request's body: the read
                // fails (a 400 if the servlet has not answered), and the rest of the message is dropped.
                exchange.streamedBody.fail(new BadMessageException("the request body is longer than its declared "
                        + "content-length " + declaredLength));
                phase = Phase.DISCARD;
                return;
            }
            exchange.streamedBody.offer(bytes, offset, length);
        }
    }

    /** The header sections are here: the request goes to the servlet, its body to follow, or is answered without. */
    private void start() {
        Exchange e = handler.newExchange(delivery);
        ExchangeDispatcher dispatcher = handler.dispatcher();
        e.streamedBody = new RequestBody(dispatcher, handler.budget, link.session());
        e.streamedRequest = this;
        try {
            handler.mapHead(buffer, buffered, link, e);
        } catch (DecodeException | IllegalArgumentException x) {
            discard(null);
            rejectAtEnd = x.getMessage();
            return;
        }
        exchange = e;
        dropKept(); // the head was copied into the request's fields
        if (e.request.request() != null) {
            declaredLength = e.request.request().getContentLength();
        }
        Engine engine = link.session().engine();
        RequestAdmission.Verdict verdict = handler.admission.admit(e, handler, engine);
        if (verdict == RequestAdmission.Verdict.SERVE && !e.streamedBody.admitStream()) {
            verdict = RequestAdmission.Verdict.RELEASE; // no room for what its window may still bring
        }
        switch (verdict) {
            case SERVE:
                handler.countServed(e, 0); // its body counts as it arrives (RequestBody)
                dispatcher.dispatch(e);
                break;
            case RELEASE:
                e.streamedBody.discard();
                settleNow();
                handler.release(engine, delivery);
                break;
            case REFUSE:
                handler.settings.counters().refused.increment();
                handler.settlement().answerWithoutServlet(engine, e, e.request.refusedStatus(),
                        e.request.refusedReason()); // parked until the last frame
                break;
            default:
                if (!e.wantsResponse()) {
                    e.streamedBody.discard();
                    settleNow(); // rejected now: nothing waits for the rest
                }
                handler.settlement().expired(engine, e); // with a reply-to, answered 504 at the last frame
                break;
        }
    }

    /**
     * The request is settled before its last frame (AMQP 1.0 §2.6.12 lets a receiver do so): the engine drops the
     * frames still to come without handing them on, and no servlet runs.
     */
    private void settleNow() {
        link.attachment(null);
        phase = Phase.DISCARD;
        dropKept();
    }

    private void malformed(String reason) {
        if (exchange != null) {
            // The servlet already has the request: its body read fails (a 400 if it has not answered yet).
            exchange.streamedBody.fail(new BadMessageException("malformed request message: " + reason));
            phase = Phase.DISCARD;
        } else {
            discard(null);
            rejectAtEnd = reason;
        }
    }

    private void discard(String rejectReason) {
        phase = Phase.DISCARD;
        dropKept();
        if (rejectReason != null) {
            rejectAtEnd = rejectReason;
        }
    }

    private void end() {
        link.attachment(null);
        Engine engine = link.session().engine();
        switch (phase) {
            case HEAD:
            case WHOLE:
                // No data section: served whole, as a message that fits in one frame is (its body counted again
                // once it goes to a servlet, so the kept bytes are given back first).
                byte[] whole = buffer;
                dropKept();
                handler.serveWhole(link, delivery, whole, buffered);
                return;
            case STREAM:
                if (declaredLength >= 0 && streamedBytes != declaredLength) {
                    exchange.streamedBody.fail(new BadMessageException("the request body ends after "
                            + streamedBytes + " bytes, short of its declared content-length " + declaredLength));
                } else {
                    exchange.streamedBody.end();
                }
                break;
            default:
                if (exchange != null && exchange.streamedBody != null) {
                    exchange.streamedBody.discard();
                }
                break;
        }
        if (rejectAtEnd != null && exchange == null) {
            // docs/design.md §3: a message that cannot produce a response is rejected with amqp:decode-error.
            handler.settings.counters().refused.increment();
            engine.reject(delivery, rejectCondition, rejectAtEnd);
        }
        unpark(engine);
    }

    /**
     * The servlet answered before the message ended: the response waits until the last frame, since a delivery is
     * settled only once it is complete; the rest of the body is dropped, which also lets go of the window.
     */
    void park(Exchange answered) {
        answered.streamedBody.discard();
        if (phase == Phase.STREAM) {
            phase = Phase.DISCARD;
        }
        parked = answered;
    }

    /**
     * The link ended or the sender aborted before the last frame: the body fails, a parked answer goes out. An
     * aborted message is discarded as if it had never been sent (AMQP 1.0 §2.6.14): its answer goes nowhere, since a
     * broker delivers it again and the redelivery is answered.
     */
    void abandoned(String why, boolean aborted) {
        link.attachment(null);
        dropKept();
        if (exchange != null) {
            exchange.requestAborted = aborted;
            exchange.streamedBody.fail(new EofException(why));
        }
        unpark(link.session().engine());
    }

    /**
     * The message grew past the size limit and the engine rejected it: as for an abort, the body fails with
     * {@code why} and no answer goes out. {@return whether its head had made an exchange already: then the request
     * was counted where admission sent it}
     */
    boolean tooLarge(String why) {
        boolean counted = exchange != null;
        abandoned(why, true);
        return counted;
    }

    private void unpark(Engine engine) {
        Exchange p = parked;
        if (p != null) {
            parked = null;
            handler.settlement().complete(engine, p, false);
        }
    }
}
