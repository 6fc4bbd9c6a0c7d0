package io.amqpservlet.client;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.messaging.Header;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Map;

/**
 * Encodes an HTTP request as an AMQP message (docs/design.md §3): {@code message-id}, {@code to} (the
 * request-target), {@code subject} (the method), {@code reply-to}, {@code content-type} and {@code content-encoding}
 * in the properties; the other headers (names lowercased) as application-properties; the body as one data section. The one request encoder of
 * the project: the {@code request} CLI and the JMeter sampler (through {@link AmqpRequestClient}) and the load
 * generator use it.
 *
 * <p>For repeated sends of the same request, {@link #messageId(long)} overwrites the eight bytes of the
 * {@code message-id} in place: the encoding is reused and nothing is allocated per send. That needs an id written
 * in the full 9-byte {@code ulong} form (AMQP 1.0 §1.6.10, constructor 0x80), which every id with a non-zero top
 * byte is ({@link #ID_MARK}), so a patch never changes the message's length.
 *
 * <p>The buffer is reused by the next {@link #encode}; not thread-safe.
 */
public final class RequestMessageEncoder {
    /** A top byte for message-ids that keeps their ulong encoding at its full 8 bytes, so they can be patched. */
    public static final long ID_MARK = 0x5AL << 56;
    /** The largest {@code header.ttl}, a uint (AMQP 1.0 §3.2.1): about 49 days. */
    private static final long MAX_TTL_MILLIS = 0xFFFF_FFFFL;
    /** The header that travels as the {@code content-encoding} property, not as an application-property. */
    private static final String CONTENT_ENCODING = "content-encoding";
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final AmqpWriter writer;
    private final MessageWriter message = new MessageWriter();
    /** Where the eight id bytes are in {@link #array()}, or -1 when the id is not patchable. */
    private int idOffset = -1;

    /**
     * An encoder whose buffer starts at {@code initialCapacityBytes} (it grows for larger messages).
     *
     * @param initialCapacityBytes the buffer's first size
     */
    public RequestMessageEncoder(int initialCapacityBytes) {
        writer = new AmqpWriter(initialCapacityBytes);
    }

    /**
     * Encodes one request message, replacing the previous one.
     *
     * @param messageId the {@code message-id}; with a non-zero top byte (for instance {@link #ID_MARK}) it can be
     *                  changed later with {@link #messageId(long)}
     * @param method the HTTP method, sent as {@code subject}
     * @param target the request-target (path and query), sent as {@code to}
     * @param replyTo the address responses go to (the client's reply node)
     * @param contentType the {@code content-type} property, or null (not sent when there is no body)
     * @param headers header names and values, sent as application-properties with lowercased names, but for a
     *                {@code Content-Encoding} (any case), sent as the {@code content-encoding} property as
     *                docs/mapping.md maps it; may be empty
     * @param body the body bytes, or null for no data section; {@code bodyLength} 0 also sends none
     * @param bodyOffset where the body starts in {@code body}
     * @param bodyLength the body's length in bytes
     * @return this encoder, to read the encoding from
     */
    public RequestMessageEncoder encode(long messageId, String method, String target, String replyTo,
                                        String contentType, Map<String, String> headers, byte[] body, int bodyOffset,
                                        int bodyLength) {
        return encode(messageId, method, target, replyTo, contentType, headers, body, bodyOffset, bodyLength, 0, 0);
    }

