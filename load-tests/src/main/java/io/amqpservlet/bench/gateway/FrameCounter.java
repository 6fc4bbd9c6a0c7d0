package io.amqpservlet.bench.gateway;

import io.amqpservlet.protocol.frame.ProtocolHeader;

import java.nio.ByteBuffer;

/**
 * Counts the non-empty frames of a server's stream, read in pieces of any size, without decoding them. A unit of the
 * stream is an 8-byte protocol header (it starts with "AMQP", which as a frame size would exceed any limit) or a frame
 * (its first four bytes are its size; an empty frame, a heartbeat, is 8 bytes). The state of one socket of the
 * capacity and flood runs, which hold thousands.
 */
class FrameCounter {
    private static final int AMQP = 0x414D5150;

    /** The non-empty frames seen so far. */
    int frames;
    /** The first four bytes of the current unit, as far as read. */
    private int head;
    private int headBytes;
    /** Bytes of the current unit still to skip once its first four are known. */
    private int skip;

    /** Walks the bytes {@code in} has left, counting the frames that begin in them. */
    final void parse(ByteBuffer in) {
        while (in.hasRemaining()) {
            if (skip > 0) {
                int n = Math.min(skip, in.remaining());
                in.position(in.position() + n);
                skip -= n;
                continue;
            }
            head = head << 8 | in.get() & 0xFF;
            if (++headBytes < 4) {
                continue;
            }
            if (head == AMQP) {
                skip = ProtocolHeader.LENGTH - 4;
            } else {
                skip = head - 4;
                if (head > 8) {
                    frames++;
                }
            }
            head = 0;
            headBytes = 0;
        }
    }
}
