package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The attachment's link rules ({@link AttachedLinks}) against a broker in memory ({@link BrokerConversation}). */
class AttachedLinksTest {

    @Test
    void aRequestWhoseReplyLinkFindsNoHandleWithinTheBrokersHandleMaxGoesBackToTheQueue() {
        // Handles 0 and 1 are the request links; without a relay the response needs a third, which the broker's
        // handle-max does not allow.
        BrokerConversation c = new BrokerConversation(false, false, 1);
        c.request(0, "POST", "/echo", "/replies/a", "hello");
        assertEquals(1, c.attachment.unanswerable);
        assertEquals(List.of(DeliveryState.Kind.MODIFIED), c.requestOutcomes, "the broker delivers it again");
        assertTrue(c.gateway.isOpen(), "the connection goes on");
    }

    @Test
    void aLinkTheBrokerAttachesOfItsOwnIsRefused() {
        BrokerConversation c = new BrokerConversation(true, true);
        for (boolean sender : new boolean[] {true, false}) {
            Link link = c.brokerAttaches(sender);
            assertFalse(link.isOpen(), "refused");
        }
        String notAllowed = ErrorConditions.NOT_ALLOWED.toString();
        assertEquals(Arrays.asList(notAllowed, notAllowed), c.detachErrors);
        assertTrue(c.gateway.isOpen(), "the connection goes on");
    }
}