    /**
     * Encodes one request message that expires {@code ttlMillis} after {@code creationTimeEpochMillis}, replacing
     * the previous one. The expiry is written three ways, as Qpid JMS writes a time to live: {@code header.ttl}
     * (which brokers apply while the message waits in a queue), {@code properties.creation-time} and
     * {@code properties.absolute-expiry-time} (which a server that receives it applies: docs/mapping.md, Expiry).
     * A server does not run a request whose expiry has passed, so a client that gives up at a deadline can say so.
     *
     * @param messageId as {@link #encode(long, String, String, String, String, Map, byte[], int, int)}
     * @param method the HTTP method, sent as {@code subject}
     * @param target the request-target (path and query), sent as {@code to}
     * @param replyTo the address responses go to (the client's reply node)
     * @param contentType the {@code content-type} property, or null (not sent when there is no body)
     * @param headers as {@link #encode(long, String, String, String, String, Map, byte[], int, int)}
     * @param body the body bytes, or null for no data section; {@code bodyLength} 0 also sends none
     * @param bodyOffset where the body starts in {@code body}
     * @param bodyLength the body's length in bytes
     * @param creationTimeEpochMillis when the request was made, milliseconds since the epoch (the client's clock)
     * @param ttlMillis how long after that the request expires; 0 or less for a request that never does (no header
     *                  and no times are written)
     * @return this encoder, to read the encoding from
     */
    public RequestMessageEncoder encode(long messageId, String method, String target, String replyTo,
                                        String contentType, Map<String, String> headers, byte[] body, int bodyOffset,
                                        int bodyLength, long creationTimeEpochMillis, long ttlMillis) {
        writer.clear();
        boolean hasBody = body != null && bodyLength > 0;
        String contentEncoding = null;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            if (CONTENT_ENCODING.equalsIgnoreCase(e.getKey())) {
                contentEncoding = e.getValue();
            }
        }
        message.wrap(writer);
        if (ttlMillis > 0) {
            // AMQP 1.0 §3.2.1: ttl is a uint of milliseconds.
            message.header(false, Header.DEFAULT_PRIORITY, Math.min(ttlMillis, MAX_TTL_MILLIS), false, 0);
        }
        message.startProperties()
                .messageId(messageId)
                .to(target)
                .subject(method)
                .replyTo(replyTo);
        if (contentType != null && hasBody) {
            message.contentType(contentType);
        }
        if (contentEncoding != null) {
            message.contentEncoding(contentEncoding);
        }
        if (ttlMillis > 0) {
            message.absoluteExpiryTime(creationTimeEpochMillis + ttlMillis).creationTime(creationTimeEpochMillis);
        }
        message.endProperties();
        if (headers.size() > (contentEncoding != null ? 1 : 0)) {
            message.startApplicationProperties();
            for (Map.Entry<String, String> e : headers.entrySet()) {
                if (!CONTENT_ENCODING.equalsIgnoreCase(e.getKey())) {
                    message.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue());
                }
            }
            message.endApplicationProperties();
        }
        if (hasBody) {
            message.data(body, bodyOffset, bodyLength);
        }
        message.end();
        idOffset = (messageId >>> 56) == 0 ? -1 : find(messageId);
        return this;
    }

    /** The offset of the 8 id bytes: after the first {@code 0x80} (ulong) constructor followed by the id. */
    private int find(long messageId) {
        byte[] b = writer.array();
        int end = writer.start() + writer.length();
        for (int i = writer.start(); i + 9 <= end; i++) {
            if (b[i] == (byte) 0x80 && (long) LONG.get(b, i + 1) == messageId) {
                return i + 1;
            }
        }
        throw new IllegalStateException("message-id " + Long.toHexString(messageId)
                + " not found in the encoded request");
    }

    /**
     * Overwrites the {@code message-id} of the last encoded message in place.
     *
     * @param id the new {@code message-id}, with a non-zero top byte
     * @return this encoder
     * @throws IllegalStateException when the message was encoded with an id whose top byte is zero (not patchable)
     * @throws IllegalArgumentException when {@code id}'s top byte is zero (its encoding would be shorter)
     */
    public RequestMessageEncoder messageId(long id) {
        if (idOffset < 0) {
            throw new IllegalStateException("the message-id was encoded in a short form: encode with a non-zero top byte");
        }
        if ((id >>> 56) == 0) {
            throw new IllegalArgumentException("a patched message-id needs a non-zero top byte, got " + id);
        }
        LONG.set(writer.array(), idOffset, id);
        return this;
    }

    /** {@return the array holding the encoded message at {@link #offset()}, {@link #length()} bytes} */
    public byte[] array() {
        return writer.array();
    }

    /** {@return where the encoded message starts in {@link #array()}} */
    public int offset() {
        return writer.start();
    }

    /** {@return the encoded message's length in bytes} */
    public int length() {
        return writer.length();
    }
}
