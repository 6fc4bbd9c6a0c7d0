package io.amqpservlet.bench.codec;

import java.util.Arrays;

/**
 * What a receiver takes out of a transfer frame before it looks at the message: the frame header, the
 * transfer's handle, delivery-id, delivery-tag and message-format, and where the payload is. The tag is a view
 * (array, offset, length) of whatever holds it after decoding.
 */
final class DecodedTransfer {
    static final long HANDLE = 0;
    static final long DELIVERY_ID = 100_000;
    static final long MESSAGE_FORMAT = 0;
    static final byte[] TAG = {0, 0, 0, 0, 0, 1, (byte) 0x86, (byte) 0xa0};

    int frameSize;
    int channel;
    long handle;
    long deliveryId;
    long messageFormat;
    byte[] tag;
    int tagOffset;
    int tagLength;
    int payloadOffset;
    int payloadLength;

    void reset() {
        frameSize = channel = 0;
        handle = deliveryId = messageFormat = -1;
        tag = null;
        tagOffset = tagLength = 0;
        payloadOffset = payloadLength = 0;
    }

    /**
     * Throws unless the fields are the workload's and the payload is the request message: {@code frame} is the
     * decoded frame, whose payload is checked by decoding it with our message decoder.
     */
    void verify(String who, byte[] frame, DecodedRequest scratch) {
        if (frameSize != frame.length || channel != 0 || handle != HANDLE || deliveryId != DELIVERY_ID
                || messageFormat != MESSAGE_FORMAT) {
            throw new AssertionError(who + ": frame size " + frameSize + " of " + frame.length + ", channel " + channel
                    + ", handle " + handle + ", delivery-id " + deliveryId + ", message-format " + messageFormat);
        }
        if (tag == null || !Arrays.equals(TAG, 0, TAG.length, tag, tagOffset, tagOffset + tagLength)) {
            throw new AssertionError(who + ": delivery-tag differs");
        }
        if (payloadOffset + payloadLength != frame.length || payloadLength <= 0) {
            throw new AssertionError(who + ": payload at " + payloadOffset + " length " + payloadLength
                    + " does not end the " + frame.length + "-byte frame");
        }
        OursRequestCodec.decode(new io.amqpservlet.protocol.codec.AmqpReader(), frame, payloadOffset, payloadLength, scratch);
        scratch.verify(who + ", payload");
    }
}
