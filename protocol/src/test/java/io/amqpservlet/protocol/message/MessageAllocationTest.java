package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.MessageId;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The request-message workload allocates nothing once warmed up: encode, the servlet bridge's reads, and copy-with-modify. */
class MessageAllocationTest {
    /** Iterations per run of a measured loop; it is run twice to warm up, then measured. */
    private static final int ITERATIONS = 10_000;
    private static final Symbol HOP = Symbol.of("x-opt-hop");

    private final AmqpWriter out = new AmqpWriter(1024);
    private final MessageWriter messages = new MessageWriter();
    private final MessageView view = new MessageView();
    private final MutableBytes field = new MutableBytes();
    private final MessageId id = new MessageId();
    private final byte[] message = RequestMessageFixture.encode();
    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    @Test
    void encodingTheRequestMessageAllocatesNothing() {
        Runnable loop = () -> {
            for (int n = 0; n < ITERATIONS; n++) {
                out.clear();
                sink += RequestMessageFixture.write(messages, out);
            }
        };
        loop.run();
        loop.run();
        assertEquals(2L * ITERATIONS * message.length, sink, "encoded the fixture's size every time");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }

    @Test
    void readingWhatTheServletBridgeNeedsAllocatesNothing() {
        String[] names = RequestMessageFixture.PROPERTY_NAMES;
        Runnable loop = () -> {
            for (int n = 0; n < ITERATIONS; n++) {
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
            }
        };
        loop.run();
        loop.run();
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }

    @Test
    void copyWithModifyAllocatesNothing() {
        MessageEditor editor = new MessageEditor();
        view.wrap(message, 0, message.length);
        Runnable loop = () -> {
            for (int n = 0; n < ITERATIONS; n++) {
                out.clear();
                sink += editor.edit(view).ttlMillis(30_000).putMessageAnnotation(HOP, "gw-1").to("/elsewhere")
                        .dropDeliveryAnnotations().writeTo(out);
            }
        };
        loop.run();
        loop.run();
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
