package io.amqpservlet.jetty.internal.mapping;

import io.amqpservlet.jetty.AmqpBody;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.json.JsonToAmqp;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.value.ValueEncoder;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Encodes an HTTP response as an AMQP response message (WD06 projected mode, docs/design.md §3): {@code subject} the
 * status digits, {@code to} the request's reply-to, {@code correlation-id} the request's correlation-id or
 * message-id with its AMQP type, content type and coding in properties, {@code http:response} the request's
 * version ("1.1" by default) and the other headers as lowercase application-properties (repeated values joined
 * with ", ", {@code set-cookie} with "\n" because cookies may contain commas), then the body as ONE data section
 * however many buffers it was written in (its size backfilled at the end), or one empty data section for an empty
 * body. One section because clients built on proton-j (Qpid JMS among them) keep only the last data section of a
 * message.
 *
 * <p>Runs on the thread that completes the response (a servlet thread), never on the engine thread, so encoding
 * costs the connection nothing. An encoder serves one response at a time and owns the bytes until the engine
 * copies them; then it goes back to its connection's reusables and is cleared by the next
 * {@link #begin}, so its buffer and scratch state are reused rather than allocated per response.
 */
public final class ResponseEncoder {
    private static final byte[] NO_BYTES = new byte[0];
    /** The status digits of every status a response can have (100-999), made once: subject is a String. */
    private static final String[] STATUS_TEXT = new String[1000];

    static {
        for (int i = 100; i < STATUS_TEXT.length; i++) {
            STATUS_TEXT[i] = Integer.toString(i);
        }
    }

    private final AmqpWriter writer = new AmqpWriter(512);
    private final MessageWriter message = new MessageWriter();
    private final MutableBytes to = new MutableBytes();
    /**
     * The response's fields, copied out in ONE walk: {@code HttpFields.getField(i)} on Jetty's mutable fields makes
     * an iterator per call, and finding repeated names by index made that quadratic.
     */
    private HttpField[] fields = new HttpField[16];
    private boolean bodyWritten;
    private int dataHeaderAt;
    private long bodyBytes;

    /** Writes properties and application-properties; body sections follow with {@link #data(ByteBuffer)}. */
    public void begin(int status, HttpFields headers, byte[] replyTo, MessageId correlationId) {
        begin(status, headers, replyTo, correlationId, HttpVersion.HTTP_1_1);
    }

    /** As {@link #begin(int, HttpFields, byte[], MessageId)}, with {@code http:response} naming {@code version}. */
    public void begin(int status, HttpFields headers, byte[] replyTo, MessageId correlationId, HttpVersion version) {
        begin(status, headers, replyTo, correlationId, version, false);
    }

    /**
     * As {@link #begin(int, HttpFields, byte[], MessageId, HttpVersion)}; {@code valueBody}: the body will be an
     * amqp-value ({@link #endWithValue}, {@link #endWithJson}), so the Content-Type, which describes bytes, is not
     * the message's content-type (AMQP 1.0 §3.2.4 gives that field to data sections), and the Content-Length, which
     * counts bytes the message does not carry, is not an application-property.
     */
    public void begin(int status, HttpFields headers, byte[] replyTo, MessageId correlationId, HttpVersion version,
               boolean valueBody) {
        begin(status, headers, replyTo, correlationId, version, valueBody, false);
    }

    /**
     * As {@link #begin(int, HttpFields, byte[], MessageId, HttpVersion, boolean)}; {@code durable}: the message has a
     * header with durable set (AMQP 1.0 §3.2.1), so a broker that holds it keeps it across a restart.
     */
    public void begin(int status, HttpFields headers, byte[] replyTo, MessageId correlationId, HttpVersion version,
               boolean valueBody, boolean durable) {
        writer.clear();
        message.wrap(writer);
        if (durable) {
            message.header(true); // AMQP 1.0 §3.2: the header comes first
        }
        bodyWritten = false;
        bodyBytes = 0;
        int n = 0;
        String contentType = null;
        String contentEncoding = null;
        for (HttpField field : headers) { // the one iterator of this response
            if (n == fields.length) {
                fields = Arrays.copyOf(fields, n * 2);
            }
            fields[n++] = field;
            HttpHeader h = field.getHeader();
            if (h == HttpHeader.CONTENT_TYPE && contentType == null) {
                contentType = field.getValue();
            } else if (h == HttpHeader.CONTENT_ENCODING && contentEncoding == null) {
                contentEncoding = field.getValue();
            }
        }
        message.startProperties().to(to.set(replyTo, 0, replyTo.length)).subject(statusText(status));
        if (!correlationId.isNull()) {
            message.correlationId(correlationId);
        }
        if (contentType != null && !valueBody) {
            message.contentType(contentType);
        }
        if (contentEncoding != null) {
            message.contentEncoding(contentEncoding);
        }
        message.endProperties();

        // The request's version, as Jetty's HTTP/1 and HTTP/2 connections answer in the version they were asked in.
        message.startApplicationProperties().put("http:response", versionText(version));
        for (int i = 0; i < n; i++) {
            HttpField field = fields[i];
            if (isCarriedElsewhere(field) || seenBefore(fields, i)
                    || valueBody && field.getHeader() == HttpHeader.CONTENT_LENGTH) {
                continue; // an amqp-value's length is not the byte count Content-Length gave (0 for a typed value)
            }
            String name = field.getLowerCaseName();
            message.put(name, joinedValues(fields, n, i, "set-cookie".equals(name) ? "\n" : ", "));
        }
        Arrays.fill(fields, 0, n, null); // the fields belong to the response, not to this encoder
        message.endApplicationProperties();
    }

    /**
     * Appends the remaining bytes of {@code content} to the body's data section and consumes them (a transport that
     * wrote a buffer leaves it empty; Jetty's response buffers rely on that); nothing when empty.
     */
    public void data(ByteBuffer content) {
        if (content != null && content.hasRemaining()) {
            if (!bodyWritten) {
                message.startData();
                dataHeaderAt = writer.position() - 5; // the vbin32 constructor and size startData reserved
                bodyWritten = true;
            }
            bodyBytes += content.remaining();
            message.appendData(content);
            content.position(content.limit());
        }
    }

    /** Finishes the message, adding the empty data section an empty body needs (AMQP 1.0 §3.2: a body is required). */
    public void end() {
        if (bodyWritten) {
            message.endData();
        } else {
            message.data(NO_BYTES, 0, 0);
        }
        message.end();
    }

    /**
     * Finishes the message with {@code value} as its amqp-value body (AMQP 1.0 §3.2.8) instead of the bytes appended,
     * which are dropped: a handler's typed response ({@link AmqpBody#RESPONSE_VALUE}).
     *
     * @throws IllegalArgumentException when the value holds a Java type the mapping has no AMQP type for
     */
    public void endWithValue(Object value) {
        dropData();
        writer.writeDescriptor(MessageSection.AMQP_VALUE.descriptor());
        ValueEncoder.encode(value, writer);
        message.end();
    }

    /**
     * Finishes the message with the JSON text appended as body turned into an amqp-value through the AMQP↔JSON
     * mapping (docs/mapping.md, "Typed bodies"); text that is not JSON, or exceeds the decoder limits, stays one
     * data section as it is. Returns whether it became an amqp-value.
     */
    public boolean endWithJson(JsonToAmqp json) {
        if (!bodyWritten) {
            end(); // no text: an empty data section, as any empty body
            return false;
        }
        int contentAt = dataHeaderAt + 5;
        byte[] text = Arrays.copyOfRange(writer.array(), contentAt, writer.position());
        // Into a writer of its own: text that is not JSON leaves a half-written value, which the message must not get.
        AmqpWriter value = new AmqpWriter(text.length + 16);
        try {
            json.write(text, 0, text.length, value);
        } catch (DecodeException notJson) {
            message.endData();
            message.end();
            return false;
        }
        dropData();
        writer.writeDescriptor(MessageSection.AMQP_VALUE.descriptor());
        writer.writeEncoded(value.array(), value.start(), value.length());
        message.end();
        return true;
    }

    /** Closes and removes the data section the body went into so far, if any. */
    private void dropData() {
        if (bodyWritten) {
            message.endData();
            writer.truncate(dataHeaderAt - 3); // the section's descriptor: 0x00 0x53 0x75
            bodyWritten = false;
        }
    }

    /** Body bytes appended so far. */
    public long bodyBytes() {
        return bodyBytes;
    }

    /**
     * For a response that streams with a known Content-Length: the open data section is declared to hold
     * {@code totalBytes}, of which the bytes so far are the first; the rest follow raw, outside this encoder.
     */
    public void declareDataLength(long totalBytes) {
        byte[] a = writer.array();
        a[dataHeaderAt + 1] = (byte) (totalBytes >>> 24);
        a[dataHeaderAt + 2] = (byte) (totalBytes >>> 16);
        a[dataHeaderAt + 3] = (byte) (totalBytes >>> 8);
        a[dataHeaderAt + 4] = (byte) totalBytes;
    }

    /** For a response that streams without a known length: closes the data section with the bytes so far. */
    public void closeData() {
        message.endData();
    }

    /** The header of a further data section of {@code length} bytes (AMQP 1.0 §3.2.6: described vbin32). */
    public static byte[] dataSectionHeader(int length) {
        return new byte[] {0x00, 0x53, 0x75, (byte) 0xb0, (byte) (length >>> 24), (byte) (length >>> 16),
                (byte) (length >>> 8), (byte) length};
    }

    public byte[] array() {
        return writer.array();
    }

    public int offset() {
        return writer.start();
    }

    public int length() {
        return writer.length();
    }

    private static String versionText(HttpVersion version) {
        if (version == HttpVersion.HTTP_1_0) {
            return "1.0";
        }
        return version == HttpVersion.HTTP_2 ? "2" : "1.1";
    }

    private static String statusText(int status) {
        return status >= 100 && status < STATUS_TEXT.length ? STATUS_TEXT[status] : Integer.toString(status);
    }

    /**
     * Properties carry these, or they describe HTTP/1 framing that has no meaning on an AMQP link, or their names are
     * the mapping's own ({@code http:}, where {@code http:response} is; a second key of one name would make the
     * application-properties an invalid map, AMQP 1.0 §1.6.23).
     */
    private static boolean isCarriedElsewhere(HttpField field) {
        HttpHeader h = field.getHeader();
        if (h == null) {
            String name = field.getName();
            return "proxy-connection".equalsIgnoreCase(name) || name.regionMatches(true, 0, "http:", 0, 5);
        }
        switch (h) {
            case CONTENT_TYPE:
            case CONTENT_ENCODING:
            case CONNECTION:
            case KEEP_ALIVE:
            case TRANSFER_ENCODING:
            case UPGRADE:
            case TE:
            case TRAILER:
                return true;
            default:
                return false;
        }
    }

    /** Whether a field before {@code index} has the same name (compared without case, as HTTP names are). */
    private static boolean seenBefore(HttpField[] fields, int index) {
        String name = fields[index].getName();
        for (int i = 0; i < index; i++) {
            if (fields[i].getName().equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private static String joinedValues(HttpField[] fields, int n, int first, String separator) {
        HttpField field = fields[first];
        String value = field.getValue() == null ? "" : field.getValue();
        String name = field.getName();
        StringBuilder joined = null;
        for (int i = first + 1; i < n; i++) {
            HttpField other = fields[i];
            if (other.getName().equalsIgnoreCase(name)) {
                if (joined == null) {
                    joined = new StringBuilder(value);
                }
                joined.append(separator).append(other.getValue() == null ? "" : other.getValue());
            }
        }
        return joined == null ? value : joined.toString();
    }

    /** The capacity of this encoder's buffer: a pool keeps only encoders that did not grow for a large response. */
    public int capacity() {
        return writer.array().length;
    }

    @Override
    public String toString() {
        return "ResponseEncoder[" + writer.length() + " bytes" + (bodyWritten ? "]" : ", no body yet]");
    }
}
