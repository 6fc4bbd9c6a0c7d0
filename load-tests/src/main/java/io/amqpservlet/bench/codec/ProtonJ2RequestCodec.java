package io.amqpservlet.bench.codec;

import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferComponent;
import org.apache.qpid.protonj2.buffer.ProtonBufferComponentAccessor;
import org.apache.qpid.protonj2.codec.CodecFactory;
import org.apache.qpid.protonj2.codec.Decoder;
import org.apache.qpid.protonj2.codec.DecoderState;
import org.apache.qpid.protonj2.codec.Encoder;
import org.apache.qpid.protonj2.codec.EncoderState;
import org.apache.qpid.protonj2.types.messaging.ApplicationProperties;
import org.apache.qpid.protonj2.types.messaging.Data;
import org.apache.qpid.protonj2.types.messaging.Header;
import org.apache.qpid.protonj2.types.messaging.Properties;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code requestMessage} workload with protonj2 1.1.0, used the way its client uses its codec: section
 * objects built from the field values for every message and written with {@link Encoder#writeObject}; sections
 * read back with {@link Decoder#readObject} until the buffer is consumed. Encoder, decoder, their states and the
 * buffers are reused, as protonj2's engine reuses them per connection.
 */
final class ProtonJ2RequestCodec {
    final Encoder encoder = CodecFactory.getEncoder();
    final EncoderState encoderState = encoder.newEncoderState();
    final Decoder decoder = CodecFactory.getDecoder();
    final DecoderState decoderState = decoder.newDecoderState();

    /** Builds the sections from the field values and writes them to {@code out}. */
    void encode(ProtonBuffer out) {
        Header header = new Header();
        header.setDurable(RequestValues.DURABLE);

        Properties properties = new Properties();
        properties.setMessageId(RequestValues.MESSAGE_ID);
        properties.setTo(RequestValues.TO);
        properties.setSubject(RequestValues.SUBJECT);
        properties.setReplyTo(RequestValues.REPLY_TO);
        properties.setContentType(RequestValues.CONTENT_TYPE);

        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < RequestValues.HEADER_COUNT; i++) {
            map.put(RequestValues.headerName(i), RequestValues.headerValue(i));
        }
        ApplicationProperties applicationProperties = new ApplicationProperties(map);

        Data data = new Data(RequestValues.body());

        encoder.writeObject(out, encoderState, header);
        encoder.writeObject(out, encoderState, properties);
        encoder.writeObject(out, encoderState, applicationProperties);
        encoder.writeObject(out, encoderState, data);
    }

    /** Reads every section in the readable bytes of {@code in} and takes out the fields a bridge needs. */
    void decode(ProtonBuffer in, DecodedRequest out) {
        out.reset();
        while (in.isReadable()) {
            Object section = decoder.readObject(in, decoderState);
            if (section instanceof Properties) {
                Properties p = (Properties) section;
                Object id = p.getMessageId();
                out.messageId = id == null ? null : id.toString();
                out.to = p.getTo();
                out.subject = p.getSubject();
                out.replyTo = p.getReplyTo();
                out.contentType = p.getContentType();
            } else if (section instanceof ApplicationProperties) {
                for (Map.Entry<String, Object> e : ((ApplicationProperties) section).getValue().entrySet()) {
                    if (e.getValue() instanceof String) {
                        out.addHeader(e.getKey(), (String) e.getValue());
                    }
                }
            } else if (section instanceof Data) {
                bodyView(((Data) section).getBuffer(), out);
            }
        }
    }

    /** The decoded Data section's bytes without a further copy (getValue() would copy them once more). */
    private static void bodyView(ProtonBuffer body, DecodedRequest out) {
        try (ProtonBufferComponentAccessor components = body.componentAccessor()) {
            ProtonBufferComponent c = components.firstReadable();
            if (c != null && c.hasReadbleArray() && c.getReadableBytes() == body.getReadableBytes()) {
                out.body = c.getReadableArray();
                out.bodyOffset = c.getReadableArrayOffset();
                out.bodyLength = c.getReadableArrayLength();
                return;
            }
        }
        byte[] copy = new byte[body.getReadableBytes()];
        body.copyInto(body.getReadOffset(), copy, 0, copy.length);
        out.body = copy;
        out.bodyOffset = 0;
        out.bodyLength = copy.length;
    }
}
