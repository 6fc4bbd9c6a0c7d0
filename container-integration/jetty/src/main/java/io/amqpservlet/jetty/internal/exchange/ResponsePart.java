package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;

/**
 * One piece of a response that streams: what a servlet thread hands to the engine thread for one {@code send}.
 * The content buffer is the servlet's (Jetty's) until the callback completes, so it is read in place, as the
 * reply link has room, never copied on the servlet thread.
 */
public final class ResponsePart {
    final Exchange exchange;
    /** The encoded message so far (header sections, the data section's header, the bytes buffered): first part only. */
    final byte[] head;
    final int headOffset;
    final int headLength;
    /** Bytes to send before {@link #content} (the header of a further data section), or null. */
    final byte[] prefix;
    /** The body bytes of this send, or null; consumed as they go. */
    final ByteBuffer content;
    final boolean last;
    final Callback callback;

    ResponsePart(Exchange exchange, byte[] head, int headOffset, int headLength, byte[] prefix,
                     ByteBuffer content, boolean last, Callback callback) {
        this.exchange = exchange;
        this.head = head;
        this.headOffset = headOffset;
        this.headLength = headLength;
        this.prefix = prefix;
        this.content = content;
        this.last = last;
        this.callback = callback;
    }
}
