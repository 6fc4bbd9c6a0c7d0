package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/design.md §2 and §6: once warm, moving messages between two of our engines allocates nothing. The test thread
 * drives both engines (sender, byte shuttle and receiver all run on it), so the thread's allocation counter sees
 * everything the engines allocate, and the test's own handlers only count: no per-message test objects.
 *
 * <p>Each variant moves 1,000,000 messages: 200,000 to warm up (the JIT compiles the hot paths, pools and
 * buffers reach their working size), then four measured rounds of 200,000. The assertion uses the round that
 * allocated least, because a JIT recompilation (deoptimisation, OSR) during a round can allocate a one-off few
 * hundred bytes on the measuring thread that have nothing to do with the engine; a real per-message allocation
 * shows in every round and would cost at least 16 bytes per message (the smallest object), far above the 1 byte
 * per message the design allows.
 */
class EngineSteadyStateAllocationTest {
    private static final int WARM_UP_MESSAGES = 200_000;
    private static final int ROUND_MESSAGES = 200_000;
    private static final int ROUNDS = 4;
    private static final int CREDIT_BATCH = 64;

    @Test
    void presettledZeroByteMessagesWithCreditBatchesOf64AllocateNothing() {
        CountingReceiver receiver = new CountingReceiver(false);
        Flow flow = new Flow(receiver, new byte[0], true);
        double bytesPerMessage = flow.measure();
        assertEquals(WARM_UP_MESSAGES + (long) ROUNDS * ROUND_MESSAGES, receiver.received, "every message arrived");
        assertTrue(bytesPerMessage < 1.0, "allocated " + bytesPerMessage + " bytes per message");
    }

    @Test
    void unsettled100ByteMessagesAcceptedOneByOneAllocateNothing() {
        CountingReceiver receiver = new CountingReceiver(true);
        Flow flow = new Flow(receiver, dataMessageOf100Bytes(), false);
        double bytesPerMessage = flow.measure();
        long total = WARM_UP_MESSAGES + (long) ROUNDS * ROUND_MESSAGES;
        assertEquals(total, receiver.received, "every message arrived");
        assertEquals(total, flow.sender.accepted, "every message was accepted and settled at the sender");
        assertEquals(0, flow.pair.server.incomingUnsettled, "the receiver settled everything");
        assertTrue(bytesPerMessage < 1.0, "allocated " + bytesPerMessage + " bytes per message");
    }

    /** One data section (descriptor 0x75, vbin8) whose encoding is exactly 100 bytes. */
    private static byte[] dataMessageOf100Bytes() {
        byte[] m = new byte[100];
        m[0] = 0x00;
        m[1] = 0x53;
        m[2] = 0x75;
        m[3] = (byte) 0xa0;
        m[4] = 95;
        for (int i = 5; i < m.length; i++) {
            m[i] = (byte) i;
        }
        return m;
    }

    /** A client sending on one link to a server whose receiver counts, granting credit 64 at a time. */
    private static final class Flow {
        final EnginePair pair;
        final CountingSender sender = new CountingSender();
        final CountingReceiver receiver;
        final Link link;
        final byte[] message;
        final boolean settled;

        Flow(CountingReceiver receiver, byte[] message, boolean settled) {
            this.receiver = receiver;
            this.message = message;
            this.settled = settled;
            EngineConfig server = new EngineConfig().containerId("server").saslRequired(false);
            EngineConfig client = new EngineConfig().containerId("client").saslRequired(false);
            pair = new EnginePair(client, sender, server, receiver);
            pair.pump();
            link = pair.client.beginSession().attachSender("flow", "/count");
            pair.pump();
            assertTrue(link.canSend(), "the receiver granted credit");
        }

        /** Sends {@code count} messages as fast as credit allows. */
        void run(long count) {
            long target = receiver.received + count;
            while (receiver.received < target) {
                long toSend = target - receiver.received - link.queued();
                while (toSend > 0 && link.canSend()) {
                    if (link.send(message, 0, message.length, settled) == null) {
                        throw new IllegalStateException("the link refused a message");
                    }
                    toSend--;
                }
                pair.pump();
            }
        }

        /** Warms up, then returns the least bytes per message allocated over the measured rounds. */
        double measure() {
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long thread = Thread.currentThread().getId();
            run(WARM_UP_MESSAGES);
            long least = Long.MAX_VALUE;
            for (int r = 0; r < ROUNDS; r++) {
                long before = threads.getThreadAllocatedBytes(thread);
                run(ROUND_MESSAGES);
                long allocated = threads.getThreadAllocatedBytes(thread) - before;
                least = Math.min(least, allocated);
            }
            return (double) least / ROUND_MESSAGES;
        }
    }

    /** Grants 64 credits whenever the sender has used them all; accepts unsettled messages one by one. */
    private static final class CountingReceiver implements EngineHandler {
        final boolean accept;
        long received;

        CountingReceiver(boolean accept) {
            this.accept = accept;
        }

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.flow(CREDIT_BATCH);
            }
            return null;
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            received++;
            if (accept) {
                link.session().engine().accept(delivery);
            }
            if (link.linkCredit() == 0) {
                link.flow(CREDIT_BATCH);
            }
        }
    }

    /** Counts the outcomes the receiver reports. */
    private static final class CountingSender implements EngineHandler {
        long accepted;

        @Override
        public void onDeliveryUpdated(Link link, Delivery delivery) {
            if (delivery.remotelySettled() && delivery.remoteState().kind() == DeliveryState.Kind.ACCEPTED) {
                accepted++;
            }
        }
    }
}
