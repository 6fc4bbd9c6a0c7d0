package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.MessageId;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageEditorTest {
    private static final Symbol HOP = Symbol.of("x-opt-hop");
    private static final Symbol KEEP = Symbol.of("x-opt-keep");

    private final MessageView source = new MessageView();
    private final MessageView result = new MessageView();
    private final MessageEditor editor = new MessageEditor();
    private final AmqpWriter out = new AmqpWriter();

    private static byte[] sectionBytes(MessageView v, MessageSection s) {
        return Arrays.copyOfRange(v.buffer(), v.sectionStart(s), v.sectionEnd(s));
    }

    private static void assertSameSections(MessageView a, MessageView b, MessageSection... sections) {
        for (MessageSection s : sections) {
            assertEquals(a.hasSection(s), b.hasSection(s), s.toString());
            if (a.hasSection(s)) {
                assertArrayEquals(sectionBytes(a, s), sectionBytes(b, s), s + " copied byte for byte");
            }
        }
    }

    private static Message protonJ(byte[] bytes) {
        Message m = Message.Factory.create();
        m.decode(bytes, 0, bytes.length);
        return m;
    }

    private byte[] fullMessage() {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).header(true, 4, 1000, false, 2)
                .startDeliveryAnnotations().annotation(Symbol.of("x-da"), "d").endAnnotations()
                .startMessageAnnotations().annotation(KEEP, "k").annotation(HOP, "old").endAnnotations()
                .startProperties().messageId("m1").to("/a").subject("GET").replyTo("r1").contentType("text/plain").endProperties()
                .startApplicationProperties().put("accept", "*/*").endApplicationProperties()
                .data(new byte[] {1, 2, 3}, 0, 3).data(new byte[] {4}, 0, 1)
                .startFooter().annotation(Symbol.of("f"), 1L).endAnnotations()
                .end();
        return w.toByteArray();
    }

    @Test
    void settingTtlRebuildsOnlyTheHeaderKeepingItsOtherFields() {
        byte[] in = fullMessage();
        source.wrap(in, 0, in.length);
        editor.edit(source).ttlMillis(30_000).writeTo(out);
        byte[] bytes = out.toByteArray();
        result.wrap(bytes, 0, bytes.length);
        assertSameSections(source, result, MessageSection.DELIVERY_ANNOTATIONS, MessageSection.MESSAGE_ANNOTATIONS,
                MessageSection.PROPERTIES, MessageSection.APPLICATION_PROPERTIES, MessageSection.DATA, MessageSection.FOOTER);
        Message m = protonJ(bytes);
        assertEquals(30_000, m.getTtl());
        assertTrue(m.isDurable());
        assertEquals(2, m.getDeliveryCount());
        assertEquals("/a", m.getAddress());
    }

    @Test
    void createsAHeaderWhenThereIsNone() {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().to("/x").endProperties().amqpValue("v").end();
        byte[] in = w.toByteArray();
        source.wrap(in, 0, in.length);
        editor.edit(source).ttlMillis(5).priority(7).writeTo(out);
        byte[] bytes = out.toByteArray();
        result.wrap(bytes, 0, bytes.length);
        assertEquals(result.offset(), result.sectionStart(MessageSection.HEADER), "header first");
        assertSameSections(source, result, MessageSection.PROPERTIES, MessageSection.AMQP_VALUE);
        Message m = protonJ(bytes);
        assertEquals(5, m.getTtl());
        assertEquals(7, m.getPriority());
        assertFalse(m.isDurable());
    }

    @Test
    void replacesAnExistingAnnotationAndAppendsANewOneKeepingTheOthersRaw() {
        byte[] in = fullMessage();
        source.wrap(in, 0, in.length);
        editor.edit(source).putMessageAnnotation(HOP, "gw-1").putMessageAnnotation(Symbol.of("x-opt-n"), 42L).writeTo(out);
        byte[] bytes = out.toByteArray();
        result.wrap(bytes, 0, bytes.length);
        assertSameSections(source, result, MessageSection.HEADER, MessageSection.DELIVERY_ANNOTATIONS,
                MessageSection.PROPERTIES, MessageSection.APPLICATION_PROPERTIES, MessageSection.DATA, MessageSection.FOOTER);
        Map<org.apache.qpid.proton.amqp.Symbol, Object> ma = protonJ(bytes).getMessageAnnotations().getValue();
        assertEquals(3, ma.size(), ma.toString());
        assertEquals("k", ma.get(org.apache.qpid.proton.amqp.Symbol.valueOf("x-opt-keep")));
        assertEquals("gw-1", ma.get(org.apache.qpid.proton.amqp.Symbol.valueOf("x-opt-hop")));
        assertEquals(42L, ma.get(org.apache.qpid.proton.amqp.Symbol.valueOf("x-opt-n")));
    }

    @Test
    void createsMessageAnnotationsBetweenHeaderAndProperties() {
        byte[] in = RequestMessageFixture.encode();
        source.wrap(in, 0, in.length);
        editor.edit(source).putMessageAnnotation(HOP, Symbol.of("gw")).writeTo(out);
        byte[] bytes = out.toByteArray();
        result.wrap(bytes, 0, bytes.length); // also checks the section order
        assertEquals(result.sectionEnd(MessageSection.HEADER), result.sectionStart(MessageSection.MESSAGE_ANNOTATIONS));
        assertEquals(result.sectionEnd(MessageSection.MESSAGE_ANNOTATIONS), result.sectionStart(MessageSection.PROPERTIES));
        assertSameSections(source, result, MessageSection.HEADER, MessageSection.PROPERTIES,
                MessageSection.APPLICATION_PROPERTIES, MessageSection.DATA);
        assertEquals(org.apache.qpid.proton.amqp.Symbol.valueOf("gw"),
                protonJ(bytes).getMessageAnnotations().getValue().get(org.apache.qpid.proton.amqp.Symbol.valueOf("x-opt-hop")));
    }

    @Test
    void dropsDeliveryAnnotations() {
        byte[] in = fullMessage();
        source.wrap(in, 0, in.length);
        editor.edit(source).dropDeliveryAnnotations().writeTo(out);
        byte[] bytes = out.toByteArray();
        result.wrap(bytes, 0, bytes.length);
        assertFalse(result.hasSection(MessageSection.DELIVERY_ANNOTATIONS));
        assertSameSections(source, result, MessageSection.HEADER, MessageSection.MESSAGE_ANNOTATIONS,
                MessageSection.PROPERTIES, MessageSection.APPLICATION_PROPERTIES, MessageSection.DATA, MessageSection.FOOTER);
        assertEquals(in.length - (source.sectionEnd(MessageSection.DELIVERY_ANNOTATIONS)
                - source.sectionStart(MessageSection.DELIVERY_ANNOTATIONS)), bytes.length);
    }

    @Test
    void setsToReplyToAndCorrelationIdKeepingOtherPropertiesRaw() {
        byte[] in = fullMessage();
        source.wrap(in, 0, in.length);
        MessageId corr = new MessageId().setULong(77);
        editor.edit(source).to("/reply-here").replyTo((CharSequence) null).correlationId(corr).writeTo(out);
        byte[] bytes = out.toByteArray();
        result.wrap(bytes, 0, bytes.length);
        assertSameSections(source, result, MessageSection.HEADER, MessageSection.DELIVERY_ANNOTATIONS,
                MessageSection.MESSAGE_ANNOTATIONS, MessageSection.APPLICATION_PROPERTIES, MessageSection.DATA,
                MessageSection.FOOTER);
        Message m = protonJ(bytes);
        assertEquals("/reply-here", m.getAddress());
        assertEquals(null, m.getReplyTo());
        assertEquals(org.apache.qpid.proton.amqp.UnsignedLong.valueOf(77), m.getCorrelationId());
        assertEquals("m1", m.getMessageId());
        assertEquals("GET", m.getSubject());
        assertEquals("text/plain", m.getContentType());
    }

    @Test
    void withoutEditsTheCopyIsByteIdentical() {
        byte[] in = fullMessage();
        source.wrap(in, 0, in.length);
        editor.edit(source).writeTo(out);
        assertArrayEquals(in, out.toByteArray());
    }

    @Test
    void rejectsTheSameAnnotationTwiceInOneEdit() {
        byte[] in = fullMessage();
        source.wrap(in, 0, in.length);
        editor.edit(source).putMessageAnnotation(HOP, 1L);
        assertThrows(IllegalStateException.class, () -> editor.putMessageAnnotation(HOP, 2L));
    }
}
