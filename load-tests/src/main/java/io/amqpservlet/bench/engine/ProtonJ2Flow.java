package io.amqpservlet.bench.engine;

import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
import org.apache.qpid.protonj2.engine.Connection;
import org.apache.qpid.protonj2.engine.Engine;
import org.apache.qpid.protonj2.engine.EngineFactory;
import org.apache.qpid.protonj2.engine.IncomingDelivery;
import org.apache.qpid.protonj2.engine.OutgoingDelivery;
import org.apache.qpid.protonj2.engine.Receiver;
import org.apache.qpid.protonj2.engine.Sender;
import org.apache.qpid.protonj2.engine.Session;
import org.apache.qpid.protonj2.engine.impl.ProtonDeliveryTagGenerator;
import org.apache.qpid.protonj2.types.messaging.Accepted;
import org.apache.qpid.protonj2.types.messaging.Source;
import org.apache.qpid.protonj2.types.messaging.Target;
import org.apache.qpid.protonj2.types.transport.ReceiverSettleMode;
import org.apache.qpid.protonj2.types.transport.SenderSettleMode;

/**
 * protonj2 1.1.0's engine in both roles, driven as its client drives it: {@code EngineFactory.PROTON
 * .createNonSaslEngine()}, an output handler that takes each frame's buffer (written to a socket by the client,
 * here appended to an in-memory wire buffer the other engine ingests), {@link Engine#ingest}, and the event
 * handlers of connection, session and links. The sender is set up as the protonj2 client sets up its senders: settle
 * mode SETTLED with empty delivery tags for pre-settled messages, UNSETTLED with pooled tags otherwise; each message
 * is {@code next()}, settled first when pre-settled, then {@code writeBytes}. The receiver reads each complete
 * delivery with {@code readAll()}, as the client's receive does.
 */
final class ProtonJ2Flow implements MessageFlow {
    private static final int STALL_ROUNDS = 1_000;

    private final Engine client = EngineFactory.PROTON.createNonSaslEngine();
    private final Engine server = EngineFactory.PROTON.createNonSaslEngine();
    private final ProtonBuffer toServer = ProtonBufferAllocator.defaultAllocator().allocateHeapBuffer(64 * 1024);
    private final ProtonBuffer toClient = ProtonBufferAllocator.defaultAllocator().allocateHeapBuffer(64 * 1024);
    private final ProtonBuffer payload;
    private final boolean presettled;
    private final Sender sender;
    private long sent;
    private long received;
    private long settled;
    private int sinceGrant;

    ProtonJ2Flow(Workload workload) {
        this.presettled = workload.presettled;
        byte[] message = workload.message();
        this.payload = ProtonBufferAllocator.defaultAllocator().allocateHeapBuffer(Math.max(1, message.length));
        payload.writeBytes(message, 0, message.length);

        client.outputHandler((frame, written) -> write(frame, written, toServer));
        server.outputHandler((frame, written) -> write(frame, written, toClient));

        Connection serverConnection = server.start();
        serverConnection.setContainerId("server");
        serverConnection.openHandler(remote -> remote.open());
        serverConnection.sessionOpenHandler(Session::open);
        serverConnection.receiverOpenHandler(this::onReceiverOpen);

        Connection clientConnection = client.start();
        clientConnection.setContainerId("client").open();
        Session session = clientConnection.session().open();
        sender = session.sender("bench");
        sender.setSource(new Source().setAddress("bench"));
        sender.setTarget(new Target().setAddress("/bench"));
        if (presettled) {
            sender.setSenderSettleMode(SenderSettleMode.SETTLED);
            sender.setDeliveryTagGenerator(ProtonDeliveryTagGenerator.BUILTIN.EMPTY.createGenerator());
        } else {
            sender.setSenderSettleMode(SenderSettleMode.UNSETTLED);
            sender.setDeliveryTagGenerator(ProtonDeliveryTagGenerator.BUILTIN.POOLED.createGenerator());
            sender.deliveryStateUpdatedHandler(this::onDeliveryUpdated);
        }
        sender.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        sender.open();
        pump();
        if (!sender.isSendable()) {
            throw new IllegalStateException("the receiver granted no credit");
        }
    }

    @Override
    public String name() {
        return "protonj2";
    }

    private static void write(ProtonBuffer frame, Runnable written, ProtonBuffer wire) {
        wire.ensureWritable(frame.getReadableBytes());
        wire.writeBytes(frame);
        frame.close();
        if (written != null) {
            written.run();
        }
    }

    private void onReceiverOpen(Receiver receiver) {
        receiver.setSource(receiver.getRemoteSource());
        receiver.setTarget((Target) receiver.getRemoteTarget());
        receiver.setSenderSettleMode(receiver.getRemoteSenderSettleMode());
        receiver.deliveryReadHandler(this::onDelivery);
        receiver.open();
        receiver.addCredit(Workload.CREDIT_BATCH);
    }

    private void onDelivery(IncomingDelivery delivery) {
        if (delivery.isPartial()) {
            return;
        }
        ProtonBuffer body = delivery.readAll();
        if (body != null) {
            body.close();
        }
        received++;
        if (delivery.isRemotelySettled()) {
            delivery.settle();
        } else {
            delivery.disposition(Accepted.getInstance(), true);
        }
        if (++sinceGrant == Workload.CREDIT_BATCH) {
            sinceGrant = 0;
            delivery.getLink().addCredit(Workload.CREDIT_BATCH);
        }
    }

    private void onDeliveryUpdated(OutgoingDelivery delivery) {
        if (delivery.isRemotelySettled()) {
            if (delivery.getRemoteState() instanceof Accepted) {
                settled++;
            }
            delivery.settle();
        }
    }

    @Override
    public void transfer(long messages) {
        long target = sent + messages;
        int idleRounds = 0;
        while (received < target || !presettled && settled < target) {
            boolean progress = false;
            while (sent < target && sender.isSendable()) {
                OutgoingDelivery delivery = sender.next();
                if (presettled) {
                    delivery.settle();
                }
                payload.setReadOffset(0);
                delivery.writeBytes(payload);
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

    private boolean pump() {
        boolean any = false;
        boolean moved = true;
        while (moved) {
            moved = move(toServer, server) | move(toClient, client);
            any |= moved;
        }
        return any;
    }

    private static boolean move(ProtonBuffer wire, Engine to) {
        if (!wire.isReadable()) {
            return false;
        }
        to.ingest(wire);
        if (wire.isReadable()) {
            throw new IllegalStateException("protonj2 left " + wire.getReadableBytes() + " bytes unread");
        }
        wire.clear();
        return true;
    }
}
