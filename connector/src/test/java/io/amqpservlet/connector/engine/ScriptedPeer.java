package io.amqpservlet.connector.engine;

import org.apache.qpid.protonj2.test.driver.ProtonTestConnector;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The protonj2 test driver (a scripted AMQP peer) joined to one of our engines in memory, both directions queued
 * so neither side is re-entered: the driver's output is fed to {@link Engine#ingest}, the engine's output
 * ({@link Engine#beginFlush()}) to the driver, until both are quiet. Script the driver through {@link #peer}, then
 * call {@link #pump()}.
 */
final class ScriptedPeer implements AutoCloseable {
    final Engine engine;
    final ProtonTestConnector peer;
    long now = 1_000;
    private final ArrayDeque<byte[]> toEngine = new ArrayDeque<>();

    ScriptedPeer(EngineConfig config, EngineHandler handler) {
        engine = new Engine(config, handler);
        peer = new ProtonTestConnector(this::fromDriver);
        engine.start(now);
    }

    private void fromDriver(ByteBuffer b) {
        byte[] copy = new byte[b.remaining()];
        b.get(copy);
        toEngine.add(copy);
    }

    /** Moves bytes both ways until neither side has anything more to say. */
    ScriptedPeer pump() {
        for (int rounds = 0; rounds < 100_000; rounds++) {
            boolean moved = false;
            while (!toEngine.isEmpty()) {
                byte[] b = toEngine.poll();
                if (!engine.isDone()) {
                    engine.ingest(b, 0, b.length, now);
                }
                moved = true;
            }
            ByteBuffer out = engine.beginFlush();
            if (out != null) {
                ByteBuffer copy = ByteBuffer.allocate(out.remaining());
                copy.put(out).flip();
                engine.endFlush();
                peer.accept(copy);
                moved = true;
            }
            if (!moved) {
                return this;
            }
        }
        throw new IllegalStateException("the engine and the driver never went quiet");
    }

    /** Advances the clock, ticks the engine and moves whatever that produced. */
    ScriptedPeer advance(long millis) {
        now += millis;
        engine.tick(now);
        return pump();
    }

    /** Pumps, then fails the test if the driver's script is not complete or saw something unexpected. */
    void complete() {
        pump();
        peer.waitForScriptToComplete(1, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        peer.close();
    }
}
