package io.amqpservlet.connector.engine;

import java.nio.ByteBuffer;

/**
 * Two engines joined in memory: whatever one writes, the other ingests, until both are quiet. A test's stand-in for
 * a socket, with a clock the test moves.
 */
final class EnginePair {
    final Engine client;
    final Engine server;
    long now = 1_000;
    /** Largest slice handed to ingest at once, to exercise frames split across reads. */
    int sliceBytes = Integer.MAX_VALUE;
    long bytesToServer;
    long bytesToClient;

    EnginePair(EngineConfig clientConfig, EngineHandler clientHandler, EngineConfig serverConfig,
               EngineHandler serverHandler) {
        client = new Engine(clientConfig.role(EngineConfig.Role.INITIATOR), clientHandler);
        server = new Engine(serverConfig.role(EngineConfig.Role.ACCEPTOR), serverHandler);
        server.start(now);
        client.start(now);
    }

    /** Moves bytes both ways until neither engine has output; returns how many rounds it took. */
    int pump() {
        int rounds = 0;
        boolean moved = true;
        while (moved) {
            moved = move(client, server, true) | move(server, client, false);
            if (moved) {
                rounds++;
            }
            if (rounds > 100_000) {
                throw new IllegalStateException("engines never went quiet");
            }
        }
        return rounds;
    }

    private boolean move(Engine from, Engine to, boolean toServer) {
        ByteBuffer out = from.beginFlush();
        if (out == null) {
            return false;
        }
        int n = out.remaining();
        if (toServer) {
            bytesToServer += n;
        } else {
            bytesToClient += n;
        }
        if (to.isDone()) {
            out.position(out.limit()); // nobody reads: the socket would be closed
        }
        while (out.hasRemaining()) {
            int slice = Math.min(out.remaining(), sliceBytes);
            to.ingest(out.array(), out.arrayOffset() + out.position(), slice, now);
            out.position(out.position() + slice);
        }
        from.endFlush();
        return true;
    }

    /** Advances the clock and lets both engines see it. */
    void advance(long millis) {
        now += millis;
        client.tick(now);
        server.tick(now);
    }
}
