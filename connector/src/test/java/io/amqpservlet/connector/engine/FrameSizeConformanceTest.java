package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Frame sizes (AMQP 1.0 §2.7.1): 512 bytes before open, our max-frame-size after it, the peer's when we send. */
class FrameSizeConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    @Test
    void aFrameLargerThan512BytesBeforeOpenIsAFramingErrorAnsweredWithOpenThenClose() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        Open big = peer.p().open().clear().containerId("x".repeat(600));
        peer.header(io.amqpservlet.protocol.frame.ProtocolHeader.AMQP).frame(0, big).flush();
        List<RawPeer.Frame> frames = peer.take();
        assertEquals(2, frames.size(), frames.toString());
        assertTrue(frames.get(0).performative() instanceof Open, "§2.4.2: open before close");
        RawPeer.assertCloseError((Close) frames.get(1).performative(), ErrorConditions.CONNECTION_FRAMING_ERROR);
        assertTrue(peer.engine.isDone());
        assertEquals(List.of(), handler.events.stream().filter(e -> e.startsWith("open")).toList(),
                "the application never saw an open it could not have read");
    }

    @Test
    void aFrameOf512BytesBeforeOpenIsAccepted() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        Open open = peer.p().open().clear();
        // The container-id that makes the frame exactly 512 bytes (encodings widen past 255 bytes).
        int n = 0;
        while (frameSize(open.containerId("y".repeat(n))) < 512) {
            n++;
        }
        assertEquals(512, frameSize(open));
        peer.open(open);
        assertTrue(peer.engine.isOpen());
    }

    private static int frameSize(Open open) {
        io.amqpservlet.protocol.codec.AmqpWriter w = new io.amqpservlet.protocol.codec.AmqpWriter();
        open.encode(w);
        return w.length() + FrameHeader.SIZE;
    }

    @Test
    void aFrameLargerThanOurMaxFrameSizeAfterOpenClosesWithFramingError() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxFrameSizeBytes(1024), handler);
        peer.open();
        assertEquals(1024, peer.last(Open.class).maxFrameSize());
        peer.begin(0, 0, 100);
        peer.rawFrame(FrameHeader.TYPE_AMQP, 0, new byte[1024 - FrameHeader.SIZE + 1]).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.CONNECTION_FRAMING_ERROR);
        assertTrue(peer.engine.isDone());
        assertTrue(handler.closed);
    }

    @Test
    void aFrameOfExactlyOurMaxFrameSizeIsAccepted() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().maxFrameSizeBytes(1024), handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "big", "/q", 0);
        peer.take();
        Transfer t = peer.transfer(0, 0, true);
        int n = 0;
        while (transferSize(t, RawPeer.message("POST", n).length) < 1024) {
            n++;
        }
        byte[] fill = RawPeer.message("POST", n);
        assertEquals(1024, transferSize(t, fill.length));
        peer.transfer(0, t, fill).flush();
        assertEquals(1, handler.messages, handler.events.toString());
        assertTrue(peer.engine.isOpen());
    }

    private static int transferSize(Transfer t, int payload) {
        io.amqpservlet.protocol.codec.AmqpWriter w = new io.amqpservlet.protocol.codec.AmqpWriter();
        t.encode(w);
        return w.length() + payload + FrameHeader.SIZE;
    }

    @Test
    void aPeerMaxFrameSizeOf512MakesUsSplitTransfers() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.open(peer.p().open().clear().containerId("small").maxFrameSize(512));
        peer.begin(0, 0, 1000);
        peer.attachReceiver(0, 0, "replies", "/replies");
        Link sender = handler.link("replies");
        Flow flow = peer.p().flow().clear().nextIncomingId(0).incomingWindow(1000).nextOutgoingId(0)
                .outgoingWindow(1000).handle(0).deliveryCount(0).linkCredit(1);
        peer.frame(0, flow).flush();
        byte[] message = RawPeer.message("200", 2_000);
        assertNotNull(sender.send(message, 0, message.length, false));
        peer.collect();

        List<RawPeer.Frame> transfers = peer.take().stream().filter(f -> !f.isEmpty()
                && f.performative() instanceof Transfer).toList();
        assertTrue(transfers.size() >= 5, "2,000 bytes in 512-byte frames: " + transfers.size());
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        for (int i = 0; i < transfers.size(); i++) {
            RawPeer.Frame f = transfers.get(i);
            assertTrue(f.body().length + FrameHeader.SIZE <= 512, "frame " + i + " is " + (f.body().length + 8));
            Transfer t = (Transfer) f.performative();
            assertEquals(i < transfers.size() - 1, t.more(), "more on every frame but the last");
            if (i == 0) {
                assertTrue(t.hasDeliveryId());
                assertEquals(0, t.deliveryId());
            }
            payload.writeBytes(f.payload());
        }
        assertArrayEquals(message, payload.toByteArray());
        assertFalse(peer.engine.isDone());
    }

    @Test
    void aPeerMaxFrameSizeBelow512IsRefusedWithInvalidField() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.header(io.amqpservlet.protocol.frame.ProtocolHeader.AMQP)
                .frame(0, peer.p().open().clear().containerId("tiny").maxFrameSize(100)).flush();
        peer.next(Open.class);
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.INVALID_FIELD);
    }
}
