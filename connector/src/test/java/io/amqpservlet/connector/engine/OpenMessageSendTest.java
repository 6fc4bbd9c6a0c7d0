package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message sent in parts as its bytes become known (Link.beginMessage / appendMessage / endMessage): one delivery
 * of many transfers, within credit, session window and frame size, that the receiver reads whole; an abort.
 */
class OpenMessageSendTest {

    /** Receives whole messages (the engine assembles the transfers) and records aborts. */
    static final class Receiver implements EngineHandler {
        final List<byte[]> messages = new ArrayList<>();
        int aborted;
        int credit = 10;

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.autoCredit(credit);
            }
            return null;
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            messages.add(Arrays.copyOfRange(message.buffer(), message.offset(), message.offset() + message.length()));
            link.session().engine().accept(delivery);
        }

        @Override
        public void onMessageAborted(Link link, Delivery delivery) {
            aborted++;
        }
    }

    /** Counts onSendable calls on the sending side. */
    static final class Sender extends ClientRecorder {
        int sendable;

        @Override
        public void onSendable(Link link) {
            sendable++;
        }
    }

    private final Receiver server = new Receiver();
    private final Sender client = new Sender();

    private EnginePair pair(int serverWindowFrames) {
        EngineConfig s = new EngineConfig().containerId("server").saslRequired(false).maxFrameSizeBytes(512)
                .sessionIncomingWindowFrames(serverWindowFrames);
        EngineConfig c = new EngineConfig().containerId("client").saslRequired(false).maxFrameSizeBytes(512);
        EnginePair pair = new EnginePair(c, client, s, server);
        pair.pump();
        return pair;
    }

    /** A message: properties, then one data section of {@code bodyLength} bytes, as head + body parts. */
    private static byte[][] message(int bodyLength) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("m").subject("200").endProperties();
        byte[] body = new byte[bodyLength];
        for (int i = 0; i < bodyLength; i++) {
            body[i] = (byte) (i * 13 + 1);
        }
        m.data(body, 0, bodyLength).end();
        byte[] whole = w.toByteArray();
        int head = whole.length - bodyLength;
        return new byte[][] {whole, Arrays.copyOf(whole, head), body};
    }

    @Test
    void partsGoAsOneDeliveryThatTheReceiverReadsWhole() {
        EnginePair pair = pair(64);
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[][] m = message(5_000);
        Delivery d = link.beginMessage(m[1], 0, m[1].length, false);
        assertNotNull(d);
        pair.pump();
        assertEquals(0, server.messages.size(), "not complete yet");
        for (int at = 0; at < 5_000; at += 700) {
            int n = Math.min(700, 5_000 - at);
            assertTrue(link.appendMessage(d, m[2], at, n));
            pair.pump();
            assertEquals(0, server.messages.size());
        }
        link.endMessage(d);
        pair.pump();
        assertEquals(1, server.messages.size());
        assertArrayEquals(m[0], server.messages.get(0));
        assertTrue(client.events.contains("outcome accepted settled"), client.events.toString());
        assertFalse(link.appendMessage(d, m[2], 0, 1), "ended: no longer open");
    }

    @Test
    void anEndAfterEveryByteWentOutSendsAnEmptyLastTransfer() {
        EnginePair pair = pair(64);
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[][] m = message(100);
        Delivery d = link.beginMessage(m[1], 0, m[1].length, false);
        link.appendMessage(d, m[2], 0, 100);
        pair.pump();
        assertEquals(0, link.unsentBytes(d));
        assertEquals(0, server.messages.size());
        link.endMessage(d);
        pair.pump();
        assertArrayEquals(m[0], server.messages.get(0));
    }

    @Test
    void theSessionWindowHoldsBytesBackAndOnSendableSaysWhenTheyMoved() {
        EnginePair pair = pair(4);
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[][] m = message(50_000);
        Delivery d = link.beginMessage(m[1], 0, m[1].length, false);
        link.appendMessage(d, m[2], 0, 50_000);
        assertTrue(link.unsentBytes(d) > 40_000, "four frames at most before the peer's flow: " + link.unsentBytes(d));
        int before = client.sendable;
        pair.pump();
        assertEquals(0, link.unsentBytes(d));
        assertTrue(client.sendable > before);
        link.endMessage(d);
        pair.pump();
        assertArrayEquals(m[0], server.messages.get(0));
    }

    @Test
    void messagesSentMeanwhileWaitBehindTheOpenOne() {
        EnginePair pair = pair(64);
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[][] open = message(1_000);
        byte[][] small = message(10);
        Delivery d = link.beginMessage(open[1], 0, open[1].length, false);
        assertThrows(IllegalStateException.class, () -> link.beginMessage(open[1], 0, 1, false));
        assertNotNull(link.send(small[0], 0, small[0].length, false));
        link.appendMessage(d, open[2], 0, 1_000);
        pair.pump();
        assertEquals(0, server.messages.size(), "the small message waits for the open one to end");
        link.endMessage(d);
        pair.pump();
        assertEquals(2, server.messages.size());
        assertArrayEquals(open[0], server.messages.get(0));
        assertArrayEquals(small[0], server.messages.get(1));
    }

    @Test
    void abortAfterSomeFramesIsSeenAsAnAbortAndTheLinkGoesOn() {
        EnginePair pair = pair(64);
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[][] m = message(3_000);
        Delivery d = link.beginMessage(m[1], 0, m[1].length, false);
        link.appendMessage(d, m[2], 0, 2_000);
        pair.pump();
        link.abortMessage(d);
        pair.pump();
        assertEquals(1, server.aborted);
        assertEquals(0, server.messages.size());
        byte[][] next = message(10);
        link.send(next[0], 0, next[0].length, false);
        pair.pump();
        assertEquals(1, server.messages.size());
    }

    @Test
    void abortBeforeAnythingWentOutIsNeverSeen() {
        server.credit = 0;
        EnginePair pair = pair(64);
        Link link = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[][] m = message(3_000);
        Delivery d = link.beginMessage(m[1], 0, m[1].length, false);
        link.appendMessage(d, m[2], 0, 3_000);
        pair.pump();
        link.abortMessage(d);
        assertEquals(0, link.queued());
        pair.pump();
        assertEquals(0, server.aborted);
    }
}
