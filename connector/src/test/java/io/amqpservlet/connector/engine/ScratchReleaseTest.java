package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine holds its scratch (decoder, performatives, output buffers, kept input) only while it works
 * (docs/design.md §2): given back when nothing is in progress, kept while output waits or a frame is half read, and
 * taken again, working as before, by the next frame.
 */
class ScratchReleaseTest {
    private final EchoResponder server = new EchoResponder();
    private final ClientRecorder client = new ClientRecorder();

    private static EngineConfig serverConfig() {
        return new EngineConfig().containerId("server").anonymousAllowed(true);
    }

    private static EngineConfig clientConfig() {
        return new EngineConfig().containerId("client").hostname("localhost").saslAnonymous();
    }

    @Test
    void idleEngineGivesItsScratchBackAndTakesItAgainForTheNextRequest() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Session session = pair.client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        assertTrue(pair.server.holdsScratch());
        assertTrue(pair.server.releaseScratch(), "nothing in progress: the scratch goes back");
        assertFalse(pair.server.holdsScratch());

        String replyAddress = replies.source().address().toString();
        for (int i = 0; i < 3; i++) {
            byte[] req = EngineRequestReplyTest.request("m-" + i, "/echo", replyAddress, "hello".getBytes());
            assertNotNull(requests.send(req, 0, req.length, false));
            pair.pump();
            assertTrue(pair.server.releaseScratch());
            pair.server.trimIdle();
        }
        assertEquals(3, server.requests);
        assertEquals(3, client.responses.size(), "every reply arrived across the releases and trims");
    }

    @Test
    void engineKeepsItsScratchWhileOutputWaitsOrAFrameIsHalfRead() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        pair.client.beginSession();
        ByteBuffer begin = pair.client.beginFlush();
        assertFalse(pair.client.releaseScratch(), "output waits to be written");
        byte[] bytes = new byte[begin.remaining()];
        begin.get(bytes);
        pair.client.endFlush();
        assertTrue(pair.client.releaseScratch());

        pair.server.ingest(bytes, 0, bytes.length - 1, pair.now);
        assertFalse(pair.server.releaseScratch(), "a frame is half read");
        pair.server.ingest(bytes, bytes.length - 1, 1, pair.now);
        ByteBuffer answer = pair.server.beginFlush();
        assertNotNull(answer, "the begin was read whole and answered");
        assertFalse(pair.server.releaseScratch(), "the answer waits to be written");
        answer.position(answer.limit());
        pair.server.endFlush();
        assertTrue(pair.server.releaseScratch());
    }
}
