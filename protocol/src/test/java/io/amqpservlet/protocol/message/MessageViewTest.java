package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageViewTest {
    private final MessageView view = new MessageView();
    private final AmqpReader reader = new AmqpReader();
    private final AmqpWriter out = new AmqpWriter();
    private final MessageWriter messages = new MessageWriter();

    private MessageView viewOf(byte[] bytes) {
        // Offset the message inside a larger array so that offsets are checked to be absolute.
        byte[] padded = new byte[bytes.length + 7];
        System.arraycopy(bytes, 0, padded, 5, bytes.length);
        return view.wrap(padded, 5, bytes.length);
    }

    @Test
    void readsEveryFieldTheServletBridgeNeedsFromTheRequestMessage() {
        viewOf(RequestMessageFixture.encode());
        MutableBytes b = new MutableBytes();
        assertTrue(view.subject(b));
        assertEquals(RequestMessageFixture.SUBJECT, b.toString());
        assertTrue(view.to(b));
        assertEquals(RequestMessageFixture.TO, b.toString());
        assertTrue(view.replyTo(b));
        assertEquals(RequestMessageFixture.REPLY_TO, b.toString());
        assertTrue(view.contentType(b));
        assertEquals(RequestMessageFixture.CONTENT_TYPE, b.toString());
        assertFalse(view.contentEncoding(b));
        assertTrue(b.isNull());
        MessageId id = new MessageId();
        assertTrue(view.messageId(id));
        assertEquals(MessageId.Kind.STRING, id.kind());
        assertEquals(RequestMessageFixture.MESSAGE_ID, id.toString());
        assertFalse(view.correlationId(id));
        assertTrue(id.isNull());
        for (int i = 0; i < RequestMessageFixture.PROPERTY_NAMES.length; i++) {
            assertTrue(view.applicationProperty(RequestMessageFixture.PROPERTY_NAMES[i], b));
            assertEquals(RequestMessageFixture.PROPERTY_VALUES[i], b.toString());
            byte[] name = RequestMessageFixture.PROPERTY_NAMES[i].getBytes(StandardCharsets.UTF_8);
            assertTrue(view.applicationProperty(name, 0, name.length, b));
            assertEquals(RequestMessageFixture.PROPERTY_VALUES[i], b.toString());
        }
        assertFalse(view.applicationProperty("acceptx", b));
        assertFalse(view.applicationProperty("accep", b));
        assertNull(view.applicationPropertyAsString("host"));
        assertEquals(1, view.body().dataSectionCount());
        assertEquals(100, view.body().dataLength(0));
        assertEquals(100, view.body().dataLength());
        assertArrayEquals(RequestMessageFixture.BODY, Arrays.copyOfRange(view.buffer(), view.body().dataOffset(0),
                view.body().dataOffset(0) + 100));
        assertEquals("POST", view.subjectAsString());
        assertEquals(RequestMessageFixture.TO, view.toAsString());
        assertEquals(RequestMessageFixture.REPLY_TO, view.replyToAsString());
        assertEquals(RequestMessageFixture.CONTENT_TYPE, view.contentTypeAsString());
        assertNull(view.contentEncodingAsString());

        Header h = new Header();
        assertTrue(view.readHeader(h));
        assertTrue(h.durable());
        Properties p = new Properties();
        assertTrue(view.readProperties(p));
        assertEquals(RequestMessageFixture.TO, p.to().toString());
    }

    @Test
    void indexesEverySectionInOrderWithAbsoluteOffsets() {
        messages.wrap(out).header(false, 7, 1000, false, 0)
                .startDeliveryAnnotations().annotation(Symbol.of("x-da"), 1L).endAnnotations()
                .startMessageAnnotations().annotation(Symbol.of("x-opt-a"), "v").endAnnotations()
                .startProperties().subject("S").endProperties()
                .startApplicationProperties().put("k", "v").endApplicationProperties()
                .data(new byte[3], 0, 3)
                .data(new byte[300], 0, 300)
                .startFooter().annotation(Symbol.of("hash"), "abc").endAnnotations()
                .end();
        byte[] bytes = out.toByteArray();
        viewOf(bytes);
        int previousEnd = 5;
        for (MessageSection s : new MessageSection[] {MessageSection.HEADER, MessageSection.DELIVERY_ANNOTATIONS,
                MessageSection.MESSAGE_ANNOTATIONS, MessageSection.PROPERTIES, MessageSection.APPLICATION_PROPERTIES,
                MessageSection.DATA, MessageSection.FOOTER}) {
            assertTrue(view.hasSection(s), s.toString());
            assertEquals(previousEnd, view.sectionStart(s), s + " starts where the previous ends");
            assertEquals(0, view.buffer()[view.sectionStart(s)], "a described value");
            previousEnd = view.sectionEnd(s);
        }
        assertEquals(5 + bytes.length, previousEnd);
        assertFalse(view.hasSection(MessageSection.AMQP_VALUE));
        assertEquals(MessageSection.DATA, view.body().kind());
        assertEquals(2, view.body().count());
        assertEquals(300, view.body().dataLength(1));
        assertEquals(303, view.body().dataLength());
        assertEquals(view.body().sectionEnd(0), view.body().sectionStart(1));

        assertTrue(view.positionOnHeaderField(Header.PRIORITY, reader));
        assertEquals(7, reader.getInt());
        assertTrue(view.positionOnHeaderField(Header.TTL, reader));
        assertEquals(1000, reader.getLong());
        assertFalse(view.positionOnHeaderField(Header.DELIVERY_COUNT, reader), "omitted trailing field");
        assertTrue(view.positionOnMessageAnnotation(Symbol.of("x-opt-a"), reader));
        assertEquals("v", reader.getString());
        assertFalse(view.positionOnMessageAnnotation(Symbol.of("x-da"), reader));
        assertTrue(view.positionOnDeliveryAnnotation(Symbol.of("x-da"), reader));
        assertEquals(1, reader.getLong());
        assertTrue(view.positionOnFooterEntry(Symbol.of("hash"), reader));
        assertEquals("abc", reader.getString());
        assertFalse(view.positionOnPropertiesField(Properties.TO, reader), "null field");
        assertFalse(view.positionOnPropertiesField(Properties.CONTENT_TYPE, reader), "omitted field");
        assertTrue(view.positionOnPropertiesField(Properties.SUBJECT, reader));
        assertEquals("S", reader.getString());
    }

    @Test
    void allowsManyMoreDataSectionsThanTheInitialCapacity() {
        messages.wrap(out);
        byte[] chunk = new byte[10];
        for (int i = 0; i < 1000; i++) {
            chunk[0] = (byte) i;
            messages.data(chunk, 0, i % 11);
        }
        messages.end();
        viewOf(out.toByteArray());
        assertEquals(1000, view.body().dataSectionCount());
        long total = 0;
        for (int i = 0; i < 1000; i++) {
            assertEquals(i % 11, view.body().dataLength(i));
            if (i % 11 > 0) {
                assertEquals((byte) i, view.buffer()[view.body().dataOffset(i)]);
            }
            total += i % 11;
        }
        assertEquals(total, view.body().dataLength());
        byte[] all = new byte[(int) total];
        assertEquals(total, view.body().copyData(all, 0));
    }

    @Test
    void emptyMessageHasNoSectionsAndNoBody() {
        view.wrap(new byte[0], 0, 0);
        assertNull(view.body().kind());
        assertEquals(0, view.body().dataSectionCount());
        assertFalse(view.subject(new MutableBytes()));
        assertFalse(view.positionOnAmqpValue(reader));
        assertFalse(view.openApplicationProperties(new MapCursor()));
    }

    @Test
    void positionsOnAnAmqpValueBody() {
        messages.wrap(out).startProperties().contentType("text/plain").endProperties().amqpValue("hello").end();
        viewOf(out.toByteArray());
        assertEquals(MessageSection.AMQP_VALUE, view.body().kind());
        assertEquals(0, view.body().dataSectionCount());
        assertTrue(view.positionOnAmqpValue(reader));
        assertEquals("hello", reader.getString());
    }

    @Test
    void positionsOnAmqpSequenceSections() {
        messages.wrap(out).startAmqpSequence();
        messages.writer().writeInt(1);
        messages.writer().writeInt(2);
        messages.endAmqpSequence().startAmqpSequence().endAmqpSequence().end();
        viewOf(out.toByteArray());
        assertEquals(MessageSection.AMQP_SEQUENCE, view.body().kind());
        assertEquals(2, view.body().count());
        view.positionOnBodySection(0, reader);
        assertEquals(2, reader.count());
    }

    @Test
    void cursorIteratesApplicationPropertiesWithoutDecodingValues() {
        messages.wrap(out).startApplicationProperties()
                .put("a", "1").put("Ümlaut", "2").put("n", 42L).put("b", true)
                .endApplicationProperties().end();
        viewOf(out.toByteArray());
        MapCursor c = new MapCursor();
        assertTrue(view.openApplicationProperties(c));
        StringBuilder seen = new StringBuilder();
        while (c.next()) {
            assertTrue(c.isStringKey());
            seen.append(c.keyString()).append('=');
            if (c.value().isVariable()) {
                seen.append(c.value().getString());
            } else if (c.keyEquals("n")) {
                seen.append(c.value().getLong());
            } else {
                seen.append(c.value().getBoolean());
            }
            seen.append(';');
        }
        assertEquals("a=1;Ümlaut=2;n=42;b=true;", seen.toString());
        assertFalse(c.next(), "stays finished");
        MutableBytes v = new MutableBytes();
        assertTrue(view.applicationProperty("Ümlaut", v), "non-ASCII names compare as UTF-8");
        assertEquals("2", v.toString());
        assertFalse(view.applicationProperty("n", v), "a long is not text");
        assertTrue(view.positionOnApplicationProperty("n", reader));
        assertEquals(42, reader.getLong());
    }

    @Test
    void nonCanonicalUtf8KeyNeverMatchesAName() {
        // "/" as an overlong two-byte sequence (C0 AF) must not alias "/".
        out.writeDescriptor(Descriptors.APPLICATION_PROPERTIES);
        out.startMap();
        out.writeStringUtf8(new byte[] {(byte) 0xC0, (byte) 0xAF}, 0, 2);
        out.writeString("v");
        out.endMap();
        viewOf(out.toByteArray());
        assertFalse(view.positionOnApplicationProperty("/", reader));
    }

    @Test
    void annotationMapHeldAsNullReadsAsEmpty() {
        out.writeDescriptor(Descriptors.MESSAGE_ANNOTATIONS);
        out.writeNull();
        viewOf(out.toByteArray());
        assertTrue(view.hasSection(MessageSection.MESSAGE_ANNOTATIONS));
        assertFalse(view.positionOnMessageAnnotation(Symbol.of("x"), reader));
        assertFalse(view.openMessageAnnotations(new MapCursor()));
    }

    @Test
    void acceptsSymbolicSectionDescriptors() {
        out.writeDescriptor(Symbol.of("amqp:properties:list"));
        out.startList();
        out.writeNull();
        out.writeNull();
        out.writeString("/x");
        out.endList();
        out.writeDescriptor(Symbol.of("amqp:data:binary"));
        out.writeBinary(new byte[] {1, 2});
        viewOf(out.toByteArray());
        assertEquals("/x", view.toAsString());
        assertEquals(2, view.body().dataLength(0));
    }

    @Test
    void rewrapForgetsThePreviousMessage() {
        viewOf(RequestMessageFixture.encode());
        view.subjectAsString(); // index the properties of the first message
        messages.wrap(out).startProperties().messageId(9L).to("/other").endProperties().end();
        viewOf(out.toByteArray());
        assertFalse(view.hasSection(MessageSection.HEADER));
        assertFalse(view.hasSection(MessageSection.APPLICATION_PROPERTIES));
        assertNull(view.body().kind());
        assertNull(view.subjectAsString());
        assertEquals("/other", view.toAsString());
    }

    // ------------------------------------------------------------------------------------------ violations

    private InvalidEncodingException rejects(byte[] bytes) {
        return assertThrows(InvalidEncodingException.class, () -> view.wrap(bytes, 0, bytes.length));
    }

    private void section(long descriptor) {
        out.writeDescriptor(descriptor);
        if (descriptor == Descriptors.DATA) {
            out.writeBinary(new byte[1]);
        } else if (descriptor == Descriptors.AMQP_VALUE) {
            out.writeInt(1);
        } else if (descriptor == Descriptors.HEADER || descriptor == Descriptors.PROPERTIES
                || descriptor == Descriptors.AMQP_SEQUENCE) {
            out.startList();
            out.endList();
        } else {
            out.startMap();
            out.endMap();
        }
    }

    @Test
    void rejectsHeaderAfterPropertiesNamingTheSectionAndOffset() {
        section(Descriptors.PROPERTIES);
        int at = out.position();
        section(Descriptors.HEADER);
        InvalidEncodingException e = rejects(out.toByteArray());
        assertEquals(at, e.offset());
        assertTrue(e.getMessage().contains("header section out of order after the properties section"), e.getMessage());
    }

    @Test
    void rejectsARepeatedNonBodySection() {
        section(Descriptors.APPLICATION_PROPERTIES);
        section(Descriptors.APPLICATION_PROPERTIES);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("second application-properties"));
    }

    @Test
    void aLeadingAmqpValueNullBeforeOtherSectionsIsReadAsNoSection() {
        // What RabbitMQ's Python client sends for a management request without a body: its empty header's four
        // bytes overwritten with an amqp-value null.
        out.writeDescriptor(Descriptors.AMQP_VALUE);
        out.writeNull();
        section(Descriptors.PROPERTIES);
        section(Descriptors.APPLICATION_PROPERTIES);
        byte[] bytes = out.toByteArray();
        assertEquals(0x40, bytes[3] & 0xff, "an amqp-value null is four bytes, as the header it replaces");
        view.wrap(bytes, 0, bytes.length);
        assertTrue(view.hasSection(MessageSection.PROPERTIES));
        assertTrue(view.hasSection(MessageSection.APPLICATION_PROPERTIES));
        assertFalse(view.hasSection(MessageSection.AMQP_VALUE), "no body");
    }

    @Test
    void aBodyAfterALeadingAmqpValueNullIsTheMessagesBody() {
        out.writeDescriptor(Descriptors.AMQP_VALUE);
        out.writeNull();
        section(Descriptors.PROPERTIES);
        section(Descriptors.DATA);
        byte[] bytes = out.toByteArray();
        view.wrap(bytes, 0, bytes.length);
        assertTrue(view.hasSection(MessageSection.DATA));
        assertFalse(view.hasSection(MessageSection.AMQP_VALUE));
    }

    @Test
    void onlyTheFirstSectionIsReadAsTheOverwrittenHeader() {
        // Four amqp-value nulls: the first is the header the client overwrote, the second the body, the third one
        // amqp-value section too many (§3.2), however many came before it.
        for (int i = 0; i < 4; i++) {
            out.writeDescriptor(Descriptors.AMQP_VALUE);
            out.writeNull();
        }
        assertTrue(rejects(out.toByteArray()).getMessage().contains("second amqp-value"));
    }

    @Test
    void anAmqpValueNullAfterTheHeaderIsStillOutOfOrder() {
        section(Descriptors.HEADER);
        out.writeDescriptor(Descriptors.AMQP_VALUE);
        out.writeNull();
        section(Descriptors.PROPERTIES);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("properties section out of order"));
    }

    @Test
    void aLeadingAmqpValueOtherThanNullIsStillOutOfOrder() {
        section(Descriptors.AMQP_VALUE);
        section(Descriptors.PROPERTIES);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("properties section out of order"));
    }

    @Test
    void rejectsBodySectionsOfDifferentKinds() {
        section(Descriptors.DATA);
        section(Descriptors.AMQP_SEQUENCE);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("amqp-sequence section in a body of data"));
    }

    @Test
    void rejectsTwoAmqpValueSections() {
        section(Descriptors.AMQP_VALUE);
        section(Descriptors.AMQP_VALUE);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("second amqp-value"));
    }

    @Test
    void rejectsASectionAfterTheFooter() {
        section(Descriptors.DATA);
        section(Descriptors.FOOTER);
        section(Descriptors.DATA);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("data section out of order after the footer"));
    }

    @Test
    void rejectsAnUndescribedTopLevelValue() {
        section(Descriptors.HEADER);
        out.writeString("junk");
        assertTrue(rejects(out.toByteArray()).getMessage().contains("found str8"));
    }

    @Test
    void rejectsADescriptorThatIsNotAMessageSection() {
        section(Descriptors.OPEN);
        assertTrue(rejects(out.toByteArray()).getMessage().contains("unknown message section descriptor 0x10"));
    }

    @Test
    void rejectsADataSectionThatIsNotBinary() {
        out.writeDescriptor(Descriptors.DATA);
        out.writeString("text");
        byte[] bytes = out.toByteArray();
        assertThrows(UnexpectedTypeException.class, () -> view.wrap(bytes, 0, bytes.length));
        assertFalse(view.hasSection(MessageSection.DATA), "a failed wrap leaves an empty view");
    }
}
