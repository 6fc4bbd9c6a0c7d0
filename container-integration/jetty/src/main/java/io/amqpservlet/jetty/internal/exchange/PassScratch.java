package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.internal.mapping.RequestMapper;
import io.amqpservlet.protocol.message.MessageView;

/**
 * What a {@link ServingHandler} needs only during one engine pass (docs/design.md §2): the request mapper, the view of
 * a streamed request's header sections and the buffer response bytes move through. One per thread that drives
 * engines, not one per connection, so 10,000 idle connections do not each hold them; a pass runs on one thread from
 * start to end and keeps none of them when it ends.
 */
final class PassScratch {
    private static final ThreadLocal<PassScratch> BY_THREAD = ThreadLocal.withInitial(PassScratch::new);

    /** Maps requests of plain connections ({@code http}) and of TLS ones ({@code https}). */
    private final RequestMapper plainMapper = new RequestMapper(false);
    private final RequestMapper secureMapper = new RequestMapper(true);
    /** Views the header sections of streamed requests (the engine's own view belongs to onMessage). */
    final MessageView headView = new MessageView();
    /** Moves response bytes from Jetty's (maybe direct) buffers into the engine. */
    final byte[] bytes = new byte[16 * 1024];

    /** The calling thread's scratch. */
    static PassScratch get() {
        return BY_THREAD.get();
    }

    RequestMapper mapper(boolean secure) {
        return secure ? secureMapper : plainMapper;
    }
}
