package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Idle time-out (AMQP 1.0 §2.4.5): ours enforced and advertised at half, the peer's kept with heartbeats. */
class IdleTimeoutConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    @Test
    void ourOpenAdvertisesHalfTheRealThreshold() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(10_000), handler);
        peer.open();
        Open open = peer.last(Open.class);
        assertTrue(open.hasIdleTimeOut());
        assertEquals(5_000, open.idleTimeOutMillis());
    }

    /**
     * The longest timeout a configuration takes is about 49 days ({@link EngineConfig#MAX_TIMEOUT_MILLIS}): half of
     * the idle timeout goes in the open as a uint. Longer is refused where it is set, not by a failure at each
     * client's open (a Long.MAX_VALUE idle timeout used to throw there).
     */
    @Test
    void theLongestTimeoutsWorkAndLongerOnesAreRefusedWhereTheyAreSet() {
        long max = EngineConfig.MAX_TIMEOUT_MILLIS;
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(max).saslTimeoutMillis(max)
                .partialFrameTimeoutMillis(max).minPeerIdleTimeoutMillis(max), handler);
        peer.open();
        assertEquals(max / 2, peer.last(Open.class).idleTimeOutMillis());
        peer.advance(30L * 24 * 3600 * 1000);
        assertTrue(peer.engine.isOpen(), "open after 30 days of silence");
        for (java.util.function.LongConsumer set : java.util.List.<java.util.function.LongConsumer>of(
                ms -> new EngineConfig().idleTimeoutMillis(ms), ms -> new EngineConfig().saslTimeoutMillis(ms),
                ms -> new EngineConfig().partialFrameTimeoutMillis(ms),
                ms -> new EngineConfig().minPeerIdleTimeoutMillis(ms))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> set.accept(max + 1));
            assertTrue(e.getMessage().contains("at most " + max), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> set.accept(Long.MAX_VALUE));
        }
    }

    @Test
    void noIdleTimeoutIsAdvertisedWhenItIsDisabled() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler);
        peer.open();
        assertFalse(peer.last(Open.class).hasIdleTimeOut());
        peer.advance(10_000_000);
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void silencePastTheThresholdClosesWithResourceLimitExceeded() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(10_000), handler);
        peer.open();
        long next = peer.advance(9_999);
        assertTrue(peer.engine.isOpen());
        assertEquals(peer.now + 1, next, "tick asks to be called at the deadline");
        assertTrue(peer.take().isEmpty(), "the peer sent no idle-time-out: no heartbeats from us");
        peer.advance(1);
        RawPeer.assertCloseError(peer.next(Close.class), ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertTrue(peer.engine.isDone());
        assertTrue(handler.closed);
    }

    @Test
    void anyInputEvenAHeartbeatRestartsTheIdleClock() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(10_000), handler);
        peer.open();
        for (int i = 0; i < 5; i++) {
            peer.advance(9_000);
            peer.heartbeat().flush();
        }
        peer.advance(9_999);
        assertTrue(peer.engine.isOpen());
        peer.advance(1);
        assertTrue(peer.engine.isDone());
    }

    @Test
    void idleTimeoutPassedSaysWhatTheNextTickWouldDoSoTheTransportCanReadFirst() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(10_000), handler);
        peer.open();
        long opened = peer.now;
        assertFalse(peer.engine.idleTimeoutPassed(opened + 9_999));
        assertTrue(peer.engine.idleTimeoutPassed(opened + 30_000), "a pause of 30 s");
        // What the transport reads then (the heartbeats of the pause) restarts the clock before the tick.
        peer.now = opened + 30_000;
        peer.heartbeat().flush();
        assertFalse(peer.engine.idleTimeoutPassed(peer.now));
        peer.advance(0);
        assertTrue(peer.engine.isOpen());
        assertTrue(peer.engine.idleTimeoutPassed(peer.now + 10_000));
        peer.advance(10_000);
        assertTrue(peer.engine.isDone(), "the tick closed it, as said");
        assertFalse(peer.engine.idleTimeoutPassed(peer.now), "nothing to read for once it is done");
        assertFalse(new RawPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler).engine.idleTimeoutPassed(
                Long.MAX_VALUE / 2), "no idle timeout");
    }

    @Test
    void aPauseOfOursIsExcusedOncePerSilenceForTheGraceGiven() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(10_000), handler);
        peer.open();
        long opened = peer.now;
        assertFalse(peer.engine.excusePause(opened + 5_000, 1_000), "nothing to excuse before the idle timeout");
        peer.now = opened + 30_000; // a pause: the tick due at 10 s comes at 30 s
        assertTrue(peer.engine.excusePause(peer.now, 1_000));
        assertFalse(peer.engine.idleTimeoutPassed(peer.now));
        assertEquals(peer.now + 1_000, peer.advance(0), "the next tick at the end of the grace");
        assertTrue(peer.engine.isOpen());
        assertFalse(peer.engine.excusePause(peer.now + 1_000, 1_000), "once per silence");
        peer.advance(1_000);
        assertTrue(peer.engine.isDone(), "nothing came in the grace: closed");

        RawPeer live = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(10_000), handler);
        live.open();
        live.now += 30_000;
        assertTrue(live.engine.excusePause(live.now, 20_000));
        assertEquals(live.now + 10_000, live.advance(0), "a grace of at most the idle timeout");
        live.heartbeat().flush(); // what the pause left in the socket arrives in the grace
        live.now += 30_000; // and another pause: a new silence, excused again
        assertTrue(live.engine.excusePause(live.now, 1_000));
        live.advance(0);
        assertTrue(live.engine.isOpen());
    }

    @Test
    void weSendHeartbeatsAtHalfThePeersIdleTimeout() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler);
        peer.open(peer.p().open().clear().containerId("sleepy").idleTimeOutMillis(4_000));
        peer.take();
        peer.advance(1_999);
        assertTrue(peer.take().isEmpty(), "nothing before half the peer's idle-time-out");
        peer.advance(1);
        var frames = peer.take();
        assertEquals(1, frames.size());
        assertTrue(frames.get(0).isEmpty(), "an empty frame: " + frames);
        peer.advance(1_999);
        assertTrue(peer.take().isEmpty());
        peer.advance(1);
        assertEquals(1, peer.take().size());
    }

    /** A peer whose idle-time-out would have us send empty frames every half millisecond is answered and closed. */
    @Test
    void anIdleTimeoutBelowTheShortestWeKeepIsRefusedWithResourceLimitExceeded() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler);
        peer.open(peer.p().open().clear().containerId("hasty").idleTimeOutMillis(1));
        Close close = peer.next(Close.class);
        RawPeer.assertCloseError(close, ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertTrue(close.error().description().toString().contains("idle-time-out 1 ms"), close.toString());
        peer.advance(1_000);
        assertTrue(peer.take().isEmpty(), "no heartbeat for a peer we closed");

        long shortest = new EngineConfig().minPeerIdleTimeoutMillis();
        RawPeer kept = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler);
        kept.open(kept.p().open().clear().containerId("brisk").idleTimeOutMillis(shortest));
        assertTrue(kept.engine.isOpen(), "the shortest idle-time-out we keep is kept");
        kept.take();
        kept.advance(shortest / 2);
        assertEquals(1, kept.take().size(), "a heartbeat at half of it");
    }

    @Test
    void otherOutputPostponesTheHeartbeat() {
        RawPeer peer = new RawPeer(RawPeer.noSasl().idleTimeoutMillis(0), handler);
        peer.open(peer.p().open().clear().containerId("sleepy").idleTimeOutMillis(4_000));
        peer.advance(1_500);
        peer.begin(0, 0, 100); // our begin is output at t+1500
        peer.advance(1_000);
        assertTrue(peer.take().isEmpty(), "a frame 1,000 ms ago is recent enough");
        peer.advance(1_000);
        assertTrue(peer.take().get(0).isEmpty());
    }
}
