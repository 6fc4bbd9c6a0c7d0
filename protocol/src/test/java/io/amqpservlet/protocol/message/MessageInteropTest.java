package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.DeliveryAnnotations;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.message.Message;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
import org.apache.qpid.protonj2.codec.CodecFactory;
import org.apache.qpid.protonj2.codec.Decoder;
import org.apache.qpid.protonj2.codec.DecoderState;
import org.apache.qpid.protonj2.codec.Encoder;
import org.apache.qpid.protonj2.codec.EncoderState;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Differential tests: messages encoded by proton-j 0.35.0 and protonj2 1.1.0 read by our view, and the reverse. */
class MessageInteropTest {
    private final MessageView view = new MessageView();
    private final AmqpReader reader = new AmqpReader();
    private final MutableBytes text = new MutableBytes();
    private final MessageId id = new MessageId();

    private static byte[] encodeProtonJ(Message m) {
        byte[] buf = new byte[64 * 1024];
        int n = m.encode(buf, 0, buf.length);
        return Arrays.copyOf(buf, n);
    }

    private static Message decodeProtonJ(byte[] bytes) {
        Message m = Message.Factory.create();
        m.decode(bytes, 0, bytes.length);
        return m;
    }

    @Test
    void viewReadsEveryFieldOfAProtonJMessage() {
        UUID corr = UUID.randomUUID();
        byte[] body = "{\"qty\":3}".getBytes(StandardCharsets.UTF_8);
        Message m = Message.Factory.create();
        m.setDurable(true);
        m.setPriority((short) 9);
        m.setTtl(60_000);
        m.setFirstAcquirer(true);
        m.setDeliveryCount(3);
        Map<org.apache.qpid.proton.amqp.Symbol, Object> da = new LinkedHashMap<>();
        da.put(org.apache.qpid.proton.amqp.Symbol.valueOf("x-da"), "hop");
        m.setDeliveryAnnotations(new DeliveryAnnotations(da));
        Map<org.apache.qpid.proton.amqp.Symbol, Object> ma = new LinkedHashMap<>();
        ma.put(org.apache.qpid.proton.amqp.Symbol.valueOf("x-opt-jms-msg-type"), (byte) 3);
        m.setMessageAnnotations(new MessageAnnotations(ma));
        m.setMessageId(new UnsignedLong(123456789012L));
        m.setUserId("alice".getBytes(StandardCharsets.UTF_8));
        m.setAddress("/orders/42");
        m.setSubject("PUT");
        m.setReplyTo("reply-q");
        m.setCorrelationId(corr);
        m.setContentType("application/json");
        m.setContentEncoding("gzip");
        m.setExpiryTime(1_700_000_000_000L);
        m.setCreationTime(1_690_000_000_000L);
        m.setGroupId("grp");
        m.setGroupSequence(12);
        m.setReplyToGroupId("rgrp");
        Map<String, Object> ap = new LinkedHashMap<>();
        ap.put("accept", "application/json");
        ap.put("x-count", 5);
        m.setApplicationProperties(new ApplicationProperties(ap));
        m.setBody(new Data(new Binary(body)));
        Map<Object, Object> footer = new LinkedHashMap<>();
        footer.put(org.apache.qpid.proton.amqp.Symbol.valueOf("sig"), new Binary(new byte[] {1, 2}));
        m.setFooter(new Footer(footer));
        byte[] bytes = encodeProtonJ(m);

        view.wrap(bytes, 0, bytes.length);
        Header h = new Header();
        view.readHeader(h);
        assertTrue(h.durable());
        assertEquals(9, h.priority());
        assertEquals(60_000, h.ttlMillis());
        assertTrue(h.firstAcquirer());
        assertEquals(3, h.deliveryCount());
        assertTrue(view.positionOnDeliveryAnnotation(Symbol.of("x-da"), reader));
        assertEquals("hop", reader.getString());
        assertTrue(view.positionOnMessageAnnotation(Symbol.of("x-opt-jms-msg-type"), reader));
        assertEquals(3, reader.getInt());

        assertTrue(view.messageId(id));
        assertEquals(MessageId.Kind.ULONG, id.kind());
        assertEquals(123456789012L, id.ulongValue());
        assertTrue(view.correlationId(id));
        assertEquals(corr.toString(), id.toString());
        assertEquals("/orders/42", view.toAsString());
        assertEquals("PUT", view.subjectAsString());
        assertEquals("reply-q", view.replyToAsString());
        assertEquals("application/json", view.contentTypeAsString());
        assertEquals("gzip", view.contentEncodingAsString());
        Properties p = new Properties();
        view.readProperties(p);
        assertEquals("alice", p.userId().toString());
        assertEquals(1_700_000_000_000L, p.absoluteExpiryTime());
        assertEquals(1_690_000_000_000L, p.creationTime());
        assertEquals("grp", p.groupId().toString());
        assertEquals(12, p.groupSequence());
        assertEquals("rgrp", p.replyToGroupId().toString());

        assertTrue(view.applicationProperty("accept", text));
        assertEquals("application/json", text.toString());
        assertTrue(view.positionOnApplicationProperty("x-count", reader));
        assertEquals(5, reader.getInt());
        assertEquals(1, view.body().dataSectionCount());
        assertArrayEquals(body, Arrays.copyOfRange(bytes, view.body().dataOffset(0), view.body().dataOffset(0) + body.length));
        assertTrue(view.positionOnFooterEntry(Symbol.of("sig"), reader));
        assertArrayEquals(new byte[] {1, 2}, reader.getBytes());
    }

