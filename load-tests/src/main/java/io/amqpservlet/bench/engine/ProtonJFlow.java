package io.amqpservlet.bench.engine;

import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.engine.Transport;

import java.nio.ByteBuffer;

/**
 * proton-j 0.35.0 in both roles, driven as its users (Qpid JMS, the reactor) drive it: a {@link Transport} bound to
 * a {@link Connection} with a {@link Collector}; bytes are pumped from one transport's {@code head()} into the
 * other's {@code tail()} followed by {@code process()} and {@code pop()}, and the collector's events are handled
 * after each step. Tags follow Qpid JMS: empty for pre-settled messages, a reused pool for unsettled ones. The
 * receiver reads each complete delivery with {@code recv}, then {@code advance}s, settles, and grants credit.
 */
final class ProtonJFlow implements MessageFlow {
    private static final byte[] EMPTY_TAG = new byte[0];
    private static final int STALL_ROUNDS = 1_000;

    private final Transport clientTransport = Proton.transport();
    private final Transport serverTransport = Proton.transport();
    private final Connection clientConnection = Proton.connection();
    private final Connection serverConnection = Proton.connection();
    private final Collector clientEvents = Proton.collector();
    private final Collector serverEvents = Proton.collector();
    private final byte[] message;
    private final byte[] readBuffer = new byte[1024];
    private final boolean presettled;
    private final Sender sender;
    /** Tags of settled deliveries, reused as Qpid JMS's tag generator reuses them. */
    private byte[][] freeTags = new byte[16][];
    private int freeTagCount;
    private long nextTag;
    private long sent;
    private long received;
    private long settled;
    private int sinceGrant;

    ProtonJFlow(Workload workload) {
        this.message = workload.message();
        this.presettled = workload.presettled;
        clientTransport.bind(clientConnection);
        serverTransport.bind(serverConnection);
        clientConnection.collect(clientEvents);
        serverConnection.collect(serverEvents);
        serverConnection.setContainer("server");
        clientConnection.setContainer("client");
        clientConnection.open();
        Session session = clientConnection.session();
        session.open();
        sender = session.sender("bench");
        Source source = new Source();
        source.setAddress("bench");
        Target target = new Target();
        target.setAddress("/bench");
        sender.setSource(source);
        sender.setTarget(target);
        sender.setSenderSettleMode(presettled ? SenderSettleMode.SETTLED : SenderSettleMode.UNSETTLED);
        sender.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        sender.open();
        pump();
        if (sender.getCredit() <= 0) {
            throw new IllegalStateException("the receiver granted no credit");
        }
    }

    @Override
    public String name() {
        return "protonj";
    }

    @Override
    public void transfer(long messages) {
        long target = sent + messages;
        int idleRounds = 0;
        while (received < target || !presettled && settled < target) {
            boolean progress = false;
            while (sent < target && sender.getCredit() > 0) {
                Delivery delivery = sender.delivery(presettled ? EMPTY_TAG : takeTag());
                if (message.length > 0) {
                    sender.send(message, 0, message.length); // proton-j refuses an empty array: advance alone sends
                }
                sender.advance();
                if (presettled) {
                    delivery.settle();
                }
                sent++;
                progress = true;
            }
            progress |= pump();
            idleRounds = progress ? 0 : idleRounds + 1;
            if (idleRounds > STALL_ROUNDS) {
                throw new IllegalStateException("stalled after " + received + " of " + target + " messages");
            }
        }
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public long settledAtSender() {
        return settled;
    }

    private byte[] takeTag() {
        if (freeTagCount > 0) {
            return freeTags[--freeTagCount];
        }
        long t = nextTag++;
        byte[] tag = new byte[8];
        for (int i = 7; i >= 0; i--) {
            tag[i] = (byte) t;
            t >>>= 8;
        }
        return tag;
    }

    private void recycleTag(byte[] tag) {
        if (freeTagCount == freeTags.length) {
            freeTags = java.util.Arrays.copyOf(freeTags, freeTags.length * 2);
        }
        freeTags[freeTagCount++] = tag;
    }

    /** Moves bytes both ways, handling events after each step, until neither side has output. */
    private boolean pump() {
        boolean any = false;
        boolean moved = true;
        handleEvents(clientEvents);
        handleEvents(serverEvents);
        while (moved) {
            moved = move(clientTransport, serverTransport);
            handleEvents(serverEvents);
            moved |= move(serverTransport, clientTransport);
            handleEvents(clientEvents);
            any |= moved;
        }
        return any;
    }

    private static boolean move(Transport from, Transport to) {
        int pending = from.pending();
        if (pending <= 0) {
            return false;
        }
        ByteBuffer head = from.head();
        int total = head.remaining();
        while (head.hasRemaining()) {
            ByteBuffer tail = to.tail();
            int n = Math.min(tail.remaining(), head.remaining());
            if (n <= 0) {
                throw new IllegalStateException("proton-j has no room for input");
            }
            int limit = head.limit();
            head.limit(head.position() + n);
            tail.put(head);
            head.limit(limit);
            to.process();
        }
        from.pop(total);
        return true;
    }

    private void handleEvents(Collector events) {
        Event e;
        while ((e = events.peek()) != null) {
            switch (e.getType()) {
                case CONNECTION_REMOTE_OPEN -> {
                    if (e.getConnection() == serverConnection) {
                        serverConnection.open();
                    }
                }
                case SESSION_REMOTE_OPEN -> {
                    Session s = e.getSession();
                    if (s.getConnection() == serverConnection) {
                        s.open();
                    }
                }
                case LINK_REMOTE_OPEN -> onLinkRemoteOpen(e.getLink());
                case DELIVERY -> onDelivery(e.getDelivery());
                default -> {
                    // Other events need no action here.
                }
            }
            events.pop();
        }
    }

    private void onLinkRemoteOpen(Link link) {
        if (link instanceof Receiver receiver && link.getSession().getConnection() == serverConnection) {
            receiver.setSource(receiver.getRemoteSource());
            receiver.setTarget(receiver.getRemoteTarget());
            receiver.setSenderSettleMode(receiver.getRemoteSenderSettleMode());
            receiver.open();
            receiver.flow(Workload.CREDIT_BATCH);
        }
    }

    private void onDelivery(Delivery delivery) {
        Link link = delivery.getLink();
        if (link instanceof Receiver receiver) {
            if (!delivery.isReadable() || delivery.isPartial()) {
                return;
            }
            while (receiver.recv(readBuffer, 0, readBuffer.length) > 0) {
                // Drain the payload into the application's buffer.
            }
            receiver.advance();
            received++;
            if (!delivery.remotelySettled()) {
                delivery.disposition(Accepted.getInstance());
            }
            delivery.settle();
            if (++sinceGrant == Workload.CREDIT_BATCH) {
                sinceGrant = 0;
                receiver.flow(Workload.CREDIT_BATCH);
            }
        } else if (delivery.remotelySettled()) {
            if (delivery.getRemoteState() instanceof Accepted) {
                settled++;
            }
            byte[] tag = delivery.getTag();
            delivery.settle();
            if (tag.length > 0) {
                recycleTag(tag);
            }
        }
    }
}
