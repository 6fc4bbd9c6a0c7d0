package io.amqpservlet.jetty;

import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.messaging.Capabilities;
import io.amqpservlet.protocol.types.sasl.SaslMechanismNames;
import io.amqpservlet.protocol.types.sasl.SaslMechanisms;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.testbrokers.RabbitMqNode;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DurabilityMode;
import org.apache.qpid.protonj2.client.Link;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.ReceiverOptions;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.SenderOptions;
import org.apache.qpid.protonj2.client.Session;
import org.apache.qpid.protonj2.client.Tracker;
import org.apache.qpid.protonj2.client.exceptions.ClientSessionRemotelyClosedException;
import org.apache.qpid.protonj2.types.UnsignedLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Proves {@link RabbitMqNode} with a real client (Apache Qpid protonj2-client) and pins, as assertions, what
 * RabbitMQ 3.10's {@code rabbitmq_amqp1_0} plugin does with the things an AMQP 1.0 client attached to it relies on
 * (the gateway's attach mode is such a client):
 * <ul>
 *   <li>{@code /queue/NAME}: an attach of either role declares queue NAME if it is missing (a sender's too: a message
 *       sent before any receiver is kept) and uses it; the queue's durability is the terminus durability of the FIRST
 *       attach (none: a transient queue, dropped by a broker restart; configuration or unsettled-state: durable), and
 *       a later attach with another durability is refused ({@code amqp:precondition-failed}). Such a queue is not
 *       auto-deleted when its links or connections go.</li>
 *   <li>{@code /amq/queue/NAME}: uses an existing queue, never declares. A receiver on a missing one is refused
 *       ({@code amqp:not-found}); a SENDER to a missing one is attached and its messages are accepted, then dropped.
 *       {@code /exchange/X/KEY} publishes to exchange X (missing X: {@code amqp:not-found}); what no queue is bound for
 *       is accepted and dropped as well. A plain {@code NAME} (no slash) acts as {@code /queue/NAME}.</li>
 *   <li>Every refusal comes as an {@code end} of the whole SESSION carrying the error, never as an attach answer or a
 *       detach: an engine waiting for the answering attach must treat that end as the link's failure, and other links
 *       on that session are gone too.</li>
 *   <li>No dynamic nodes, no anonymous relay: the open offers no capabilities at all; a dynamic source or target is
 *       answered (at once) by an {@code end} with {@code amqp:not-implemented}, a sender with no target address by
 *       one with {@code amqp:invalid-field}. Replies therefore need a sender attached per reply-to address.</li>
 *   <li>An unsettled transfer gets a settled {@code accepted} disposition once the broker has taken the message
 *       (whether or not a queue got it, see above); a persistent message accepted into a durable queue before a clean
 *       stop is there after the restart. The message's {@code to} is ignored on a link with a target address: the
 *       link's address routes.</li>
 *   <li>{@code reply-to}, {@code message-id}, {@code correlation-id} (UUID, ulong), {@code subject}, application
 *       properties and the body reach the consumer unchanged; reply-to strings are opaque to the broker (any text
 *       passes).</li>
 *   <li>SASL offers ANONYMOUS, PLAIN and AMQPLAIN; ANONYMOUS, and a connection with no SASL layer at all, are
 *       accepted as the plugin's default user (guest). The broker's open announces an idle-time-out of 60 s (AMQP 1.0
 *       §2.4.5: a client must send something, an empty frame at least, well within that).</li>
 * </ul>
 * <p>A clean stop of the node closes its listener at once but drops open AMQP 1.0 connections only about 3 s later,
 * with no {@code close} frame (the socket just closes), so a stop with clients connected takes about 3 s longer.
 *
 * <p>One node per class; tests use their own queue names, so their order does not matter.
 */
@Timeout(60)
class RabbitMqNodeTest {
    private static final long WAIT_SECONDS = 10;

    private static RabbitMqNode broker;
    private static Client client;

    private Connection connection;

    @BeforeAll
    @Timeout(90)
    static void startBroker() throws Exception {
        broker = RabbitMqNode.start(null);
        client = Client.create();
        System.out.printf("RabbitMQ node %s on port %d: started in %d ms, beam.smp RSS %.1f MiB%n", broker.nodeName(),
                broker.amqpPort(), broker.lastStartMillis(), broker.residentBytes() / 1048576.0);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
    }

    @BeforeEach
    void connect() throws Exception {
        connection = connectGuest();
    }

    @AfterEach
    void disconnect() {
        connection.close();
    }

    private static Connection connectGuest() throws Exception {
        Connection opened = client.connect("127.0.0.1", broker.amqpPort(),
                new ConnectionOptions().user(RabbitMqNode.USER).password(RabbitMqNode.PASSWORD));
        opened.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        return opened;
    }

    private static String queueName(String purpose) {
        return purpose + "-" + UUID.randomUUID();
    }

    @Test
    void messageSentToQueueComesBackUnchangedAndIsAccepted() throws Exception {
        String queue = "/queue/" + queueName("round-trip");
        UUID messageId = UUID.randomUUID();
        Sender sender = connection.openSender(queue);
        // Sent before any receiver exists: the sender's attach declared the queue, or the message would be lost.
        Tracker tracker = sender.send(Message.create("hello rabbit").messageId(messageId)
                .correlationId(new UnsignedLong(42)).replyTo("/queue/replies-of-client-7").subject("POST")
                .property("path", "/echo"));
        tracker.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(tracker.remoteSettled(), "the broker settles what it took");
        assertTrue(tracker.remoteState().isAccepted(), "outcome: " + tracker.remoteState());

        Receiver receiver = connection.openReceiver(queue, new ReceiverOptions().autoAccept(false));
        Delivery delivery = receiver.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery, "nothing arrived from " + queue);
        Message<Object> message = delivery.message();
        assertEquals("hello rabbit", message.body());
        assertEquals(messageId, message.messageId());
        assertEquals(new UnsignedLong(42), message.correlationId());
        assertEquals("/queue/replies-of-client-7", message.replyTo());
        assertEquals("POST", message.subject());
        assertEquals("/echo", message.property("path"));
        delivery.accept();
        assertNull(receiver.receive(300, TimeUnit.MILLISECONDS), "an accepted message is gone");
    }

    @Test
    void replyToStringsPassThroughUnchanged() throws Exception {
        String queue = "/queue/" + queueName("reply-to");
        Session session = connection.openSession();
        Sender sender = session.openSender(queue);
        Receiver receiver = session.openReceiver(queue);
        for (String replyTo : List.of("/queue/replies", "replies", "/amq/queue/replies", "/exchange/amq.direct/key",
                "/topic/a.b", "amqp://example.invalid:5672/some/node?x=1", "not an address at all: ü ✓")) {
            sender.send(Message.create("r").replyTo(replyTo)).awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
            Delivery delivery = receiver.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(delivery, "nothing arrived for reply-to " + replyTo);
            assertEquals(replyTo, delivery.message().replyTo());
        }
    }

    @Test
    void theLinkAddressRoutesNotTheMessagesTo() throws Exception {
        String linked = "/queue/" + queueName("linked");
        String named = "/queue/" + queueName("named-in-to");
        Session session = connection.openSession();
        Receiver linkedReceiver = session.openReceiver(linked);
        Receiver namedReceiver = session.openReceiver(named);
        session.openSender(linked).send(Message.create("routed").to(named))
                .awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
        Delivery delivery = linkedReceiver.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery, "the message did not arrive on the link's own queue");
        assertEquals(named, delivery.message().to(), "to is kept as sent");
        assertNull(namedReceiver.receive(300, TimeUnit.MILLISECONDS));
    }

    @Test
    void receiverOnQueueAddressDeclaresTheQueueThatAmqQueueThenFinds() throws Exception {
        String name = queueName("declared-by-receiver");
        Session session = connection.openSession();
        Receiver receiver = session.openReceiver("/queue/" + name);
        receiver.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        session.openSender("/amq/queue/" + name).send(Message.create("via amq")).awaitAccepted(WAIT_SECONDS,
                TimeUnit.SECONDS);
        Delivery delivery = receiver.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery);
        assertEquals("via amq", delivery.message().body());

        // Not auto-deleted: the queue outlives the link and the connection that declared it.
        receiver.close();
        connection.close();
        connection = connectGuest();
        Receiver again = connection.openReceiver("/amq/queue/" + name);
        again.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void plainNameActsAsQueueAddress() throws Exception {
        String name = queueName("plain");
        connection.openSender(name).send(Message.create("plain")).awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
        Delivery delivery = connection.openReceiver("/queue/" + name).receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(delivery);
        assertEquals("plain", delivery.message().body());
    }

    @Test
    void receiverOnMissingAmqQueueEndsTheSessionWithNotFound() throws Exception {
        Receiver receiver = connection.openSession().openReceiver("/amq/queue/" + queueName("missing"));
        assertSessionEnded(receiver, "amqp:not-found");
    }

    @Test
    void senderToMissingExchangeEndsTheSessionWithNotFound() throws Exception {
        Sender sender = connection.openSession().openSender("/exchange/" + queueName("no-such-exchange") + "/key");
        assertSessionEnded(sender, "amqp:not-found");
    }

    @Test
    void unroutableMessagesAreAcceptedAndDropped() throws Exception {
        String name = queueName("late");
        Session session = connection.openSession();
        Tracker toMissingQueue = session.openSender("/amq/queue/" + name).send(Message.create("lost"));
        assertTrue(toMissingQueue.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS).remoteState().isAccepted(),
                "outcome: " + toMissingQueue.remoteState());
        Tracker unbound = session.openSender("/exchange/amq.direct/" + name).send(Message.create("lost too"));
        assertTrue(unbound.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS).remoteState().isAccepted(),
                "outcome: " + unbound.remoteState());
        // Declared only now: empty, so "accepted" above meant "taken", not "delivered to a queue".
        assertNull(session.openReceiver("/queue/" + name).receive(500, TimeUnit.MILLISECONDS));
    }

    @Test
    void firstAttachFixesQueueDurabilityAndAnotherIsRefused() throws Exception {
        String queue = "/queue/" + queueName("durable-first");
        SenderOptions durable = new SenderOptions();
        durable.targetOptions().durabilityMode(DurabilityMode.CONFIGURATION);
        connection.openSender(queue, durable).openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        // protonj2's receiver asks for durability none by default.
        Receiver receiver = connection.openSession().openReceiver(queue);
        ClientSessionRemotelyClosedException refused = assertSessionEnded(receiver, "amqp:precondition-failed");
        assertTrue(refused.getErrorCondition().description().contains("durable"), refused.getMessage());
    }

    @Test
    void dynamicReceiverIsRefusedAtOnceNotLeftUnanswered() throws Exception {
        Receiver receiver = connection.openSession().openDynamicReceiver();
        assertSessionEnded(receiver, "amqp:not-implemented");
    }

    @Test
    void noAnonymousRelayIsOffered() throws Exception {
        String[] offered = connection.offeredCapabilities();
        assertFalse(offered != null && Arrays.asList(offered).contains("ANONYMOUS-RELAY"),
                "offered: " + Arrays.toString(offered));
    }

    @Test
    void rawAttachesToDynamicOrAnonymousNodesAreAnsweredByEnd() throws Exception {
        // A sender with a target but no address is how a client asks for the anonymous relay (AMQP 1.0 §3.5.4 lets
        // address be absent); RabbitMQ rejects the address itself.
        Attach anonymousSender = new Attach().name("anonymous").handle(0).role(Role.SENDER).initialDeliveryCount(0);
        anonymousSender.source().present(true);
        anonymousSender.target().present(true);
        assertAttachEndsSession(anonymousSender, ErrorConditions.INVALID_FIELD);

        Attach dynamicSource = new Attach().name("dynamic-source").handle(0).role(Role.RECEIVER);
        dynamicSource.source().present(true).dynamic(true);
        dynamicSource.target().present(true);
        assertAttachEndsSession(dynamicSource, ErrorConditions.NOT_IMPLEMENTED);

        Attach dynamicTarget = new Attach().name("dynamic-target").handle(0).role(Role.SENDER).initialDeliveryCount(0);
        dynamicTarget.source().present(true);
        dynamicTarget.target().present(true).dynamic(true);
        assertAttachEndsSession(dynamicTarget, ErrorConditions.NOT_IMPLEMENTED);
    }

    @Test
    void offersSaslPlainAndAnonymousAndAcceptsAnonymous() throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(broker.amqpPort())) {
            peer.writeHeader(ProtocolHeader.SASL);
            assertEquals(ProtocolHeader.ID_SASL, peer.readHeader().protocolId());
            SaslMechanisms mechanisms = peer.readUntil(SaslMechanisms.class);
            assertTrue(mechanisms.mechanisms().contains(SaslMechanismNames.PLAIN), mechanisms.toString());
            assertTrue(mechanisms.mechanisms().contains(SaslMechanismNames.ANONYMOUS), mechanisms.toString());
        }
        // With no credentials protonj2 picks ANONYMOUS, which the plugin maps to its default user.
        try (Connection anonymous = client.connect("127.0.0.1", broker.amqpPort(), new ConnectionOptions())) {
            anonymous.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            String queue = "/queue/" + queueName("anonymous");
            anonymous.openSender(queue).send(Message.create("anonymous")).awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(anonymous.openReceiver(queue).receive(WAIT_SECONDS, TimeUnit.SECONDS));
        }
    }

    @Test
    void restartOnTheSamePortKeepsDurableQueueAndPersistentMessagesOnly() throws Exception {
        String name = queueName("survives-restart");
        SenderOptions durable = new SenderOptions();
        durable.targetOptions().durabilityMode(DurabilityMode.CONFIGURATION);
        Sender sender = connection.openSender("/queue/" + name, durable);
        sender.send(Message.create("persistent").durable(true)).awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
        sender.send(Message.create("transient").durable(false)).awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
        String transientQueue = queueName("transient-queue");
        connection.openSender("/queue/" + transientQueue).send(Message.create("with its queue").durable(true))
                .awaitAccepted(WAIT_SECONDS, TimeUnit.SECONDS);
        long residentBytes = broker.residentBytes();
        int port = broker.amqpPort();

        long stopMillis;
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.AMQP);
            peer.writeFrame(0, new Open().containerId("raw-peer"));
            peer.readHeader();
            peer.readUntil(Open.class);
            long stopNanos = System.nanoTime();
            broker.stop();
            stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopNanos);
            // A shutdown drops open connections (about 3 s after it begins) without sending them a close.
            AssertionError noFrame = assertThrows(AssertionError.class, peer::readFrame);
            assertTrue(peer.closedByServer(), noFrame.getMessage());
        }
        assertFalse(broker.running());
        assertThrows(ConnectException.class, () -> probeConnect(port), "nothing listens while stopped");
        broker.restart();
        System.out.printf("RabbitMQ node %s stopped in %d ms, restarted in %d ms; beam.smp RSS before the stop %.1f MiB,"
                + " after %.1f MiB%n", broker.nodeName(), stopMillis, broker.lastStartMillis(), residentBytes / 1048576.0,
                broker.residentBytes() / 1048576.0);
        assertEquals(port, broker.amqpPort());

        // The old connection died with the node; a new one finds the data.
        connection.close();
        connection = connectGuest();
        Receiver receiver = connection.openReceiver("/amq/queue/" + name);
        List<Object> bodies = new ArrayList<>();
        for (Delivery delivery; (delivery = receiver.receive(1, TimeUnit.SECONDS)) != null; ) {
            bodies.add(delivery.message().body());
        }
        assertEquals(List.of("persistent"), bodies);
        assertSessionEnded(connection.openSession().openReceiver("/amq/queue/" + transientQueue), "amqp:not-found");
    }

    private static void probeConnect(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
        }
    }

    /** The link's attach is answered by the END of its session, with {@code condition}, within the wait. */
    private static ClientSessionRemotelyClosedException assertSessionEnded(Link<?> link, String condition) {
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> link.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS));
        ClientSessionRemotelyClosedException ended = assertInstanceOf(ClientSessionRemotelyClosedException.class,
                failed.getCause());
        assertEquals(condition, ended.getErrorCondition().condition(), ended.getMessage());
        return ended;
    }

    /** Sends {@code attach} on a fresh session of a raw connection (no SASL) and expects an end with {@code condition}. */
    private static void assertAttachEndsSession(Attach attach, Symbol condition) throws IOException {
        try (RawAmqpPeer peer = new RawAmqpPeer(broker.amqpPort())) {
            peer.writeHeader(ProtocolHeader.AMQP);
            peer.writeFrame(0, new Open().containerId("raw-peer"));
            assertEquals(ProtocolHeader.ID_AMQP, peer.readHeader().protocolId());
            Open open = peer.readUntil(Open.class);
            assertFalse(open.offeredCapabilities().contains(Capabilities.ANONYMOUS_RELAY), open.toString());
            assertEquals(60_000, open.idleTimeOutMillis(), open.toString());
            peer.writeFrame(0, new Begin().nextOutgoingId(0).incomingWindow(1000).outgoingWindow(1000)
                    .handleMax(65535));
            peer.readUntil(Begin.class);
            peer.writeFrame(0, attach);
            // readFrame fails after its 10 s deadline: an unanswered attach fails here rather than hanging.
            Object answer = peer.readFrame();
            End end = assertInstanceOf(End.class, answer, "answer to " + attach);
            assertTrue(end.error().is(condition), "answer to " + attach + ": " + end);
        }
    }
}
