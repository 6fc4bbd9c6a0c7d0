package io.amqpservlet.bench.engine;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.nio.ByteBuffer;

/**
 * Our engine in both roles, driven as the Jetty connection drives it: {@link Engine#beginFlush()} hands out the
 * bytes to write, the peer {@link Engine#ingest ingests} them straight from that buffer (a socket would copy them
 * once; here the read side reads the write side's array), then {@link Engine#endFlush()}. The receiver's handler
 * is told of each whole message with the message already indexed in place.
 */
final class OursFlow implements MessageFlow {
    /** The clock never moves: no idle timeout or heartbeat fires during a run. */
    private static final long NOW_MILLIS = 1;
    private static final int STALL_ROUNDS = 1_000;

    private final Engine client;
    private final Engine server;
    private final Link sender;
    private final byte[] message;
    private final boolean presettled;
    private final Receiving receiving = new Receiving();
    private final Sending sending = new Sending();
    private long sent;

    OursFlow(Workload workload) {
        this.message = workload.message();
        this.presettled = workload.presettled;
        client = new Engine(new EngineConfig().role(EngineConfig.Role.INITIATOR).containerId("client")
                .saslRequired(false), sending);
        server = new Engine(new EngineConfig().role(EngineConfig.Role.ACCEPTOR).containerId("server")
                .saslRequired(false), receiving);
        server.start(NOW_MILLIS);
        client.start(NOW_MILLIS);
        pump();
        sender = client.beginSession().attachSender("bench", "/bench");
        pump();
        if (!sender.canSend()) {
            throw new IllegalStateException("the receiver granted no credit");
        }
    }

    @Override
    public String name() {
        return "ours";
    }

    @Override
    public void transfer(long messages) {
        long target = sent + messages;
        int idleRounds = 0;
        while (receiving.received < target || !presettled && sending.settled < target) {
            boolean progress = false;
            while (sent < target && sender.canSend()) {
                if (sender.send(message, 0, message.length, presettled) == null) {
                    throw new IllegalStateException("the link refused message " + sent);
                }
                sent++;
                progress = true;
            }
            progress |= pump();
            idleRounds = progress ? 0 : idleRounds + 1;
            if (idleRounds > STALL_ROUNDS) {
                throw new IllegalStateException("stalled after " + receiving.received + " of " + target + " messages");
            }
        }
    }

    @Override
    public long received() {
        return receiving.received;
    }

    @Override
    public long settledAtSender() {
        return sending.settled;
    }

    /** Moves bytes both ways until both engines are quiet; returns whether any moved. */
    private boolean pump() {
        boolean any = false;
        boolean moved = true;
        while (moved) {
            moved = move(client, server) | move(server, client);
            any |= moved;
        }
        return any;
    }

    private static boolean move(Engine from, Engine to) {
        ByteBuffer out = from.beginFlush();
        if (out == null) {
            return false;
        }
        to.ingest(out.array(), out.arrayOffset() + out.position(), out.remaining(), NOW_MILLIS);
        out.position(out.limit());
        from.endFlush();
        return true;
    }

    /** The receiving application: counts, accepts unsettled messages, grants credit a batch at a time. */
    private static final class Receiving implements EngineHandler {
        long received;
        private int sinceGrant;

        @Override
        public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
            if (!link.isSender()) {
                link.flow(Workload.CREDIT_BATCH);
            }
            return null;
        }

        @Override
        public void onMessage(Link link, Delivery delivery, MessageView message) {
            received++;
            if (!delivery.remotelySettled()) {
                link.session().engine().accept(delivery);
            }
            if (++sinceGrant == Workload.CREDIT_BATCH) {
                sinceGrant = 0;
                link.flow(Workload.CREDIT_BATCH);
            }
        }
    }

    /** The sending application: counts the messages the receiver accepted and settled. */
    private static final class Sending implements EngineHandler {
        long settled;

        @Override
        public void onDeliveryUpdated(Link link, Delivery delivery) {
            if (delivery.remotelySettled() && delivery.remoteState().kind() == DeliveryState.Kind.ACCEPTED) {
                settled++;
            }
        }
    }
}
