package io.amqpservlet.client;

import io.amqpservlet.protocol.message.MapCursor;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.messaging.Properties;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestMessageEncoderTest {
    @Test
    void encodesTheRequestMappingAndPatchesTheMessageIdInPlace() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Trace", "abc");
        byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
        RequestMessageEncoder encoder = new RequestMessageEncoder(64).encode(RequestMessageEncoder.ID_MARK | 7,
                "POST", "/echo?a=b", "replies-1", "text/plain", headers, body, 0, body.length);
        int length = encoder.length();
        encoder.messageId(RequestMessageEncoder.ID_MARK | 123_456);
        assertEquals(length, encoder.length(), "a patch keeps the length");

        MessageView view = new MessageView().wrap(encoder.array(), encoder.offset(), encoder.length());
        assertEquals("POST", view.subjectAsString());
        assertEquals("/echo?a=b", view.toAsString());
        assertEquals("replies-1", view.replyToAsString());
        assertEquals("text/plain", view.contentTypeAsString());
        MessageId id = new MessageId();
        assertTrue(view.messageId(id));
        assertEquals(RequestMessageEncoder.ID_MARK | 123_456, id.ulongValue());
        MapCursor entries = new MapCursor();
        assertTrue(view.openApplicationProperties(entries));
        assertTrue(entries.next());
        assertEquals("x-trace", entries.keyString(), "header names go lowercase");
        byte[] copy = new byte[(int) view.body().dataLength()];
        view.body().copyData(copy, 0);
        assertEquals("hello", new String(copy, StandardCharsets.UTF_8));
    }

    @Test
    void aContentEncodingHeaderIsTheContentEncodingPropertyNotAnApplicationProperty() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Encoding", "gzip");
        headers.put("x-trace", "abc");
        byte[] body = {31, -117, 8, 0};
        RequestMessageEncoder encoder = new RequestMessageEncoder(64).encode(1, "POST", "/echo", "r",
                "application/octet-stream", headers, body, 0, body.length);
        MessageView view = new MessageView().wrap(encoder.array(), encoder.offset(), encoder.length());
        assertEquals("gzip", view.contentEncodingAsString());
        assertEquals("application/octet-stream", view.contentTypeAsString());
        MapCursor entries = new MapCursor();
        assertTrue(view.openApplicationProperties(entries));
        assertTrue(entries.next());
        assertEquals("x-trace", entries.keyString());
        assertFalse(entries.next(), "content-encoding is not an application-property too");

        encoder.encode(2, "GET", "/", "r", null, Map.of("content-encoding", "br"), null, 0, 0);
        view.wrap(encoder.array(), encoder.offset(), encoder.length());
        assertEquals("br", view.contentEncodingAsString());
        assertFalse(view.openApplicationProperties(new MapCursor()), "no other header: no application-properties");
    }

    @Test
    void withoutABodyThereIsNoDataSectionAndNoContentType() {
        RequestMessageEncoder encoder = new RequestMessageEncoder(16).encode(1, "GET", "/", "r", "text/plain",
                Map.of(), null, 0, 0);
        MessageView view = new MessageView().wrap(encoder.array(), encoder.offset(), encoder.length());
        assertEquals(0, view.body().dataLength());
        assertEquals(null, view.contentTypeAsString());
        assertFalse(view.openApplicationProperties(new MapCursor()));
        assertThrows(IllegalStateException.class, () -> encoder.messageId(RequestMessageEncoder.ID_MARK),
                "a small id is encoded short and cannot be patched");
    }

    @Test
    void anExpiringRequestCarriesItsTtlCreationAndAbsoluteExpiryTime() {
        byte[] body = "late".getBytes(StandardCharsets.UTF_8);
        RequestMessageEncoder encoder = new RequestMessageEncoder(64).encode(RequestMessageEncoder.ID_MARK | 9,
                "POST", "/orders", "r", "text/plain", Map.of("x-a", "b"), body, 0, body.length, 1_700_000_000_000L,
                1_500);
        encoder.messageId(RequestMessageEncoder.ID_MARK | 10); // still patchable with a header before the id
        MessageView view = new MessageView().wrap(encoder.array(), encoder.offset(), encoder.length());
        Header header = new Header();
        assertTrue(view.readHeader(header));
        assertEquals(1_500, header.ttlMillis());
        Properties properties = new Properties();
        assertTrue(view.readProperties(properties));
        assertEquals(1_700_000_000_000L, properties.creationTime());
        assertEquals(1_700_000_001_500L, properties.absoluteExpiryTime());
        assertEquals("text/plain", view.contentTypeAsString());
        MessageId id = new MessageId();
        assertTrue(view.messageId(id));
        assertEquals(RequestMessageEncoder.ID_MARK | 10, id.ulongValue());
    }

    @Test
    void aRequestWithoutTtlHasNoHeaderAndNoTimes() {
        RequestMessageEncoder encoder = new RequestMessageEncoder(16).encode(1, "GET", "/", "r", null, Map.of(),
                null, 0, 0);
        MessageView view = new MessageView().wrap(encoder.array(), encoder.offset(), encoder.length());
        assertFalse(view.readHeader(new Header()));
        Properties properties = new Properties();
        assertTrue(view.readProperties(properties));
        assertEquals(0, properties.absoluteExpiryTime());
    }
}
