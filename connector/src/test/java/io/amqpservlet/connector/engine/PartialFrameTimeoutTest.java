package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EngineConfig#partialFrameTimeoutMillis()}: a frame the peer has begun must be complete within the timeout
 * of its first byte, however often its bytes keep the idle timeout at bay; the clock is per frame, and time in which
 * our own output held reading back is not the peer's. The clock is the engine's own: the tests move it.
 */
class PartialFrameTimeoutTest {
    private static final long TIMEOUT = 10_000;
    private final AcceptorRecorder handler = new AcceptorRecorder();

    /** An open connection with a link on which the peer sends, the engine's answers taken. */
    private RawPeer attached(EngineConfig config) {
        RawPeer peer = new RawPeer(config, handler);
        peer.open();
        peer.begin(0, 0, 100);
        peer.attachSender(0, 0, "in", "/q", 0);
        peer.take();
        return peer;
    }

    /** The bytes of one transfer frame carrying a whole message with a body of {@code bodyBytes}. */
    private static byte[] transferFrame(RawPeer peer, int deliveryId, int bodyBytes, boolean settled) {
        peer.transfer(0, peer.transfer(0, deliveryId, settled), RawPeer.message("POST", bodyBytes));
        return peer.written();
    }

    private static void ingest(RawPeer peer, byte[] bytes, int from, int to) {
        peer.engine.ingest(bytes, from, to - from, peer.now);
    }

