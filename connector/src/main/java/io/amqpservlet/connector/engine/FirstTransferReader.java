package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.transport.Transfer;

/**
 * Reads the commonest transfer frame there is straight from the frame body: a numeric descriptor, a list8 of at
 * most the first six fields (handle, delivery-id, delivery-tag, message-format, settled, more; AMQP 1.0 §2.7.5),
 * each in one of the encodings senders use for them. That is the shape {@link FirstTransferFrame} writes and the
 * shape protonj2 and proton-j send. Anything else (another encoding, a state, a symbolic descriptor, a malformed
 * list) is left to the generic performative decoder, which also reports what is wrong: this reader only ever
 * answers "read" or "not mine", so it never accepts bytes the generic decoder would refuse.
 *
 * <p>One transfer frame arrives per message, and the generic decoder's field-by-field cursor cost more than
 * everything else the engine does to receive a message.
 */
final class FirstTransferReader {
    private static final int NOT_MINE = -1;

    /** The cursor between field reads; meaningful only inside {@link #read}. */
    private int pos;
    private int limit;
    private int value;
    private boolean isNull;

    /**
     * Reads a transfer of the common shape from {@code bytes[offset, end)} into {@code t}.
     *
     * @return the offset of the payload after the performative, or -1 when the body has another shape ({@code t}
     *         is then undefined and the caller decodes the body in general)
     */
    int read(byte[] bytes, int offset, int end, Transfer t) {
        // described (0x00), smallulong 0x14 (transfer), list8: 6 bytes before the first field.
        if (end - offset < 7 || bytes[offset] != FormatCode.DESCRIBED
                || bytes[offset + 1] != (byte) FormatCode.SMALLULONG || bytes[offset + 2] != (byte) Descriptors.TRANSFER
                || bytes[offset + 3] != (byte) FormatCode.LIST8) {
            return NOT_MINE;
        }
        int size = bytes[offset + 4] & 0xFF;
        int count = bytes[offset + 5] & 0xFF;
        int listEnd = offset + 5 + size; // AMQP 1.0 §1.6.22: list8 size counts the count byte and the elements
        if (size < 1 || listEnd > end || count < 1 || count > 6) {
            return NOT_MINE;
        }
        byte[] a = bytes;
        pos = offset + 6;
        limit = listEnd;
        t.clear();
        if (!readUInt(a, false)) {
            return NOT_MINE; // handle is mandatory
        }
        t.handle(value);
        if (count >= 2) {
            if (!readUInt(a, true)) {
                return NOT_MINE;
            }
            if (!isNull) {
                t.deliveryId(value);
            }
        }
        if (count >= 3 && !readTag(a, t)) {
            return NOT_MINE;
        }
        if (count >= 4) {
            if (!readUInt(a, true)) {
                return NOT_MINE;
            }
            if (!isNull) {
                t.messageFormat(value);
            }
        }
        if (count >= 5) {
            int b = readBoolean(a);
            if (b == NOT_MINE) {
                return NOT_MINE;
            }
            if (b != NULL_BOOLEAN) {
                t.settled(b == 1);
            }
        }
        if (count >= 6) {
            int b = readBoolean(a);
            if (b == NOT_MINE) {
                return NOT_MINE;
            }
            t.more(b == 1);
        }
        return pos == listEnd ? listEnd : NOT_MINE;
    }

    /** Reads uint0, smalluint, uint (or null when allowed) into {@link #value}/{@link #isNull}; false otherwise. */
    private boolean readUInt(byte[] a, boolean nullable) {
        int p = pos;
        if (p >= limit) {
            return false;
        }
        isNull = false;
        switch (a[p] & 0xFF) {
            case FormatCode.UINT0:
                value = 0;
                pos = p + 1;
                return true;
            case FormatCode.SMALLUINT:
                if (p + 2 > limit) {
                    return false;
                }
                value = a[p + 1] & 0xFF;
                pos = p + 2;
                return true;
            case FormatCode.UINT:
                if (p + 5 > limit) {
                    return false;
                }
                value = (a[p + 1] & 0xFF) << 24 | (a[p + 2] & 0xFF) << 16 | (a[p + 3] & 0xFF) << 8 | a[p + 4] & 0xFF;
                pos = p + 5;
                return true;
            case FormatCode.NULL:
                isNull = true;
                pos = p + 1;
                return nullable;
            default:
                return false;
        }
    }

    private static final int NULL_BOOLEAN = 2;

    /** Reads true, false or null: 1, 0, {@link #NULL_BOOLEAN}; {@link #NOT_MINE} for anything else. */
    private int readBoolean(byte[] a) {
        int p = pos;
        if (p >= limit) {
            return NOT_MINE;
        }
        pos = p + 1;
        switch (a[p] & 0xFF) {
            case FormatCode.BOOLEAN_TRUE:
                return 1;
            case FormatCode.BOOLEAN_FALSE:
                return 0;
            case FormatCode.NULL:
                return NULL_BOOLEAN;
            default:
                return NOT_MINE;
        }
    }

    /** Reads a vbin8 delivery-tag (or null) into {@code t}; false for anything else. */
    private boolean readTag(byte[] a, Transfer t) {
        int p = pos;
        if (p >= limit) {
            return false;
        }
        int code = a[p] & 0xFF;
        if (code == FormatCode.NULL) {
            pos = p + 1;
            return true;
        }
        if (code != FormatCode.VBIN8 || p + 2 > limit) {
            return false;
        }
        int n = a[p + 1] & 0xFF;
        if (p + 2 + n > limit) {
            return false;
        }
        t.deliveryTag(a, p + 2, n);
        pos = p + 2 + n;
        return true;
    }
}
