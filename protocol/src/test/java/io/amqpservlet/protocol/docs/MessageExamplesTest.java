package io.amqpservlet.protocol.docs;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.message.MapCursor;
import io.amqpservlet.protocol.message.MessageEditor;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.text.KnownStrings;
import io.amqpservlet.protocol.text.PercentEncoder;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.transport.Performative;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The message, performative, frame and text examples of docs/protocol.md. Keep the two in step. */
class MessageExamplesTest {

    // docs/protocol.md: "Write a message"
    static int writeRequest(MessageWriter messages, AmqpWriter out, byte[] body) {
        return messages.wrap(out)
                .header(true)
                .startProperties()
                .messageId("req-1")
                .to("/orders/42")
                .subject("GET")
                .replyTo("amqp-reply-7f3a2c")
                .endProperties()
                .startApplicationProperties()
                .put("accept", "application/json")
                .endApplicationProperties()
                .data(body, 0, body.length)
                .end();
    }

    // docs/protocol.md: "Scan a message for what you need"
    static String describe(MessageView view, MutableBytes scratch) {
        view.subject(scratch);                          // bytes copied into a reusable holder, no String
        boolean isGet = scratch.contentEquals("GET");
        view.applicationProperty("accept", scratch);    // one property by name; the others are not decoded
        int bodyBytes = (int) view.body().dataLength(); // data sections are offsets into the buffer
        return (isGet ? "GET" : "other") + " accept=" + scratch + " body=" + bodyBytes;
    }

    // docs/protocol.md: "Every application property"
    static List<String> headerNames(MessageView view) {
        List<String> names = new ArrayList<>();
        MapCursor entries = new MapCursor();
        if (view.openApplicationProperties(entries)) {
            while (entries.next()) {
                names.add(entries.keyString());           // entries.value() is a reader on the value
            }
        }
        return names;
    }

    // docs/protocol.md: "Copy with modification"
    static int forwardWithTtl(MessageView original, AmqpWriter out) {
        return new MessageEditor().edit(original)
                .ttlMillis(30_000)
                .putMessageAnnotation(Symbol.of("x-opt-hops"), 1)
                .writeTo(out);                            // every other section copied byte for byte
    }

    // docs/protocol.md: "Frames and performatives"
    static int deliveryIdOfFirstTransfer(byte[] stream, int length) {
        FrameReader frames = new FrameReader(64 * 1024);
        Performatives performatives = new Performatives();   // one reusable instance per type
        AmqpReader reader = new AmqpReader();
        int p = 0;
        while (frames.read(stream, p, length - p)) {
            reader.wrap(stream, frames.bodyOffset(), frames.bodyLength());
            Performative perf = performatives.decode(reader);
            if (perf == performatives.transfer()) {
                return performatives.transfer().deliveryId(); // payload starts at reader.position()
            }
            p += frames.frameSize();
        }
        return -1;
    }

    @Test
    void writeScanEditAndFrame() {
        AmqpWriter out = new AmqpWriter();
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        int length = writeRequest(new MessageWriter(), out, body);
        MessageView view = new MessageView().wrap(out.array(), 0, length);
        assertEquals("GET accept=application/json body=2", describe(view, new MutableBytes()));
        assertEquals(List.of("accept"), headerNames(view));

        AmqpWriter copy = new AmqpWriter();
        int copied = forwardWithTtl(view, copy);
        MessageView edited = new MessageView().wrap(copy.array(), 0, copied);
        AmqpReader r = new AmqpReader();
        assertTrue(edited.positionOnHeaderField(2, r));
        assertEquals(30_000, r.getLong());
        assertEquals("/orders/42", edited.toAsString());

        AmqpWriter frame = new AmqpWriter();
        int start = FrameWriter.begin(frame, FrameHeader.TYPE_AMQP, 0);
        new Transfer().handle(0).deliveryId(7).deliveryTag(new byte[] {1}, 0, 1).encode(frame);
        FrameWriter.appendPayload(frame, out.array(), 0, length);
        FrameWriter.end(frame, start);
        assertEquals(7, deliveryIdOfFirstTransfer(frame.array(), frame.length()));
    }

    @Test
    void textTools() {
        // docs/protocol.md: "Text tools"
        String target = PercentEncoder.REQUEST_TARGET.encode("/files/a b?q=ü");   // what a URI forbids, escaped
        byte[] name = "Content-Type".getBytes(StandardCharsets.US_ASCII);
        String cached = KnownStrings.CACHE.lookupIgnoreCase(name, 0, name.length); // the shared "content-type"
        assertEquals("/files/a%20b?q=%C3%BC", target);
        assertSame(KnownStrings.CACHE.lookup("content-type".getBytes(StandardCharsets.US_ASCII), 0, 12), cached);
    }
}
