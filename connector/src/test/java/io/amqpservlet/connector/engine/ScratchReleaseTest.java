package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

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

    @Test
    void aFrameHalfReadThatWaitsASecondLeavesTheScratchHoldingOnlyItsBytes() {
        EnginePair pair = new EnginePair(clientConfig(), client, serverConfig(), server);
        pair.pump();
        Session session = pair.client.beginSession();
        Link replies = session.attachDynamicReceiver("replies");
        replies.autoCredit(10);
        Link requests = session.attachSender("requests", "/echo");
        pair.pump();
        String replyAddress = replies.source().address().toString();
        byte[] body = new byte[10_000]; // a frame larger than the kept buffer's first 4 KiB
        Arrays.fill(body, (byte) 'x');
        byte[] req = EngineRequestReplyTest.request("big", "/echo", replyAddress, body);
        assertNotNull(requests.send(req, 0, req.length, false));
        ByteBuffer out = pair.client.beginFlush();
        byte[] frame = new byte[out.remaining()];
        out.get(frame);
        pair.client.endFlush();
        assertTrue(pair.server.releaseScratch());
        assertEquals(0, pair.server.partialFrameBytes());

        int half = frame.length / 2;
        pair.server.ingest(frame, 0, half, pair.now);
        assertFalse(pair.server.releaseScratch(), "a frame is half read, its bytes came just now");
        int inScratch = pair.server.partialFrameBytes();
        assertTrue(inScratch > 16 * 1024, "the scratch the frame holds counts: " + inScratch);
        long parkAt = pair.server.tick(pair.now);
        assertEquals(pair.now + KeptInput.PARK_AFTER_MILLIS, parkAt, "the engine asks to be called when it may park");

        pair.now += KeptInput.PARK_AFTER_MILLIS - 1;
        pair.server.tick(pair.now);
        assertFalse(pair.server.releaseScratch(), "not yet a second without a byte");
        pair.now += 1;
        assertTrue(pair.server.tick(pair.now) > pair.now, "due now: no call needed before the release");
        assertTrue(pair.server.releaseScratch(), "a second without a byte: the frame's bytes leave the scratch");
        assertFalse(pair.server.holdsScratch());
        assertEquals(half, pair.server.partialFrameBytes(), "only the bytes sent are held now");

        pair.now += 10;
        int more = 1_000;
        pair.server.ingest(frame, half, more, pair.now);
        assertTrue(pair.server.holdsScratch(), "the parked bytes are put back in the scratch with the new ones");
        assertFalse(pair.server.releaseScratch(), "a byte came just now");
        pair.server.parkPartialFrame();
        assertTrue(pair.server.releaseScratch(), "a transport that will not read for a while parks it at once");
        assertEquals(half + more, pair.server.partialFrameBytes());

        pair.server.ingest(frame, half + more, frame.length - half - more, pair.now);
        assertEquals(0, pair.server.partialFrameBytes());
        pair.pump();
        assertEquals(1, server.requests, "the parked frame was put back and the request read whole");
        assertEquals(1, client.responses.size());
    }
}
