package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.jetty.internal.exchange.EngineInbox;
import io.amqpservlet.jetty.internal.exchange.Exchange;
import io.amqpservlet.jetty.internal.exchange.RequestBody;
import io.amqpservlet.jetty.internal.exchange.ResponsePart;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The events other threads bring to one connection's engine pass: input to read, a write finished or failed, a
 * graceful stop, the budget ending a stalled handshake, Jetty closing the connection, and what the servlet side hands
 * back (finished exchanges, parts of streamed responses, bodies whose reader caught up). Each is recorded here, then
 * the pass runs ({@link EnginePass#drive}), on the calling thread or on the one already running it, which takes it.
 *
 * <p>The queues are made with the first request ({@link #open()}, engine thread), before any other thread can offer
 * to them: a connection that never served a request does not hold them (docs/design.md §2). The executor's hand-off
 * publishes them to servlet threads, the pass's work counter to later driving threads.
 */
final class ConnectionInbox implements EngineInbox, Runnable {
    private final EnginePass pass;
    private volatile boolean fillable;
    private volatile boolean writeCompleted;
    private volatile Throwable writeFailure;
    private volatile boolean stopRequested;
    private volatile boolean evicted;
    private volatile boolean closed;
    private ConcurrentLinkedQueue<Exchange> completed;
    private ConcurrentLinkedQueue<RequestBody> resumed;
    private ConcurrentLinkedQueue<ResponsePart> responseParts;

    ConnectionInbox(EnginePass pass) {
        this.pass = pass;
    }

    /** Engine thread: the queues the servlet side will offer to, made before the first request goes to Jetty. */
    @Override
    public void open() {
        if (completed == null) {
            completed = new ConcurrentLinkedQueue<>();
            resumed = new ConcurrentLinkedQueue<>();
            responseParts = new ConcurrentLinkedQueue<>();
        }
    }

    // ------------------------------------------------------------------------------------------ any thread

    /** The socket may have bytes; {@code nonBlocking} when the caller must not block (the selector). */
    void fillable(boolean nonBlocking) {
        fillable = true;
        pass.drive(nonBlocking);
    }

    void writeCompleted() {
        writeCompleted = true;
        pass.drive(true);
    }

    void writeFailed(Throwable failure) {
        writeFailure = failure;
        pass.drive(true);
    }

    /** A graceful stop: requests that arrive from now on are released, then the connection closes. */
    void stop() {
        stopRequested = true;
        pass.drive(false);
    }

    /** The budget ended this connection's stalled handshake: the pass closes it. */
    void evict() {
        evicted = true;
        pass.drive(true); // the caller may be the selector's thread, admitting a newer connection
    }

    /** Jetty closed the connection. */
    void connectionClosed() {
        closed = true;
        pass.drive(false);
    }

    /**
     * A tick, or the budget's room came back: nothing to record, the pass looks at everything. The inbox itself is the
     * task the scheduler and the executor run for it, so a connection needs no object of its own for them.
     */
    void wakeUp() {
        pass.drive(false);
    }

    /** The scheduler's or the executor's thread: {@link #wakeUp()}. */
    @Override
    public void run() {
        wakeUp();
    }

    /** The scheduler's thread: held output's time is up ({@link OutputCoalescing}); the pass writes it. */
    void holdEnded() {
        pass.drive(true);
    }

    @Override
    public void complete(Exchange exchange) {
        completed.offer(exchange);
        pass.drive(false);
    }

    @Override
    public void responsePart(ResponsePart part) {
        responseParts.offer(part);
        pass.drive(false);
    }

    @Override
    public void resume(RequestBody body) {
        resumed.offer(body);
        pass.drive(false);
    }

    // ------------------------------------------------------------------------------------------ engine thread

    boolean takeFillable() {
        if (fillable) {
            fillable = false;
            return true;
        }
        return false;
    }

    /** The read that back-pressure paused may go on. */
    void fillableAgain() {
        fillable = true;
    }

    boolean takeWriteCompleted() {
        if (writeCompleted) {
            writeCompleted = false;
            return true;
        }
        return false;
    }

    Throwable takeWriteFailure() {
        Throwable failure = writeFailure;
        if (failure != null) {
            writeFailure = null;
        }
        return failure;
    }

    boolean stopRequested() {
        return stopRequested;
    }

    boolean closed() {
        return closed;
    }

    boolean evicted() {
        return evicted;
    }

    /** Whether the servlet side may have handed something back (the queues exist). */
    boolean opened() {
        return completed != null;
    }

    RequestBody takeResumed() {
        return resumed.poll();
    }

    ResponsePart takeResponsePart() {
        return responseParts.poll();
    }

    Exchange takeCompleted() {
        return completed.poll();
    }
}
