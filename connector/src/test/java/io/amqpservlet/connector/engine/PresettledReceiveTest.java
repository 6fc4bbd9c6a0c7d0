package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pre-settled message received in one frame (AMQP 1.0 §2.7.5 settled=true) is over once the application has seen
 * it: during the callback its delivery is on its link and may be settled (which tells the peer nothing), after it
 * the delivery has no link, and deliveries of unsettled messages received around it are unaffected.
 */
@Timeout(10)
class PresettledReceiveTest {

    /** Settles every message it gets: pre-settled ones twice, to see the second do nothing. */
    static final class Receiver implements EngineHandler {
        final List<Delivery> seen = new ArrayList<>();
        final List<String> events = new ArrayList<>();

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.autoCredit(100);
            }
            return null;
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            seen.add(delivery);
            Engine engine = link.session().engine();
            boolean onLink = delivery.link() == link;
            boolean first = engine.settle(delivery, engine.scratchOutcome().accepted());
            boolean second = engine.settle(delivery, engine.scratchOutcome().accepted());
            events.add(delivery.deliveryId() + (delivery.remotelySettled() ? " settled" : " unsettled")
                    + " onLink=" + onLink + " first=" + first + " second=" + second);
        }
    }

    @Test
    void aPresettledDeliveryIsOverOnceTheApplicationHasSeenItAndPooledOnesAreUnaffected() {
        Receiver server = new Receiver();
        ClientRecorder client = new ClientRecorder();
        EnginePair pair = new EnginePair(new EngineConfig().containerId("client").saslRequired(false), client,
                new EngineConfig().containerId("server").saslRequired(false), server);
        pair.pump();
        Link sender = pair.client.beginSession().attachSender("out", "/in");
        pair.pump();
        byte[] m = RawPeer.message("200", 10);
        for (int i = 0; i < 6; i++) {
            sender.send(m, 0, m.length, i % 2 == 0); // settled, unsettled, settled, ...
        }
        pair.pump();

        assertEquals(List.of(
                "0 settled onLink=true first=true second=false",
                "1 unsettled onLink=true first=true second=false",
                "2 settled onLink=true first=true second=false",
                "3 unsettled onLink=true first=true second=false",
                "4 settled onLink=true first=true second=false",
                "5 unsettled onLink=true first=true second=false"), server.events);
        for (Delivery d : server.seen) {
            assertNull(d.link(), "recycled after the callback");
        }
        assertSame(server.seen.get(0), server.seen.get(2), "pre-settled messages share one record");
        assertNotSame(server.seen.get(0), server.seen.get(1), "an unsettled message gets a pooled delivery");
        assertEquals(3, client.events.stream().filter(e -> e.equals("outcome accepted settled")).count(),
                "each unsettled message was accepted: " + client.events);
        assertEquals(0, pair.server.incomingUnsettled);
        assertTrue(pair.server.isOpen());
    }
}
