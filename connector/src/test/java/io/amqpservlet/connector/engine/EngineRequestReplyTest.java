package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our initiator against our acceptor, in memory: the request/reply paths the gateway serves. */
class EngineRequestReplyTest {
    private final EchoResponder server = new EchoResponder();
    private final ClientRecorder client = new ClientRecorder();

    private static EngineConfig serverConfig() {
        return new EngineConfig().containerId("server")
                .plainAuthenticator((z, u, p) -> "alice".equals(u) && "secret".equals(p) ? u : null);
    }

    private static EngineConfig clientConfig() {
        return new EngineConfig().containerId("client").hostname("localhost").saslPlain("alice", "secret");
    }

    static byte[] request(String id, String to, String replyTo, byte[] body) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId(id).to(to).subject("POST");
        if (replyTo != null) {
            m.replyTo(replyTo);
        }
        m.endProperties().data(body, 0, body.length).end();
        return w.toByteArray();
    }

    @Test
    void saslPlainThenRequestReplyOverADynamicReceiver() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        assertTrue(pair.client.isOpen());
        assertTrue(pair.server.isOpen());
        assertEquals("alice", pair.server.identity());

        Session session = pair.client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        String replyAddress = replies.source().address().toString();
        assertNotNull(replyAddress, "the server named the dynamic node in its attach");
        assertTrue(requests.canSend(), "the server granted credit");

        byte[] req = request("m-1", "/echo", replyAddress, "hello".getBytes());
        assertNotNull(requests.send(req, 0, req.length, false));
        pair.pump();

        assertEquals(1, server.requests);
        assertEquals(1, client.responses.size());
        assertEquals("200 m-1 5", client.responses.get(0));
        assertTrue(client.events.contains("outcome accepted settled"), client.events.toString());
        assertEquals(0, pair.server.incomingUnsettled, "the request delivery was settled");
    }

    @Test
    void multiFrameMessagesBothWaysWithSmallFramesAndWindows() {
        EngineConfig s = serverConfig().maxFrameSizeBytes(512).sessionIncomingWindowFrames(4);
        EngineConfig c = clientConfig().maxFrameSizeBytes(600).sessionIncomingWindowFrames(3);
        EnginePair pair = new EnginePair(c, client, s, server);
        pair.sliceBytes = 7; // frames arrive in ragged slices
        pair.pump();
        Session session = pair.client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        byte[] body = new byte[20_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i % 251);
        }
        byte[] req = request("big", "/echo", replies.source().address().toString(), body);
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(1, client.bodies.size());
        assertEquals(body.length, client.bodies.get(0).length);
        for (int i = 0; i < body.length; i++) {
            assertEquals(body[i], client.bodies.get(0)[i], "byte " + i);
        }
    }

    @Test
    void readsLargerThanAFrameAreTakenWhateverTheFramesSplitAt() {
        // A socket read often brings many frames and ends inside one; the next read must not need a buffer for
        // that partial frame plus the whole read (the engine's input buffer is capped at a frame).
        EngineConfig s = serverConfig().maxFrameSizeBytes(512).sessionIncomingWindowFrames(100);
        EngineConfig c = clientConfig().maxFrameSizeBytes(600).sessionIncomingWindowFrames(100);
        EnginePair pair = new EnginePair(c, client, s, server);
        pair.sliceBytes = 3001; // several frames per slice, and slices end mid-frame
        pair.pump();
        Session session = pair.client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        byte[] body = new byte[50_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i % 253);
        }
        byte[] req = request("big", "/echo", replies.source().address().toString(), body);
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(1, client.bodies.size());
        assertArrayEquals(body, client.bodies.get(0));
    }

    @Test
    void messagesWaitForCreditAndGoWhenItArrives() {
        server.autoCredit = 0;
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Session session = pair.client.beginSession();
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        assertFalse(requests.canSend());
        byte[] req = request("m", "/echo", null, new byte[10]);
        for (int i = 0; i < 3; i++) {
            assertNotNull(requests.send(req, 0, req.length, false));
        }
        pair.pump();
        assertEquals(3, requests.queued());
        assertEquals(0, server.requests);

        Link serverSide = server.links.get(0);
        serverSide.flow(2);
        pair.pump();
        assertEquals(2, server.requests);
        assertEquals(1, requests.queued());
        serverSide.flow(5);
        pair.pump();
        assertEquals(3, server.requests);
        assertEquals(0, requests.queued());
    }

    @Test
    void drainIsAnsweredWithAFlowWhenNothingIsSent() {
        server.autoCredit = 0;
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        pair.client.beginSession().attachSender("requests", "/echo");
        pair.pump();
        Link serverSide = server.links.get(0);
        serverSide.flow(10);
        serverSide.drain();
        pair.pump();
        assertEquals(0, serverSide.linkCredit(), "the sender used up the credit it could not use");
        assertEquals(10, serverSide.deliveryCount(), "delivery-count advanced by the drained credit");
    }

    @Test
    void presettledRequestsNeedNoDisposition() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Link requests = pair.client.beginSession().attachSender("requests", "/echo");
        pair.pump();
        byte[] req = request("p", "/echo", null, new byte[5]);
        for (int i = 0; i < 50; i++) {
            requests.send(req, 0, req.length, true);
        }
        pair.pump();
        assertEquals(50, server.requests);
        assertFalse(client.events.stream().anyMatch(e -> e.startsWith("outcome")), client.events.toString());
        assertEquals(0, pair.server.incomingUnsettled);
    }

    @Test
    void refusedLinkIsAttachedWithNullTerminusThenDetachedWithTheError() {
        server.refuseLinks = new io.amqpservlet.protocol.types.transport.ErrorCondition()
                .condition(ErrorConditions.NOT_FOUND).description("no such node");
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        pair.client.beginSession().attachSender("requests", "/nowhere");
        pair.pump();
        assertTrue(client.events.contains("attached requests target=null"), client.events.toString());
        assertTrue(client.events.contains("detached requests amqp:not-found: no such node"), client.events.toString());
    }

    @Test
    void temporaryQueueCreatedByADynamicTargetReceivesRepliesAndDiesWithItsCreator() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Session session = pair.client.beginSession();
        // Qpid JMS createTemporaryQueue: a sending link whose target is dynamic, capability temporary-queue.
        Link creator = session.attachTemporaryQueue("temp-creator");
        pair.pump();
        String queue = creator.target().address().toString();
        assertNotNull(queue, "the server named the temporary queue");
        Link consumer = session.attachReceiver("temp-consumer", queue);
        consumer.autoCredit(5);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        byte[] req = request("q", "/echo", queue, new byte[3]);
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(1, client.responses.size(), client.events.toString());

        // Deleting the queue's creator deletes the queue: its consumer is detached and replies have nowhere to go.
        creator.detach(null, null);
        pair.pump();
        assertTrue(client.events.stream().anyMatch(e -> e.startsWith("detached temp-consumer amqp:resource-deleted")),
                client.events.toString());
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertTrue(client.events.contains("outcome rejected settled"), client.events.toString());
    }

    @Test
    void aNamedReceiverSourceIsAReplyAddress() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Session session = pair.client.beginSession();
        Link replies = session.attachReceiver("replies", "my-replies");
        replies.autoCredit(5);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        byte[] req = request("q", "/echo", "my-replies", new byte[3]);
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertEquals(1, client.responses.size(), client.events.toString());
    }

    @Test
    void saslExternalUsesTheTransportIdentity() {
        EngineConfig s = new EngineConfig().containerId("server");
        Engine serverEngine = new Engine(s.role(EngineConfig.Role.ACCEPTOR), server, "CN=client,O=Example");
        EngineConfig c = new EngineConfig().containerId("client").role(EngineConfig.Role.INITIATOR);
        c.saslRequired(true);
        Engine clientEngine = new Engine(c.saslExternal(), client);
        serverEngine.start(0);
        clientEngine.start(0);
        for (int i = 0; i < 10; i++) {
            java.nio.ByteBuffer out = clientEngine.beginFlush();
            if (out != null) {
                serverEngine.ingest(out, 0);
                clientEngine.endFlush();
            }
            out = serverEngine.beginFlush();
            if (out != null) {
                clientEngine.ingest(out, 0);
                serverEngine.endFlush();
            }
        }
        assertTrue(serverEngine.isOpen());
        assertEquals("CN=client,O=Example", serverEngine.identity());
        assertEquals("CN=client,O=Example", server.identity);
    }

    @Test
    void replyToAnUnknownAddressIsRejectedByTheApplication() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Link requests = pair.client.beginSession().attachSender("requests", "/echo");
        pair.pump();
        byte[] req = request("x", "/echo", "nobody-listens", new byte[3]);
        requests.send(req, 0, req.length, false);
        pair.pump();
        assertTrue(client.events.contains("outcome rejected settled"), client.events.toString());
    }

}
