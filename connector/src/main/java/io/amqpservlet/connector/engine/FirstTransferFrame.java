package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.types.Descriptors;

/**
 * Writes the frame of the commonest transfer there is, the one and only frame of a message: handle, delivery-id,
 * delivery-tag, message-format 0 and, for a pre-settled message, settled=true (AMQP 1.0 §2.7.5), followed by the
 * payload. The bytes are those {@code Transfer.encode} produces (smallest encodings, trailing absent fields left
 * out, §1.4), written straight into the output array: this frame is sent once per message, and going through the
 * generic performative encoder (field-by-field null tracking, list size backfill) cost as much as the rest of
 * sending a message.
 */
final class FirstTransferFrame {
    /** The largest performative this class writes: descriptor 3, list8 header 3, two uints 10, vbin8 2 + 255, 2. */
    static final int MAX_PERFORMATIVE_BYTES = 3 + 3 + 5 + 5 + 2 + 255 + 1 + 1;

    private FirstTransferFrame() {
    }

    /**
     * Whether a message of {@code payloadBytes} fits in one frame this class writes, under the peer's
     * {@code maxFrameSize}.
     */
    static boolean fits(int payloadBytes, int tagLength, int maxFrameSize) {
        return tagLength <= 255 && payloadBytes <= maxFrameSize - FrameHeader.SIZE - MAX_PERFORMATIVE_BYTES;
    }

    /** Writes the whole frame: header, transfer performative and payload. */
    static void write(AmqpWriter w, int channel, int handle, int deliveryId, byte[] tag, int tagLength, boolean settled,
                      byte[] payload, int payloadOffset, int payloadLength) {
        int start = w.reserve(FrameHeader.SIZE + MAX_PERFORMATIVE_BYTES + payloadLength);
        byte[] a = w.array();
        int p = start + FrameHeader.SIZE;
        a[p++] = FormatCode.DESCRIBED;
        a[p++] = (byte) FormatCode.SMALLULONG;
        a[p++] = (byte) Descriptors.TRANSFER;
        a[p++] = (byte) FormatCode.LIST8;
        int sizeAt = p;
        p += 2; // list8 size and count, filled in below
        p = putUInt(a, p, handle);
        p = putUInt(a, p, deliveryId);
        a[p++] = (byte) FormatCode.VBIN8;
        a[p++] = (byte) tagLength;
        System.arraycopy(tag, 0, a, p, tagLength);
        p += tagLength;
        a[p++] = (byte) FormatCode.UINT0; // message-format 0
        if (settled) {
            a[p++] = (byte) FormatCode.BOOLEAN_TRUE;
        }
        // AMQP 1.0 §1.4: list8 size counts the count byte and the fields; trailing absent fields are left out.
        a[sizeAt] = (byte) (p - sizeAt - 1);
        a[sizeAt + 1] = (byte) (settled ? 5 : 4);
        System.arraycopy(payload, payloadOffset, a, p, payloadLength);
        p += payloadLength;
        FrameHeader.write(a, start, p - start, FrameHeader.TYPE_AMQP, channel);
        w.truncate(p);
    }

    /** uint0, smalluint or uint, the smallest that holds the 32 bits of {@code value} (read as unsigned). */
    private static int putUInt(byte[] a, int p, int value) {
        if (value == 0) {
            a[p] = (byte) FormatCode.UINT0;
            return p + 1;
        }
        if ((value & 0xFFFFFF00) == 0) {
            a[p] = (byte) FormatCode.SMALLUINT;
            a[p + 1] = (byte) value;
            return p + 2;
        }
        a[p] = (byte) FormatCode.UINT;
        a[p + 1] = (byte) (value >>> 24);
        a[p + 2] = (byte) (value >>> 16);
        a[p + 3] = (byte) (value >>> 8);
        a[p + 4] = (byte) value;
        return p + 5;
    }
}
