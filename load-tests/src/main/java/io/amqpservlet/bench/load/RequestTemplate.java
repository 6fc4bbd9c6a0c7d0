package io.amqpservlet.bench.load;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * One connection's request message, encoded once; each send only overwrites the eight bytes of its
 * {@code message-id}. The id is a ulong whose top byte is {@link #MARK}, so it is always written in the 9-byte
 * {@code ulong} form (AMQP 1.0 §1.6.10, constructor 0x80) and the patch never changes the message's length. The
 * gateway answers with {@code correlation-id} = our {@code message-id} (docs/design.md §3), which is how a response
 * finds its request.
 */
final class RequestTemplate {
    /** Top byte of every message-id we send; keeps the ulong encoding at its full 8 bytes. */
    static final long MARK = 0x5AL << 56;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final byte[] bytes;
    private final int idOffset;

    RequestTemplate(String method, String target, String replyTo, String contentType, Map<String, String> headers,
                    byte[] body) {
        AmqpWriter w = new AmqpWriter(256 + body.length);
        MessageWriter m = new MessageWriter().wrap(w).startProperties()
                .messageId(MARK)
                .to(target)
                .subject(method)
                .replyTo(replyTo);
        if (contentType != null && body.length > 0) {
            m.contentType(contentType);
        }
        m.endProperties();
        if (!headers.isEmpty()) {
            m.startApplicationProperties();
            for (Map.Entry<String, String> e : headers.entrySet()) {
                m.put(e.getKey().toLowerCase(java.util.Locale.ROOT), e.getValue());
            }
            m.endApplicationProperties();
        }
        if (body.length > 0) {
            m.data(body, 0, body.length);
        }
        m.end();
        bytes = java.util.Arrays.copyOfRange(w.array(), w.start(), w.start() + w.length());
        idOffset = find(bytes);
    }

    /** The offset of the 8 id bytes: after the first {@code 0x80} constructor followed by {@link #MARK}. */
    private static int find(byte[] b) {
        for (int i = 0; i + 9 <= b.length; i++) {
            if (b[i] == (byte) 0x80 && (long) LONG.get(b, i + 1) == MARK) {
                return i + 1;
            }
        }
        throw new IllegalStateException("message-id not found in the encoded request");
    }

    /** Writes {@code id} (which must carry {@link #MARK}) as the message-id; returns the message bytes. */
    byte[] withId(long id) {
        LONG.set(bytes, idOffset, id);
        return bytes;
    }

    int length() {
        return bytes.length;
    }
}
