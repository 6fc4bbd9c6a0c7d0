package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.connector.engine.Engine;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seeds of {@link AttachedLinksFuzzTest}: conversations of a {@link BrokerConversation} broker with an attachment,
 * recorded as the broker sent them. Each recording, replayed in one read into a new attachment, must serve the same
 * requests again, or it would seed the fuzzer with a conversation the attachment does not hold.
 *
 * <p>With {@code -Dfuzz.seeds.write=true} the recordings are written into
 * {@code AttachedLinksFuzzTestInputs/<method>/} (docs/fuzzing.md): the whole stream for the target from the first
 * byte, the prefix's number and the bytes after it for the target after a handshake.
 */
class BrokerSeedRecordingTest {
    private static final String INPUTS =
            "src/test/resources/io/amqpservlet/jetty/internal/attach/AttachedLinksFuzzTestInputs/";

    @Test
    void requestsThroughTheRelayAreAnsweredWhenReplayed() throws IOException {
        BrokerConversation c = new BrokerConversation(true, true)
                .request(0, "POST", "/echo", "/replies/a", "hello")
                .request(0, "PUT", "/items/1", null, "one-way")
                .request(1, "GET", null, "/replies/b", "");
        assertEquals(2, c.attachment.responses);
        c.close();
        FuzzedAttachment replayed = replay(true, c.recorded());
        assertEquals(3, replayed.requests, "every request arrives");
        assertEquals(2, replayed.responses, "the two with a reply-to are answered on the relay");
        seed("attachmentTakesAnyBytesFromTheFirstByte/broker-relay", c.recorded());
    }

    @Test
    void requestsToThreeReplyAddressesWithoutARelayAreAnsweredWhenReplayed() throws IOException {
        BrokerConversation c = new BrokerConversation(true, false)
                .request(0, "POST", "/echo", "/replies/a", "hello")
                .request(1, "DELETE", "/items/2", "/replies/b", "")
                .request(0, "GET", "/echo", "/replies/c", ""); // a third reply address: the least recently used goes
        c.close();
        FuzzedAttachment replayed = replay(true, c.recorded());
        assertEquals(3, replayed.requests);
        assertEquals(3, replayed.responses, "each on a sender of its reply address");
        seed("attachmentTakesAnyBytesFromTheFirstByte/broker-no-relay", c.recorded());
    }

    @Test
    void everyPrefixLeavesTheAttachmentAttached() throws IOException {
        for (int which = 0; which < BrokerPrefixes.COUNT; which++) {
            FuzzedAttachment replayed = replay(BrokerPrefixes.plain(which), BrokerPrefixes.get(which));
            assertEquals(AttachmentState.ATTACHED, replayed.reconnection.state(), "prefix " + which);
        }
    }

    @Test
    void conversationsAfterEachPrefixAreServedWhenReplayed() throws IOException {
        BrokerConversation c = BrokerPrefixes.conversation(BrokerPrefixes.ATTACHED);
        c.request(0, "POST", "/echo", "/replies/a", "hello").settleResponses(true)
                .request(1, "PATCH", "/items/3", "/replies/a", "x").settleResponses(false);
        afterPrefix(BrokerPrefixes.ATTACHED, c, 2, "relay-accepted-and-released");

        c = BrokerPrefixes.conversation(BrokerPrefixes.ATTACHED_WITHOUT_RELAY);
        c.request(0, "POST", "/echo", "/replies/a", "hello").request(1, "GET", null, "/replies/b", "")
                .settleResponses(true);
        afterPrefix(BrokerPrefixes.ATTACHED_WITHOUT_RELAY, c, 2, "reply-senders-accepted");

        c = BrokerPrefixes.conversation(BrokerPrefixes.RESPONSE_AWAITS_OUTCOME);
        c.settleResponses(true).close();
        afterPrefix(BrokerPrefixes.RESPONSE_AWAITS_OUTCOME, c, 1, "outcome-then-close");

        c = BrokerPrefixes.conversation(BrokerPrefixes.REPLY_SENDERS_ATTACHED);
        c.settleResponses(false).request(0, "POST", "/echo", "/replies/c", "third");
        afterPrefix(BrokerPrefixes.REPLY_SENDERS_ATTACHED, c, 3, "released-then-third-address");
    }

    private static void afterPrefix(int which, BrokerConversation c, int requests, String name) throws IOException {
        byte[] prefix = BrokerPrefixes.get(which);
        byte[] all = c.recorded();
        assertTrue(Arrays.equals(all, 0, prefix.length, prefix, 0, prefix.length),
                "the conversation begins with prefix " + which);
        FuzzedAttachment replayed = replay(BrokerPrefixes.plain(which), all);
        assertEquals(requests, replayed.requests, name);
        byte[] seed = new byte[1 + all.length - prefix.length];
        seed[0] = (byte) which;
        System.arraycopy(all, prefix.length, seed, 1, all.length - prefix.length);
        seed("attachmentTakesAnyBytesAfterAValidHandshake/" + name, seed);
    }

    private static FuzzedAttachment replay(boolean plain, byte[] stream) {
        FuzzedAttachment attachment = new FuzzedAttachment(BrokerConversation.START_MILLIS);
        Engine engine = new Engine(FuzzedAttachment.config(plain), attachment);
        engine.start(BrokerConversation.START_MILLIS);
        engine.ingest(stream, 0, stream.length, BrokerConversation.START_MILLIS);
        attachment.tick(engine, BrokerConversation.START_MILLIS);
        return attachment;
    }

    private static void seed(String path, byte[] bytes) throws IOException {
        if (!Boolean.getBoolean("fuzz.seeds.write")) {
            return;
        }
        Path file = Path.of(INPUTS, path);
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }
}
