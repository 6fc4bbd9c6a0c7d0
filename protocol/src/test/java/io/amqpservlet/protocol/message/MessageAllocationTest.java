package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.MessageId;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The request-message workload allocates nothing once warmed up: encode, the servlet bridge's reads, and copy-with-modify. */
class MessageAllocationTest {
    private static final int WARMUP = Integer.getInteger("warmup", 20_000);
    private static final int MEASURED = Integer.getInteger("measured", 10_000);
    private static final Symbol HOP = Symbol.of("x-opt-hop");

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * Bytes allocated by this thread while running {@code body} MEASURED times, after WARMUP runs: the least of
     * up to five rounds. Why rounds: on a loaded machine the JIT is still replacing code after the warm-up, and
     * such a transition occasionally shows up as a few hundred bytes once in a round (never in -Xint runs, where
     * every {@code new} of our code would be counted). A real allocation in the workload costs at least 16 bytes
     * per iteration, 160,000 per round, in every round, so the minimum still catches it.
     */
    private static long allocatedBytes(Runnable body) {
        for (int i = 0; i < WARMUP; i++) {
            body.run();
        }
        long tid = Thread.currentThread().getId();
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5 && least > 0; round++) {
            long before = THREADS.getThreadAllocatedBytes(tid);
            for (int i = 0; i < MEASURED; i++) {
                body.run();
            }
            least = Math.min(least, THREADS.getThreadAllocatedBytes(tid) - before);
        }
        return least;
    }

    private final AmqpWriter out = new AmqpWriter(1024);
    private final MessageWriter messages = new MessageWriter();
    private final MessageView view = new MessageView();
    private final MutableBytes field = new MutableBytes();
    private final MessageId id = new MessageId();
    private final byte[] message = RequestMessageFixture.encode();
    private long sink;

    @Test
    void encodingTheRequestMessageAllocatesNothing() {
        long bytes = allocatedBytes(() -> {
            out.clear();
            sink += RequestMessageFixture.write(messages, out);
        });
        assertEquals(0, bytes);
    }

    @Test
    void readingWhatTheServletBridgeNeedsAllocatesNothing() {
        String[] names = RequestMessageFixture.PROPERTY_NAMES;
        long bytes = allocatedBytes(() -> {
            view.wrap(message, 0, message.length);
            view.subject(field);
            sink += field.length();
            view.to(field);
            sink += field.length();
            view.replyTo(field);
            sink += field.length();
            view.contentType(field);
            sink += field.length();
            view.messageId(id);
            sink += id.bytes().length();
            for (int i = 0; i < names.length; i++) {
                view.applicationProperty(names[i], field);
                sink += field.length();
            }
            sink += view.body().dataOffset(0) + view.body().dataLength(0);
        });
        assertEquals(0, bytes);
    }

    @Test
    void copyWithModifyAllocatesNothing() {
        MessageEditor editor = new MessageEditor();
        view.wrap(message, 0, message.length);
        long bytes = allocatedBytes(() -> {
            out.clear();
            sink += editor.edit(view).ttlMillis(30_000).putMessageAnnotation(HOP, "gw-1").to("/elsewhere")
                    .dropDeliveryAnnotations().writeTo(out);
        });
        assertEquals(0, bytes);
    }
}
