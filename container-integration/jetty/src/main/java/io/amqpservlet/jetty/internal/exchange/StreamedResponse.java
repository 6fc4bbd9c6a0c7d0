package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Link;
import org.eclipse.jetty.io.EofException;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A response that goes out while the servlet writes it: one delivery of many transfers on the reply link
 * ({@link Link#beginMessage}), fed as the link has room, so what waits for the client's credit and window is at
 * most {@value #UNSENT_LIMIT_BYTES} bytes plus one frame. A servlet's write completes (its callback) only once its
 * bytes are with the link within that limit, which blocks a blocking writer and holds back an async one.
 *
 * <p>A reply link carries one delivery at a time, so a second streamed response for the same link waits here
 * ({@link ReplyLinkQueue}) until the first ends; its servlet's writes wait with it.
 *
 * <p>Engine thread only.
 */
public final class StreamedResponse {
    /** The most bytes of a streamed response given to the reply link and not yet sent. */
    public static final int UNSENT_LIMIT_BYTES = 64 * 1024;

    /** The streamed responses of one reply link: the one that is open and those waiting for it. */
    static final class ReplyLinkQueue {
        StreamedResponse open;
        final ArrayDeque<StreamedResponse> waiting = new ArrayDeque<>();
    }

    private final Settlement settlement;
    private final Exchange exchange;
    private final Link link;
    private final ArrayDeque<ResponsePart> parts = new ArrayDeque<>();
    private Delivery delivery;
    private boolean prefixSent;
    private boolean ended;
    private boolean pumping;

    StreamedResponse(Settlement settlement, Exchange exchange, Link link) {
        this.settlement = settlement;
        this.exchange = exchange;
        this.link = link;
        settlement.streaming().add(this);
    }

    Delivery delivery() {
        return delivery;
    }

    /** The reply link this response goes out on. */
    Link link() {
        return link;
    }

    boolean ended() {
        return ended;
    }

    /** A part from the servlet (in order): sent as far as the link allows now, the rest when it has room. */
    void add(ResponsePart part, byte[] scratch) {
        parts.add(part);
        ReplyLinkQueue queue = queueOf(link);
        if (queue.open == null) {
            queue.open = this;
        } else if (queue.open != this) {
            if (!queue.waiting.contains(this)) {
                queue.waiting.add(this); // another response has the link: wait for its end
            }
            return;
        }
        pump(scratch);
    }

    static ReplyLinkQueue queueOf(Link link) {
        Object a = link.attachment();
        if (a instanceof ReplyLinkQueue) {
            return (ReplyLinkQueue) a;
        }
        ReplyLinkQueue q = new ReplyLinkQueue();
        link.attachment(q);
        return q;
    }

    /** The reply link has room again (or this response just got the link): move bytes, complete writes. */
    void pump(byte[] scratch) {
        if (pumping) {
            return; // completing a write can bring the next part (and onSendable) back here: the loop takes it
        }
        pumping = true;
        try {
            pumpParts(scratch);
        } finally {
            pumping = false;
        }
    }

    private void pumpParts(byte[] scratch) {
        ResponsePart part;
        while (!ended && (part = parts.peek()) != null) {
            try {
                if (delivery == null) {
                    delivery = link.beginMessage(part.head, part.headOffset, part.headLength, false);
                    if (delivery == null) {
                        fail(new EofException("the reply link ended before the response could be sent"), true);
                        return;
                    }
                }
                if (part.prefix != null && !prefixSent) {
                    if (!link.appendMessage(delivery, part.prefix, 0, part.prefix.length)) {
                        fail(new EofException("the reply link ended while the response was sent"), true);
                        return;
                    }
                    prefixSent = true;
                }
                ByteBuffer content = part.content;
                while (content != null && content.hasRemaining()) {
                    long room = UNSENT_LIMIT_BYTES - link.unsentBytes(delivery);
                    if (room <= 0) {
                        return; // onSendable brings us back
                    }
                    int n = (int) Math.min(Math.min(room, content.remaining()), scratch.length);
                    content.get(scratch, 0, n);
                    if (!link.appendMessage(delivery, scratch, 0, n)) {
                        fail(new EofException("the reply link ended while the response was sent"), true);
                        return;
                    }
                }
            } catch (IllegalArgumentException tooLarge) {
                fail(settlement.responseTooLarge(exchange, tooLarge), false); // beyond the client's max-message-size
                return;
            }
            if (link.unsentBytes(delivery) > UNSENT_LIMIT_BYTES) {
                return;
            }
            parts.poll();
            prefixSent = false;
            if (part.last) {
                link.endMessage(delivery);
                finish();
                exchange.callback(part.callback);
                settlement.complete(link.session().engine(), exchange, false); // settles the request
            } else {
                ServingHandler.succeed(part.callback);
            }
        }
    }

    /**
     * The exchange ended without its last part (the servlet failed, the request timed out, the link ended): the
     * delivery is aborted on the wire (AMQP 1.0 §2.6.14) and every waiting write fails.
     */
    void abort(Throwable cause) {
        if (ended) {
            return;
        }
        if (delivery != null) {
            link.abortMessage(delivery);
        }
        ResponsePart p;
        while ((p = parts.poll()) != null) {
            ServingHandler.fail(p.callback, cause);
        }
        finish();
    }

    private void fail(Throwable cause, boolean linkGone) {
        exchange.failure = cause;
        exchange.responseTooLarge = !linkGone;
        abort(cause);
        settlement.complete(link.session().engine(), exchange, false);
    }

    /** Leaves the link to the next waiting response. */
    private void finish() {
        ended = true;
        settlement.streaming().remove(this);
        ReplyLinkQueue queue = queueOf(link);
        queue.waiting.remove(this);
        if (queue.open == this) {
            queue.open = queue.waiting.poll();
            if (queue.open != null) {
                queue.open.pump(PassScratch.get().bytes);
            }
        }
    }

    /** Engine callback: a reply link has room again. */
    static void onSendable(Link link, byte[] scratch) {
        Object a = link.attachment();
        if (a instanceof ReplyLinkQueue) {
            StreamedResponse open = ((ReplyLinkQueue) a).open;
            if (open != null) {
                open.pump(scratch);
            }
        }
    }

    /** The connection closed: this response fails, and the writes waiting in it. */
    void connectionClosed() {
        if (!ended) {
            fail(new EofException("the AMQP connection closed while the response was sent"), true);
        }
    }

    /** Engine callback: a reply link ended: its streamed responses fail (their writes too) and are settled so. */
    static void onLinkEnded(Link link) {
        Object a = link.attachment();
        if (a instanceof ReplyLinkQueue) {
            ReplyLinkQueue queue = (ReplyLinkQueue) a;
            ArrayDeque<StreamedResponse> all = new ArrayDeque<>(queue.waiting);
            if (queue.open != null) {
                all.addFirst(queue.open);
            }
            for (StreamedResponse r : all) {
                if (!r.ended) {
                    r.fail(new EofException("the reply link ended while the response was sent"), true);
                }
            }
        }
    }
}
