package io.amqpservlet.bench.codec;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Section;
import org.apache.qpid.proton.codec.WritableBuffer;
import org.apache.qpid.proton.message.Message;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code requestMessage} workload with proton-j 0.35.0, used the way its users use it: a {@link Message}
 * filled from the field values and {@link Message#encode(WritableBuffer) encoded} into a reused buffer; a new
 * Message {@link Message#decode(byte[], int, int) decoded} from the bytes and read with its getters. proton-j
 * keeps its encoder and decoder per thread.
 */
final class ProtonJRequestCodec {
    private ProtonJRequestCodec() {
    }

    /** Builds a message from the field values and encodes it into {@code out}. */
    static void encode(WritableBuffer out) {
        Message message = Message.Factory.create();
        message.setDurable(RequestValues.DURABLE);
        message.setMessageId(RequestValues.MESSAGE_ID);
        message.setAddress(RequestValues.TO);
        message.setSubject(RequestValues.SUBJECT);
        message.setReplyTo(RequestValues.REPLY_TO);
        message.setContentType(RequestValues.CONTENT_TYPE);
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < RequestValues.HEADER_COUNT; i++) {
            map.put(RequestValues.headerName(i), RequestValues.headerValue(i));
        }
        message.setApplicationProperties(new ApplicationProperties(map));
        message.setBody(new Data(new Binary(RequestValues.body())));
        message.encode(out);
    }

    /** Decodes the message in {@code bytes[offset, offset + length)} and takes out the fields a bridge needs. */
    static void decode(byte[] bytes, int offset, int length, DecodedRequest out) {
        out.reset();
        Message message = Message.Factory.create();
        message.decode(bytes, offset, length);
        Object id = message.getMessageId();
        out.messageId = id == null ? null : id.toString();
        out.to = message.getAddress();
        out.subject = message.getSubject();
        out.replyTo = message.getReplyTo();
        out.contentType = message.getContentType();
        ApplicationProperties applicationProperties = message.getApplicationProperties();
        if (applicationProperties != null) {
            for (Map.Entry<String, Object> e : applicationProperties.getValue().entrySet()) {
                if (e.getValue() instanceof String) {
                    out.addHeader(e.getKey(), (String) e.getValue());
                }
            }
        }
        Section body = message.getBody();
        if (body instanceof Data) {
            Binary b = ((Data) body).getValue();
            out.body = b.getArray();
            out.bodyOffset = b.getArrayOffset();
            out.bodyLength = b.getLength();
        }
    }
}
