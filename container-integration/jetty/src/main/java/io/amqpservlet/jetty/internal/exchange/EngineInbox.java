package io.amqpservlet.jetty.internal.exchange;

/**
 * How what the servlet side produces reaches its connection's engine pass, from any thread: each call records the
 * event and runs the pass on the calling thread, or leaves the event to the thread that is running it. Nothing
 * blocks and no lock is held while the pass encodes or writes (docs/design.md §2).
 */
public interface EngineInbox {
    /** Engine thread: readies the inbox for what the servlet side will hand back, before the first request goes. */
    void open();

    /** A finished exchange: its response (or one-way status), a failure, or a timeout's 503, to send and settle. */
    void complete(Exchange exchange);

    /** A part of a response that streams, to send as the reply link has room; its write completes then. */
    void responsePart(ResponsePart part);

    /** A streamed request's reader caught up: the session window it held may be let go of. */
    void resume(RequestBody body);
}
