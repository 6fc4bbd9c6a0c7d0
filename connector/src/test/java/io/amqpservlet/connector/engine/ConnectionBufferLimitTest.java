package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/design.md §5, buffered replies per connection: messages queued on all of a connection's sending links while the
 * peer grants no credit are bounded in bytes ({@link EngineConfig#maxBufferedBytesPerConnection()}), so a peer
 * that opens many reply links cannot multiply the per-link limit.
 */
@Timeout(10)
class ConnectionBufferLimitTest {
    private static final int LIMIT = 1_000;
    private final AcceptorRecorder server = new AcceptorRecorder();
    private final ClientRecorder client = new ClientRecorder();

    /** A client with {@code links} receiving links that grant no credit, attached to a server with the limit. */
    private EnginePair pair(int links, Link[] clientLinks) {
        EngineConfig s = new EngineConfig().containerId("server").saslRequired(false)
                .maxBufferedBytesPerConnection(LIMIT);
        EngineConfig c = new EngineConfig().containerId("client").saslRequired(false);
        EnginePair pair = new EnginePair(c, client, s, server);
        pair.pump();
        Session session = pair.client.beginSession();
        for (int i = 0; i < links; i++) {
            clientLinks[i] = session.attachReceiver("replies-" + i, "/replies/" + i);
        }
        pair.pump();
        return pair;
    }

    /** A message of exactly {@code bytes} bytes: one data section (AMQP 1.0 §3.2.6). */
    private static byte[] message(int bytes) {
        AmqpWriter w = new AmqpWriter();
        // Descriptor 0x00 0x53 0x75, then vbin8 (0xa0, 1-byte size) or vbin32 (0xb0, 4-byte size).
        int overhead = bytes - 5 <= 255 ? 5 : 8;
        byte[] body = new byte[bytes - overhead];
        Arrays.fill(body, (byte) 'x');
        new MessageWriter().wrap(w).data(body, 0, body.length).end();
        byte[] m = w.toByteArray();
        assertEquals(bytes, m.length, "a data section of " + body.length + " bytes");
        return m;
    }

    @Test
    void sendsOnOtherLinksAreRefusedOnceTheConnectionBuffersItsLimitThenCreditMakesRoom() {
        Link[] receivers = new Link[3];
        EnginePair pair = pair(3, receivers);
        Link a = server.link("replies-0");
        Link b = server.link("replies-1");
        Link c = server.link("replies-2");
        byte[] m = message(300);
        for (int i = 0; i < 3; i++) {
            assertNotNull(a.send(m, 0, m.length, false), "message " + i + " fits in the connection's buffer");
        }
        assertEquals(900, pair.server.queuedBytes());
        assertNull(a.send(m, 0, m.length, false), "a fourth would take the connection past 1,000 bytes");
        assertNull(b.send(m, 0, m.length, false), "another link of the connection is refused too");
        assertNull(c.beginMessage(m, 0, m.length, false), "so is a streamed message");
        assertEquals(3, a.queued());
        assertEquals(0, b.queued());
        assertEquals(0, c.queued());

        receivers[0].flow(2); // the client takes two: 600 bytes leave the buffer
        pair.pump();
        assertEquals(2, client.bodies.size(), "two replies arrived");
        assertEquals(300, pair.server.queuedBytes());
        assertNotNull(b.send(m, 0, m.length, false), "room again");
        assertNotNull(c.send(m, 0, m.length, false));
        assertEquals(900, pair.server.queuedBytes());
        assertNull(c.send(m, 0, m.length, false));
    }

    @Test
    void aSingleMessageLargerThanTheLimitMayStillWaitAlone() {
        Link[] receivers = new Link[2];
        EnginePair pair = pair(2, receivers);
        byte[] big = message(LIMIT * 3);
        assertNotNull(server.link("replies-0").send(big, 0, big.length, false), "nothing else is queued");
        byte[] small = message(20);
        assertNull(server.link("replies-1").send(small, 0, small.length, false), "but nothing may join it");
        receivers[0].flow(1);
        pair.pump();
        assertEquals(0, pair.server.queuedBytes(), "sent and forgotten");
        assertNotNull(server.link("replies-1").send(small, 0, small.length, false));
    }

    @Test
    void bytesAppendedToAnOpenMessageCountAgainstTheConnection() {
        Link[] receivers = new Link[2];
        EnginePair pair = pair(2, receivers);
        Link streamed = server.link("replies-0");
        byte[] whole = message(1_200);
        Delivery d = streamed.beginMessage(whole, 0, 400, false);
        assertNotNull(d);
        assertTrue(streamed.appendMessage(d, whole, 400, 400), "appends are counted, never refused");
        assertTrue(streamed.appendMessage(d, whole, 800, 400));
        assertEquals(1_200, pair.server.queuedBytes());
        byte[] m = message(20);
        assertNull(server.link("replies-1").send(m, 0, m.length, false), "the open message fills the connection");

        receivers[0].flow(1); // the open message's bytes go out as frames; its end comes later
        pair.pump();
        assertEquals(0, pair.server.queuedBytes());
        assertEquals(0, streamed.unsentBytes(d));
        assertNotNull(server.link("replies-1").send(m, 0, m.length, false), "the sent bytes no longer count");
        streamed.endMessage(d);
        pair.pump();
        assertEquals(1, client.bodies.size(), "the streamed message arrived whole");
        assertEquals(1_200 - 8, client.bodies.get(0).length);
        assertEquals(20, pair.server.queuedBytes(), "only the message waiting for credit on the other link");
    }
}
