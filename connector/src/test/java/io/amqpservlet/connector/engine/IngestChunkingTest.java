package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Engine#ingest}: bytes arrive however the transport cut them. A read that completes a frame kept from an
 * earlier read may carry more frames after it; together they can exceed one max-frame-size, which must not matter
 * (found by Qpid JMS sending a 5 MiB message in 64 KiB frames through Jetty's 8 KiB reads).
 */
class IngestChunkingTest {
    private static final int MAX_FRAME = 1024;

    private final AcceptorRecorder handler = new AcceptorRecorder();

    /** Two transfers of exactly MAX_FRAME bytes each, one message each. */
    private static byte[] twoFullFrames(RawPeer peer) {
        for (int id = 0; id < 2; id++) {
            Transfer t = peer.transfer(0, id, true);
            int n = 0;
            while (transferSize(t, RawPeer.message("POST", n).length) < MAX_FRAME) {
                n++;
            }
            peer.transfer(0, t, RawPeer.message("POST", n));
        }
        byte[] bytes = peer.written();
        assertEquals(2 * MAX_FRAME, bytes.length);
        return bytes;
    }

    private static int transferSize(Transfer t, int payload) {
        io.amqpservlet.protocol.codec.AmqpWriter w = new io.amqpservlet.protocol.codec.AmqpWriter();
        t.encode(w);
        return w.length() + payload + FrameHeader.SIZE;
    }

    private RawPeer openPeerWithSenderLink() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxFrameSizeBytes(MAX_FRAME), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "requests", "/q", 0);
        peer.take();
        return peer;
    }

    @Test
    void aReadThatCompletesAKeptFrameAndCarriesAFullFrameMoreIsAccepted() {
        RawPeer peer = openPeerWithSenderLink();
        byte[] bytes = twoFullFrames(peer);
        // Most of the first frame, then the rest of it and the whole second frame in one read: the kept bytes plus
        // the read are nearly two max-frame-sizes.
        int first = MAX_FRAME - 24;
        peer.engine.ingest(bytes, 0, first, peer.now);
        peer.engine.ingest(bytes, first, bytes.length - first, peer.now);
        peer.collect();
        assertEquals(2, handler.messages, handler.events.toString());
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void directBuffersAreSlicedBesideTheKeptBytesToo() {
        RawPeer peer = openPeerWithSenderLink();
        byte[] bytes = twoFullFrames(peer);
        int first = MAX_FRAME - 24;
        ByteBuffer a = ByteBuffer.allocateDirect(first).put(bytes, 0, first).flip();
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length - first).put(bytes, first, bytes.length - first).flip();
        peer.engine.ingest(a, peer.now);
        peer.engine.ingest(b, peer.now);
        peer.collect();
        assertEquals(0, b.remaining(), "the buffer is consumed");
        assertEquals(2, handler.messages, handler.events.toString());
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void everyCutOfTwoFramesIntoTwoReadsGivesBothMessages() {
        for (int cut = 1; cut < 2 * MAX_FRAME; cut += 37) {
            AcceptorRecorder h = new AcceptorRecorder();
            RawPeer peer = new RawPeer(RawPeer.noSasl().maxFrameSizeBytes(MAX_FRAME), h);
            peer.open();
            peer.begin(0, 0, 100);
            peer.attachSender(0, 0, "requests", "/q", 0);
            peer.take();
            byte[] bytes = twoFullFrames(peer);
            peer.engine.ingest(bytes, 0, cut, peer.now);
            peer.engine.ingest(bytes, cut, bytes.length - cut, peer.now);
            peer.collect();
            assertEquals(2, h.messages, "cut at " + cut + ": " + h.events);
            assertTrue(peer.engine.isOpen(), "cut at " + cut);
        }
    }
}
