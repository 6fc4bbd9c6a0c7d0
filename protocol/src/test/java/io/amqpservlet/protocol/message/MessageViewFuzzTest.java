package io.amqpservlet.protocol.message;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpScanner;
import io.amqpservlet.protocol.codec.AmqpHandler;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;

/**
 * Coverage-guided fuzzing of {@link MessageView} (docs/fuzzing.md): any bytes as a message, indexed, then every
 * field read as an application would, each read on its own (an application that reads one field sees only that
 * field's fault). Only a {@link DecodeException} may escape {@code wrap} or a read; every offset the view reports
 * lies inside the message; memory follows the input ({@link AllocationBudget}).
 */
class MessageViewFuzzTest {
    private static final Symbol SOME_KEY = Symbol.of("x-opt-key");
    /** Walks a value to its end, touching nothing: the walk itself checks every size and count. */
    private static final AmqpHandler SKIP_ALL = new AmqpHandler() {
        @Override
        public void onScalar(AmqpReader cursor) {
        }
    };

    @FuzzTest(maxDuration = "5m")
    void readsEveryFieldOfAnyMessage(byte[] input) {
        AllocationBudget.check("MessageView", input.length, () -> readEverything(input));
    }

    private static void readEverything(byte[] input) {
        MessageView view = new MessageView();
        try {
            view.wrap(input, 0, input.length);
        } catch (DecodeException e) {
            return;
        }
        checkLayout(view, input.length);
        MutableBytes bytes = new MutableBytes();
        MessageId id = new MessageId();
        AmqpReader reader = new AmqpReader();
        AmqpScanner scanner = new AmqpScanner(reader);
        MapCursor cursor = new MapCursor();
        read(() -> view.readHeader(new Header()));
        read(() -> view.readProperties(new Properties()));
        for (int field = 0; field < Properties.FIELD_COUNT; field++) {
            int f = field;
            read(() -> view.propertiesField(f, bytes));
            read(() -> view.propertiesFieldAsString(f));
            read(() -> view.positionOnPropertiesField(f, reader));
        }
        for (int field = 0; field < 5; field++) {
            int f = field;
            read(() -> view.positionOnHeaderField(f, reader));
        }
        read(() -> view.messageId(id));
        read(() -> view.correlationId(id));
        read(() -> view.subjectAsString());
        read(() -> view.applicationPropertyAsString("http:host"));
        read(() -> view.applicationProperty("content-length", bytes));
        read(() -> view.positionOnMessageAnnotation(SOME_KEY, reader));
        read(() -> view.positionOnDeliveryAnnotation(SOME_KEY, reader));
        read(() -> view.positionOnFooterEntry(SOME_KEY, reader));
        read(() -> walkMap(view.openApplicationProperties(cursor), cursor, bytes));
        read(() -> walkMap(view.openMessageAnnotations(cursor), cursor, bytes));
        read(() -> walkMap(view.openDeliveryAnnotations(cursor), cursor, bytes));
        read(() -> walkMap(view.openFooter(cursor), cursor, bytes));
        read(() -> view.positionOnAmqpValue(reader));
        BodySections body = view.body();
        for (int i = 0; i < body.count(); i++) {
            int index = i;
            read(() -> view.positionOnBodySection(index, reader));
            if (body.kind() != MessageSection.DATA) {
                read(() -> scanner.scan(input, body.contentOffset(index), body.contentLength(index), SKIP_ALL));
            }
        }
        byte[] data = new byte[(int) body.dataLength()];
        if (body.copyData(data, 0) != data.length) {
            throw new AssertionError("copyData copied other than dataLength() bytes");
        }
    }

    private static void walkMap(boolean open, MapCursor cursor, MutableBytes bytes) {
        if (!open) {
            return;
        }
        while (cursor.next()) {
            if (cursor.isStringKey() || cursor.isSymbolKey()) {
                cursor.keyInto(bytes);
            }
        }
    }

    /** Every section and body section lies inside the message, in order (AMQP 1.0 §3.2), data within the input. */
    private static void checkLayout(MessageView view, int length) {
        int previousEnd = 0;
        for (MessageSection s : MessageSection.values()) {
            if (view.hasSection(s)) {
                int start = view.sectionStart(s);
                int end = view.sectionEnd(s);
                if (start < previousEnd || end < start || end > length) {
                    throw new AssertionError(s + " at [" + start + ", " + end + ") in a message of " + length
                            + " bytes, after a section ending at " + previousEnd);
                }
                previousEnd = end;
            }
        }
        BodySections body = view.body();
        for (int i = 0; i < body.count(); i++) {
            int start = body.sectionStart(i);
            int end = body.sectionEnd(i);
            int content = body.contentOffset(i);
            if (start < 0 || end > length || content < start || content + body.contentLength(i) > end) {
                throw new AssertionError("body section " + i + " at [" + start + ", " + end + ") content at "
                        + content + "+" + body.contentLength(i) + " in a message of " + length + " bytes");
            }
        }
        if (body.dataLength() > length) {
            throw new AssertionError(body.dataLength() + " data bytes in a message of " + length + " bytes");
        }
    }

    /** Runs one application read; a {@link DecodeException} is that field's documented answer to bad bytes. */
    private static void read(Runnable fieldRead) {
        try {
            fieldRead.run();
        } catch (DecodeException expected) {
            // the documented failure
        }
    }
}