    @Test
    void viewReadsAProtonJAmqpValueBodyAndBinaryId() {
        Message m = Message.Factory.create();
        m.setMessageId(new Binary(new byte[] {9, 8}));
        m.setBody(new AmqpValue("text body"));
        byte[] bytes = encodeProtonJ(m);
        view.wrap(bytes, 0, bytes.length);
        assertTrue(view.messageId(id));
        assertEquals(MessageId.Kind.BINARY, id.kind());
        assertEquals("0908", id.toString());
        assertTrue(view.positionOnAmqpValue(reader));
        assertEquals("text body", reader.getString());
    }

    @Test
    void viewReadsAProtonJ2MessageWithManyDataSections() {
        Encoder encoder = CodecFactory.getEncoder();
        EncoderState state = encoder.newEncoderState();
        ProtonBuffer buffer = ProtonBufferAllocator.defaultAllocator().allocate(4096);
        encoder.writeObject(buffer, state, new org.apache.qpid.protonj2.types.messaging.Header().setDurable(true).setTimeToLive(500));
        org.apache.qpid.protonj2.types.messaging.Properties props = new org.apache.qpid.protonj2.types.messaging.Properties();
        props.setMessageId("id-1");
        props.setTo("/items");
        props.setSubject("GET");
        props.setCorrelationId(new org.apache.qpid.protonj2.types.UnsignedLong(7));
        encoder.writeObject(buffer, state, props);
        Map<String, Object> ap = new LinkedHashMap<>();
        ap.put("http:host", "example.org");
        encoder.writeObject(buffer, state, new org.apache.qpid.protonj2.types.messaging.ApplicationProperties(ap));
        for (int i = 0; i < 70; i++) {
            byte[] chunk = new byte[i];
            Arrays.fill(chunk, (byte) i);
            encoder.writeObject(buffer, state, new org.apache.qpid.protonj2.types.messaging.Data(chunk));
        }
        byte[] bytes = new byte[buffer.getReadableBytes()];
        buffer.readBytes(bytes, 0, bytes.length);

        view.wrap(bytes, 0, bytes.length);
        Header h = new Header();
        view.readHeader(h);
        assertTrue(h.durable());
        assertEquals(500, h.ttlMillis());
        assertTrue(view.messageId(id));
        assertEquals("id-1", id.toString());
        assertTrue(view.correlationId(id));
        assertEquals(MessageId.Kind.ULONG, id.kind());
        assertEquals(7, id.ulongValue());
        assertEquals("/items", view.toAsString());
        assertEquals("GET", view.subjectAsString());
        assertEquals("example.org", view.applicationPropertyAsString("http:host"));
        assertEquals(70, view.body().dataSectionCount());
        for (int i = 0; i < 70; i++) {
            assertEquals(i, view.body().dataLength(i));
            for (int j = 0; j < i; j++) {
                assertEquals((byte) i, bytes[view.body().dataOffset(i) + j]);
            }
        }
    }

    @Test
    void protonJDecodesTheRequestMessageWrittenByMessageWriter() {
        Message m = decodeProtonJ(RequestMessageFixture.encode());
        assertTrue(m.isDurable());
        assertEquals(RequestMessageFixture.MESSAGE_ID, m.getMessageId());
        assertEquals(RequestMessageFixture.TO, m.getAddress());
        assertEquals(RequestMessageFixture.SUBJECT, m.getSubject());
        assertEquals(RequestMessageFixture.REPLY_TO, m.getReplyTo());
        assertEquals(RequestMessageFixture.CONTENT_TYPE, m.getContentType());
        Map<String, Object> ap = m.getApplicationProperties().getValue();
        assertEquals(RequestMessageFixture.PROPERTY_NAMES.length, ap.size());
        for (int i = 0; i < RequestMessageFixture.PROPERTY_NAMES.length; i++) {
            assertEquals(RequestMessageFixture.PROPERTY_VALUES[i], ap.get(RequestMessageFixture.PROPERTY_NAMES[i]));
        }
        Data body = assertInstanceOf(Data.class, m.getBody());
        assertArrayEquals(RequestMessageFixture.BODY, body.getValue().getArray());
    }

