package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.jetty.internal.exchange.ServingHandler;
import io.amqpservlet.jetty.internal.mapping.RequestMapper;
import io.amqpservlet.protocol.message.MessageView;

/**
 * What an {@link ServingHandler} needs only during one engine pass (docs/design.md §2): the request mapper, the
 * view of a streamed request's header sections and the buffer response bytes move through. One per thread that
 * drives engines, not one per connection, so 10,000 idle connections do not each hold them; a pass runs on one
 * thread from start to end and keeps none of them when it ends.
 */
public final class PassScratch {
    private static final ThreadLocal<PassScratch> BY_THREAD = ThreadLocal.withInitial(PassScratch::new);

    /** Maps requests of plain connections ({@code http}) and of TLS ones ({@code https}). */
    public final RequestMapper plainMapper = new RequestMapper(false);
    public final RequestMapper secureMapper = new RequestMapper(true);
    /** Views the header sections of streamed requests (the engine's own view belongs to onMessage). */
    public final MessageView headView = new MessageView();
    /** Moves response bytes from Jetty's (maybe direct) buffers into the engine. */
    public final byte[] bytes = new byte[16 * 1024];

    /** The calling thread's scratch. */
    public static PassScratch get() {
        return BY_THREAD.get();
    }

    public RequestMapper mapper(boolean secure) {
        return secure ? secureMapper : plainMapper;
    }
}
