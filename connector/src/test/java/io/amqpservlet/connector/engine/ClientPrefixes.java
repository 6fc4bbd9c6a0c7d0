package io.amqpservlet.connector.engine;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * Valid beginnings of a client's byte stream, for fuzz inputs that start after them: what our own initiator sends
 * to a {@link FuzzedEngineHandler#config() fuzzed acceptor} up to a given point (protocol headers, SASL, open,
 * begin, attach). The fuzzer then spends its bytes on frames and transfers instead of rediscovering the handshake.
 * Recorded once per JVM against a live acceptor, so they always match what the acceptor expects.
 */
final class ClientPrefixes {
    /** SASL ANONYMOUS and open: the connection is open, nothing else. */
    static final int OPENED = 0;
    /** ANONYMOUS, open, begin, a sender to {@code /echo}: the acceptor's receiving link has granted credit. */
    static final int REQUEST_LINK = 1;
    /** PLAIN, open, begin, a sender named {@code stream-...}: the acceptor's receiving link streams. */
    static final int STREAMING_LINK = 2;
    /** ANONYMOUS, open, begin, a receiver (the acceptor queues a reply on it) and a sender. */
    static final int BOTH_DIRECTIONS = 3;
    static final int COUNT = 4;

    private static final byte[][] PREFIXES = new byte[COUNT][];

    static {
        for (int i = 0; i < COUNT; i++) {
            PREFIXES[i] = record(i);
        }
    }

    private ClientPrefixes() {
    }

    /** The bytes of prefix {@code which} (one of the constants); a shared array, not to be modified. */
    static byte[] get(int which) {
        return PREFIXES[which];
    }

    private static byte[] record(int which) {
        EngineConfig clientConfig = new EngineConfig().role(EngineConfig.Role.INITIATOR).containerId("fuzz-client")
                .hostname("localhost").trace(false);
        if (which == STREAMING_LINK) {
            clientConfig.saslPlain(FuzzedEngineHandler.USER, FuzzedEngineHandler.PASSWORD);
        } else {
            clientConfig.saslAnonymous();
        }
        Engine client = new Engine(clientConfig, new EngineHandler() { });
        Engine server = new Engine(FuzzedEngineHandler.config(), new FuzzedEngineHandler());
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        long now = 1_000;
        server.start(now);
        client.start(now);
        pump(client, server, sent, now);
        if (which != OPENED) {
            Session session = client.beginSession();
            if (which == REQUEST_LINK) {
                session.attachSender("requests", "/echo");
            } else if (which == STREAMING_LINK) {
                session.attachSender("stream-uploads", "/upload");
            } else {
                session.attachReceiver("replies", "/replies");
                session.attachSender("requests", "/echo");
            }
            pump(client, server, sent, now);
        }
        if (!server.isOpen()) {
            throw new IllegalStateException("prefix " + which + " did not leave the acceptor open");
        }
        return sent.toByteArray();
    }

    private static void pump(Engine client, Engine server, ByteArrayOutputStream sent, long now) {
        boolean moved = true;
        for (int round = 0; moved; round++) {
            if (round > 1_000) {
                throw new IllegalStateException("the engines never went quiet");
            }
            moved = false;
            ByteBuffer out = client.beginFlush();
            if (out != null) {
                byte[] b = new byte[out.remaining()];
                out.get(b);
                client.endFlush();
                sent.writeBytes(b);
                server.ingest(b, 0, b.length, now);
                moved = true;
            }
            out = server.beginFlush();
            if (out != null) {
                client.ingest(out, now);
                server.endFlush();
                moved = true;
            }
        }
    }
}