    private static String closeDescription(RawPeer peer) {
        Close close = peer.last(Close.class);
        RawPeer.assertCloseError(close, ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        return close.error().description().toString();
    }

    @Test
    void isThirtySecondsByDefaultAndNeverNegative() {
        assertEquals(30_000, new EngineConfig().partialFrameTimeoutMillis());
        assertEquals(0, new EngineConfig().partialFrameTimeoutMillis(0).partialFrameTimeoutMillis());
        assertThrows(IllegalArgumentException.class, () -> new EngineConfig().partialFrameTimeoutMillis(-1));
    }

    @Test
    void aPauseOfOursPastTheDeadlineIsExcusedOncePerFrame() {
        // A long GC or a suspended VM: the tick comes late, and the rest of the frame may lie unread in the socket.
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT).idleTimeoutMillis(0));
        byte[] frame = transferFrame(peer, 0, 60_000, true);
        ingest(peer, frame, 0, 1_000);
        peer.now += TIMEOUT + 5_000;
        assertTrue(peer.engine.partialFrameTimeoutPassed(peer.now), "the transport should read before it ticks");
        assertTrue(peer.engine.excusePause(peer.now, 2_000));
        assertFalse(peer.engine.partialFrameTimeoutPassed(peer.now));
        peer.advance(1_999);
        assertTrue(peer.engine.isOpen(), "the grace holds");
        assertFalse(peer.engine.excusePause(peer.now, 2_000), "once per frame");
        peer.advance(1);
        assertTrue(peer.engine.isDone(), "a peer that really stalled is still closed");
        closeDescription(peer);
    }

    @Test
    void theNextFrameMayBeExcusedAgain() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT).idleTimeoutMillis(0));
        byte[] first = transferFrame(peer, 0, 60_000, true);
        ingest(peer, first, 0, 1_000);
        peer.now += TIMEOUT;
        assertTrue(peer.engine.excusePause(peer.now, 2_000));
        byte[] second = transferFrame(peer, 1, 60_000, true);
        byte[] both = Arrays.copyOf(first, first.length + 1_000);
        System.arraycopy(second, 0, both, first.length, 1_000);
        ingest(peer, both, 1_000, both.length); // the first completes, the second begins
        assertEquals(1, handler.messages);
        peer.now += TIMEOUT;
        assertTrue(peer.engine.excusePause(peer.now, 2_000), "a new frame, a new excuse");
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void aFrameDribbledAByteAtATimeClosesTheConnectionAtItsDeadline() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT));
        byte[] frame = transferFrame(peer, 0, 60_000, true);
        long first = peer.now;
        ingest(peer, frame, 0, 1_000);
        assertEquals(first + KeptInput.PARK_AFTER_MILLIS, peer.advance(0),
                "tick asks to be called when the frame's bytes may leave the scratch");
        peer.now += KeptInput.PARK_AFTER_MILLIS;
        assertEquals(first + TIMEOUT, peer.advance(0), "then at the frame's deadline");
        assertTrue(peer.engine.releaseScratch(), "the frame's bytes are parked");
        int sent = 1_000;
        for (int i = 0; i < 8; i++) { // a byte a second: the idle timeout never comes near
            peer.now += 1_000;
            ingest(peer, frame, sent, ++sent);
        }
        peer.advance(TIMEOUT - 9_000 - 1);
        assertTrue(peer.engine.isOpen(), "a millisecond before the deadline");
        peer.advance(1);
        assertTrue(peer.engine.isDone());
        String description = closeDescription(peer);
        assertTrue(description.contains("1008 of its " + frame.length + " bytes"), description);
        assertTrue(description.contains(TIMEOUT + " ms"), description);
        RawPeer.assertError(handler.closedWith, ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertEquals(0, handler.messages);
    }

    @Test
    void aByteArrivingAfterTheDeadlineClosesTheConnectionBeforeAnyTick() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT));
        byte[] frame = transferFrame(peer, 0, 60_000, true);
        ingest(peer, frame, 0, 2);
        peer.now += TIMEOUT;
        ingest(peer, frame, 2, 3);
        peer.collect();
        assertTrue(peer.engine.isDone());
        String description = closeDescription(peer);
        assertTrue(description.contains("3 bytes (its size not yet among them)"), description);
    }

    @Test
    void aLargeFrameThatArrivesWithinTheTimeoutIsDelivered() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT));
        byte[] frame = transferFrame(peer, 0, 64 * 1024 - 200, true);
        int step = frame.length / 10 + 1;
        for (int from = 0; from < frame.length; from += step) { // over 9.9 s, ticked between reads
            ingest(peer, frame, from, Math.min(frame.length, from + step));
            peer.advance(from + step < frame.length ? 1_100 : 0);
        }
        assertTrue(peer.engine.isOpen());
        assertEquals(1, handler.messages);
        peer.advance(TIMEOUT * 5);
        assertTrue(peer.engine.isOpen(), "no frame is incomplete: only the idle timeout is left, 60 s");
    }

    @Test
    void framesBackToBackNeverTripItThoughEveryReadEndsInsideOne() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT));
        // 60 frames read 3,000 bytes a second, each read ending inside a frame: always a frame incomplete, for about
        // 120 s, but none for longer than 3 s.
        byte[][] frames = new byte[60][];
        int total = 0;
        for (int i = 0; i < frames.length; i++) {
            frames[i] = transferFrame(peer, i, 5_000, true);
            total += frames[i].length;
        }
        byte[] stream = new byte[total];
        int at = 0;
        for (byte[] f : frames) {
            System.arraycopy(f, 0, stream, at, f.length);
            at += f.length;
        }
        for (int from = 0; from < stream.length; from += 3_000) {
            ingest(peer, stream, from, Math.min(stream.length, from + 3_000));
            peer.advance(1_000);
            assertTrue(peer.engine.isOpen(), "at byte " + from);
        }
        assertEquals(frames.length, handler.messages);
    }

    @Test
    void timeOurOutputHeldReadingBackIsNotThePeers() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(TIMEOUT).maxPendingOutputBytes(1));
        byte[] whole = transferFrame(peer, 0, 100, false); // unsettled: the engine answers with a disposition
        byte[] large = transferFrame(peer, 1, 60_000, true);
        byte[] read = Arrays.copyOf(whole, whole.length + 1_000);
        System.arraycopy(large, 0, read, whole.length, 1_000);
        // One read brings a message and the start of a large frame; the answer fills the output (its bound is one
        // byte here), so a transport stops reading until it is written. The peer does not read: no flush.
        ingest(peer, read, 0, read.length);
        assertEquals(1, handler.messages);
        assertTrue(peer.engine.outputBytes() >= 1);
        long pausedAt = peer.now;
        long lastTick = pausedAt;
        while (lastTick < pausedAt + 4 * TIMEOUT) { // ticked whenever the engine asks, 40 s without reading
            long next = peer.engine.tick(lastTick);
            assertTrue(peer.engine.isOpen(), "at " + (lastTick - pausedAt) + " ms: reading was ours to pause");
            assertTrue(next > lastTick, "tick asks to be called later");
            lastTick = Math.min(next, lastTick + 3_000);
        }
        // The peer reads our answer 9 s after the last tick; the transport writes it and reads again at once.
        peer.now = lastTick + 9_000;
        peer.collect();
        ingest(peer, large, 1_000, 1_001);
        peer.advance(TIMEOUT - 1);
        assertTrue(peer.engine.isOpen(), "the frame's time started again when reading did");
        peer.advance(1);
        assertTrue(peer.engine.isDone(), "and runs out as for any frame");
        assertTrue(closeDescription(peer).contains("1001 of its " + large.length + " bytes"));
    }

    @Test
    void beforeOpenTheHandshakeDeadlineAppliesAlone() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().partialFrameTimeoutMillis(1_000).saslTimeoutMillis(5_000), handler);
        long start = peer.now;
        peer.header(ProtocolHeader.AMQP).frame(0, peer.p().open().clear().containerId("slow"));
        byte[] bytes = peer.written();
        ingest(peer, bytes, 0, bytes.length - 1);
        peer.advance(4_999);
        assertFalse(peer.engine.isDone(), "the open is late, but the handshake has until 5 s");
        peer.advance(1);
        assertTrue(peer.engine.isDone());
        assertEquals(start + 5_000, peer.now);
    }

    @Test
    void zeroTurnsItOff() {
        RawPeer peer = attached(RawPeer.noSasl().partialFrameTimeoutMillis(0).idleTimeoutMillis(0));
        byte[] frame = transferFrame(peer, 0, 1_000, true);
        ingest(peer, frame, 0, 100);
        assertEquals(Long.MAX_VALUE, peer.advance(3_600_000));
        ingest(peer, frame, 100, 101);
        assertTrue(peer.engine.isOpen());
    }
}
