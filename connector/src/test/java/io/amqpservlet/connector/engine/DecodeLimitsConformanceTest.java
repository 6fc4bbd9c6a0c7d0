package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Frames the decoder must refuse (docs/design.md §5): nesting and element counts past {@link DecoderLimits}, bytes that
 * are not a performative, and performatives out of order. Each closes only its own connection.
 */
class DecodeLimitsConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    /** {@code levels} lists, each holding the next (list32, so any depth fits). */
    static byte[] nestedLists(int levels) {
        byte[] inner = {0x45};
        for (int i = 0; i < levels; i++) {
            byte[] b = new byte[inner.length + 9];
            b[0] = (byte) 0xD0;
            int size = inner.length + 4;
            b[1] = (byte) (size >>> 24);
            b[2] = (byte) (size >>> 16);
            b[3] = (byte) (size >>> 8);
            b[4] = (byte) size;
            b[8] = 1;
            System.arraycopy(inner, 0, b, 9, inner.length);
            inner = b;
        }
        return inner;
    }

    private RawPeer opened(EngineConfig config) {
        RawPeer peer = new RawPeer(config, handler);
        peer.open();
        peer.begin(0, 0, 100);
        return peer;
    }

    /** A second engine with the same configuration still works: the failure stayed on its connection. */
    private static void anotherConnectionStillWorks(EngineConfig config) {
        RawPeer other = new RawPeer(config, new AcceptorRecorder());
        other.open();
        other.begin(0, 0, 100);
        assertTrue(other.engine.isOpen());
    }

    @Test
    void aFrameOf100NestedListsClosesWithDecodeError() {
        EngineConfig config = RawPeer.noSasl();
        RawPeer peer = opened(config);
        peer.rawFrame(FrameHeader.TYPE_AMQP, 0, nestedLists(100)).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.DECODE_ERROR);
        assertTrue(peer.engine.isDone());
        anotherConnectionStillWorks(config);
    }

    @Test
    void describedConstructorsNestedPastTheDepthLimitCloseWithDecodeError() {
        EngineConfig config = RawPeer.noSasl().decoderLimits(new DecoderLimits(16, 1 << 20));
        RawPeer peer = opened(config);
        // 0x00 0x00 0x00 ... : a descriptor that is itself described, 100 times over.
        byte[] body = new byte[102];
        body[100] = 0x53;
        body[101] = 0x13;
        peer.rawFrame(FrameHeader.TYPE_AMQP, 0, body).flush();
        Close close = peer.next(Close.class);
        RawPeer.assertCloseError(close, ErrorConditions.DECODE_ERROR);
        assertTrue(close.error().description().toString().contains("deeper"), close.toString());
    }

    @Test
    void aMapWithMoreElementsThanTheLimitClosesWithDecodeError() {
        EngineConfig config = RawPeer.noSasl().decoderLimits(new DecoderLimits(64, 100));
        RawPeer peer = opened(config);
        AmqpWriter w = new AmqpWriter();
        w.writeDescriptor(0x13L); // flow
        w.startList();
        w.writeUInt(0);
        w.writeUInt(100);
        w.writeUInt(0);
        w.writeUInt(100);
        for (int i = 0; i < 4; i++) {
            w.writeNull();
        }
        w.writeBoolean(false);
        w.writeBoolean(false);
        w.startMap();
        for (int i = 0; i < 60; i++) {
            w.writeSymbol("k" + i);
            w.writeInt(i);
        }
        w.endMap();
        w.endList();
        peer.rawFrame(FrameHeader.TYPE_AMQP, 0, w.toByteArray()).flush();
        Close close = peer.next(Close.class);
        RawPeer.assertCloseError(close, ErrorConditions.DECODE_ERROR);
        assertTrue(close.error().description().toString().contains("limit"), close.toString());
        anotherConnectionStillWorks(config);
    }

    @Test
    void aListCountLargerThanItsBytesIsRefusedBeforeAnythingIsAllocated() {
        RawPeer peer = opened(RawPeer.noSasl());
        // begin: list32 claiming 100,000,000 elements in 8 bytes.
        byte[] body = {0x00, 0x53, 0x11, (byte) 0xD0, 0, 0, 0, 8, 0x05, (byte) 0xF5, (byte) 0xE1, 0x00, 0x40, 0x40, 0x40, 0x40};
        peer.rawFrame(FrameHeader.TYPE_AMQP, 1, body).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.DECODE_ERROR);
    }

    @Test
    void aTruncatedPerformativeClosesWithDecodeError() {
        RawPeer peer = opened(RawPeer.noSasl());
        byte[] body = {0x00, 0x53, 0x13, (byte) 0xC0, 0x10, 0x05, 0x43};
        peer.rawFrame(FrameHeader.TYPE_AMQP, 0, body).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.DECODE_ERROR);
        assertTrue(handler.closed);
    }

    @Test
    void anUnknownDescriptorClosesWithDecodeError() {
        RawPeer peer = opened(RawPeer.noSasl());
        byte[] body = {0x00, 0x53, 0x77, 0x45};
        peer.rawFrame(FrameHeader.TYPE_AMQP, 0, body).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.DECODE_ERROR);
    }

    @Test
    void aMandatoryFieldMissingClosesWithDecodeErrorOrInvalidField() {
        RawPeer peer = opened(RawPeer.noSasl());
        byte[] body = {0x00, 0x53, 0x11, 0x45}; // begin with no fields: next-outgoing-id is mandatory
        peer.rawFrame(FrameHeader.TYPE_AMQP, 1, body).flush();
        Close close = peer.next(Close.class);
        String condition = close.error().condition().toString();
        assertTrue(condition.equals("amqp:decode-error") || condition.equals("amqp:invalid-field"), close.toString());
    }

    @Test
    void aSecondOpenClosesWithIllegalState() {
        RawPeer peer = opened(RawPeer.noSasl());
        peer.frame(0, peer.p().open().clear().containerId("again")).flush();
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.ILLEGAL_STATE);
        assertTrue(peer.engine.isDone());
    }

    @Test
    void aFrameOtherThanOpenFirstClosesWithIllegalState() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.header(io.amqpservlet.protocol.frame.ProtocolHeader.AMQP)
                .frame(0, peer.p().begin().clear().nextOutgoingId(0).incomingWindow(1).outgoingWindow(1)).flush();
        peer.next(io.amqpservlet.protocol.types.transport.Open.class);
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.ILLEGAL_STATE);
    }

    @Test
    void afterOurCloseEverythingButTheClosingCloseIsIgnored() {
        RawPeer peer = opened(RawPeer.noSasl());
        peer.frame(0, peer.p().open().clear().containerId("again")).flush();
        peer.next(Close.class);
        assertEquals(1, handler.events.stream().filter(e -> e.startsWith("closed")).count());
        peer.frame(0, peer.p().close().clear()).flush();
        assertTrue(peer.take().isEmpty());
    }

    @Test
    void aDepthOverTheMostAnEngineTakesIsRefusedWhereItIsSet() {
        EngineConfig config = new EngineConfig();
        config.decoderLimits(new DecoderLimits(EngineConfig.MAX_DECODE_DEPTH, 10));
        assertEquals(EngineConfig.MAX_DECODE_DEPTH, config.decoderLimits().maxDepth());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> config.decoderLimits(new DecoderLimits(EngineConfig.MAX_DECODE_DEPTH + 1, 10)));
        assertTrue(refused.getMessage().contains("at most 1024"), refused.getMessage());
        assertEquals(EngineConfig.MAX_DECODE_DEPTH, config.decoderLimits().maxDepth(), "left as it was");
    }
}