    @Test
    void protonJDecodesEveryFieldMessageWriterCanWrite() {
        AmqpWriter out = new AmqpWriter();
        UUID corr = UUID.randomUUID();
        new MessageWriter().wrap(out)
                .header(true, 2, 1234, true, 5)
                .startDeliveryAnnotations().annotation(Symbol.of("x-da"), 1L).endAnnotations()
                .startMessageAnnotations().annotation(Symbol.of("x-ma"), Symbol.of("sym")).endAnnotations()
                .startProperties().messageId(99L).userId(new byte[] {1}, 0, 1).to("t").subject("s").replyTo("r")
                .correlationId(new MessageId().setUuid(corr.getMostSignificantBits(), corr.getLeastSignificantBits()))
                .contentType("text/plain").contentEncoding("br").absoluteExpiryTime(10).creationTime(20)
                .groupId("g").groupSequence(3).replyToGroupId("rg").endProperties()
                .startApplicationProperties().put("i", 7).put("b", false).endApplicationProperties()
                .amqpValue("value")
                .startFooter().annotation(Symbol.of("f"), "x").endAnnotations()
                .end();
        Message m = decodeProtonJ(out.toByteArray());
        assertTrue(m.isDurable());
        assertEquals(2, m.getPriority());
        assertEquals(1234, m.getTtl());
        assertTrue(m.isFirstAcquirer());
        assertEquals(5, m.getDeliveryCount());
        assertEquals(1L, m.getDeliveryAnnotations().getValue().get(org.apache.qpid.proton.amqp.Symbol.valueOf("x-da")));
        assertEquals(org.apache.qpid.proton.amqp.Symbol.valueOf("sym"),
                m.getMessageAnnotations().getValue().get(org.apache.qpid.proton.amqp.Symbol.valueOf("x-ma")));
        assertEquals(UnsignedLong.valueOf(99), m.getMessageId());
        assertArrayEquals(new byte[] {1}, m.getUserId());
        assertEquals("t", m.getAddress());
        assertEquals("s", m.getSubject());
        assertEquals("r", m.getReplyTo());
        assertEquals(corr, m.getCorrelationId());
        assertEquals("text/plain", m.getContentType());
        assertEquals("br", m.getContentEncoding());
        assertEquals(10, m.getExpiryTime());
        assertEquals(20, m.getCreationTime());
        assertEquals("g", m.getGroupId());
        assertEquals(3, m.getGroupSequence());
        assertEquals("rg", m.getReplyToGroupId());
        assertEquals(7, m.getApplicationProperties().getValue().get("i"));
        assertEquals(false, m.getApplicationProperties().getValue().get("b"));
        assertEquals("value", ((AmqpValue) m.getBody()).getValue());
        assertEquals("x", m.getFooter().getValue().get(org.apache.qpid.proton.amqp.Symbol.valueOf("f")));
    }

    @Test
    void protonJ2DecodesEverySectionOfAMultiSectionMessage() {
        AmqpWriter out = new AmqpWriter();
        MessageWriter w = new MessageWriter().wrap(out).header(false, 4, 10, false, 0)
                .startProperties().messageId(new MessageId().setBinary(new byte[] {5}, 0, 1)).to("/q").endProperties();
        w.data(new byte[] {1, 2, 3}, 0, 3).data(java.nio.ByteBuffer.wrap(new byte[300])).end();
        byte[] bytes = out.toByteArray();
        Decoder decoder = CodecFactory.getDecoder();
        DecoderState state = decoder.newDecoderState();
        ProtonBuffer buffer = ProtonBufferAllocator.defaultAllocator().copy(bytes);
        List<Object> sections = new ArrayList<>();
        while (buffer.isReadable()) {
            sections.add(decoder.readObject(buffer, state));
        }
        assertEquals(4, sections.size());
        org.apache.qpid.protonj2.types.messaging.Header h = assertInstanceOf(org.apache.qpid.protonj2.types.messaging.Header.class, sections.get(0));
        assertFalse(h.isDurable());
        assertEquals(10, h.getTimeToLive());
        org.apache.qpid.protonj2.types.messaging.Properties p = assertInstanceOf(org.apache.qpid.protonj2.types.messaging.Properties.class, sections.get(1));
        assertEquals(new org.apache.qpid.protonj2.types.Binary(new byte[] {5}), p.getMessageId());
        assertEquals("/q", p.getTo());
        assertEquals(3, ((org.apache.qpid.protonj2.types.messaging.Data) sections.get(2)).getDataLength());
        assertEquals(300, ((org.apache.qpid.protonj2.types.messaging.Data) sections.get(3)).getDataLength());
    }
}
