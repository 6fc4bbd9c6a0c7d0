package io.amqpservlet.jetty;

import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.transport.Open;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an attachment's connections buffer is shown by the attachment ({@code getBufferedBytes()}, its JMX attribute
 * and meter): its own byte budget's count, which its factory's does not include. Played against a frame-scripting
 * broker stand-in ({@link ScriptedBroker}) so the request's frames arrive while its servlet is not reading.
 */
@Timeout(60)
class AttachBufferedBytesTest {
    @Test
    void aRequestBodyItsServletHasNotReadYetIsTheAttachmentsBufferedBytesUntilRead() throws Exception {
        try (ScriptedBroker b = new ScriptedBroker();
             AttachedGateway g = new AttachedGateway("amqp://127.0.0.1:" + b.port() + "/orders", 2)) {
            g.start();
            Open open = new Open().containerId("scripted");
            open.offeredCapabilities().add(Capabilities.ANONYMOUS_RELAY);
            b.accept(open);
            b.answerAttaches(2, 100);
            b.awaitRequestCredit();
            int relay = b.senderHandle;
            // 20,000 bytes of body in frames of 4,000 to a servlet that sleeps 2 s before it reads.
            b.sendRequestInFrames(ScriptedBroker.request("replies", "2000", 20_000), 4000);
            Eventually.until(() -> g.attachment.getBufferedBytes() >= 15_000,
                    () -> "the unread body is not counted: " + g.attachment.getBufferedBytes() + " bytes");
            assertEquals(0, g.attachment.getConnectionFactory().getBufferedBytes(), "the factory's budget is not it");

            List<Integer> responses = new ArrayList<>();
            while (responses.isEmpty()) {
                DescribedList frame = b.peer.readFrame();
                b.acceptResponse(frame, relay, responses);
            }
            Eventually.until(() -> g.attachment.getBufferedBytes() == 0,
                    () -> g.attachment.getBufferedBytes() + " bytes still counted after the response");
            assertTrue(g.work.calls.get() == 1);
        }
    }
}
