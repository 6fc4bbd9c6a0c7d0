package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A broker in memory, talking to a {@link FuzzedAttachment}, whose every byte to the attachment is recorded: the
 * seeds and handshake prefixes of the attachment's fuzz targets. The broker is our own acceptor engine: it answers
 * SASL, open, begin and the attaches, delivers request messages on the queues' links when asked, and settles the
 * responses it receives as told. Without the anonymous relay ({@code relay} false) the capability's name is changed
 * in the recorded open (same length), so the attachment answers on a sender per reply address, as it does with a
 * broker that offers none (RabbitMQ 3).
 */
final class BrokerConversation implements EngineHandler {
    static final long START_MILLIS = 1_000;
    private static final byte[] RELAY = "ANONYMOUS-RELAY".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NO_RELAY = "ANONYMOUS-NONE!".getBytes(StandardCharsets.US_ASCII);

    final FuzzedAttachment attachment;
    final Engine gateway;
    private final Engine broker;
    private final boolean relay;
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    /** The broker's ends of the request links (its senders), in attach order. */
    final List<Link> queues = new ArrayList<>();
    /** Responses the broker received and has not settled. */
    final List<Delivery> responses = new ArrayList<>();
    /** The outcomes the attachment gave the broker's request deliveries, in order. */
    final List<DeliveryState.Kind> requestOutcomes = new ArrayList<>();
    /** The errors of the links the attachment detached, in order (null for none). */
    final List<String> detachErrors = new ArrayList<>();
    /** Whether the broker accepts each response as it arrives. */
    boolean acceptResponses = true;

    BrokerConversation(boolean plain, boolean relay) {
        this(plain, relay, new EngineConfig().handleMax());
    }

    /** @param handleMax the broker's handle-max (its begin): the highest handle the attachment may use */
    BrokerConversation(boolean plain, boolean relay, int handleMax) {
        this.relay = relay;
        EngineConfig brokerConfig = new EngineConfig().role(EngineConfig.Role.ACCEPTOR).containerId("broker")
                .handleMax(handleMax)
                .anonymousAllowed(true)
                .plainAuthenticator((authzid, user, password) -> FuzzedAttachment.USER.equals(user)
                        && FuzzedAttachment.PASSWORD.equals(password) ? user : null)
                .trace(false);
        broker = new Engine(brokerConfig, this);
        attachment = new FuzzedAttachment(START_MILLIS);
        gateway = new Engine(FuzzedAttachment.config(plain), attachment);
        broker.start(START_MILLIS);
        gateway.start(START_MILLIS);
        pump();
        if (!gateway.isOpen() || queues.size() != FuzzedAttachment.SETTINGS.addresses().size()) {
            throw new IllegalStateException("the attachment did not attach to the broker: " + gateway);
        }
    }

    /** The broker delivers a request on queue {@code queue}: subject, to, reply-to (null: one-way) and a body. */
    BrokerConversation request(int queue, String method, String to, String replyTo, String body) {
        AmqpWriter out = new AmqpWriter(256);
        MessageWriter message = new MessageWriter().wrap(out);
        message.startProperties().messageId(queues.get(queue).deliveryCount() + 1L);
        if (to != null) {
            message.to(to);
        }
        message.subject(method);
        if (replyTo != null) {
            message.replyTo(replyTo);
        }
        message.contentType("text/plain");
        message.endProperties();
        message.startApplicationProperties().put("x-request", "seed").endApplicationProperties();
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        message.data(b, 0, b.length);
        message.end();
        queues.get(queue).send(out.array(), out.start(), out.length(), false);
        pump();
        return this;
    }

    /** The broker settles the responses it holds with {@code accepted} or released. */
    BrokerConversation settleResponses(boolean accepted) {
        for (Delivery d : responses) {
            if (accepted) {
                broker.accept(d);
            } else {
                broker.release(d);
            }
        }
        responses.clear();
        pump();
        return this;
    }

    /** The broker attaches a link of its own on the attachment's session: a sender ({@code sender}) or a receiver. */
    Link brokerAttaches(boolean sender) {
        Session session = queues.get(0).session();
        Link link = sender ? session.attachSender("broker-link", "anywhere")
                : session.attachReceiver("broker-link", "anywhere");
        pump();
        return link;
    }

    /** {@return the broker's end of the connection} */
    Engine broker() {
        return broker;
    }

    /** The broker closes the connection. */
    BrokerConversation close() {
        broker.close();
        pump();
        return this;
    }

    /** {@return every byte the broker sent so far, as the attachment read it} */
    byte[] recorded() {
        return sent.toByteArray();
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        if (link.isSender()) {
            queues.add(link);
        } else {
            link.autoCredit(16); // the relay or a reply address: responses come in
        }
        return null;
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        requestOutcomes.add(delivery.remoteState().kind());
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        detachErrors.add(error == null ? null : error.condition().toString());
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        if (acceptResponses) {
            broker.accept(delivery);
        } else {
            responses.add(delivery);
        }
    }

    private void pump() {
        boolean moved = true;
        for (int round = 0; moved; round++) {
            if (round > 1_000) {
                throw new IllegalStateException("the engines never went quiet");
            }
            moved = false;
            ByteBuffer out = gateway.beginFlush();
            if (out != null) {
                broker.ingest(out, START_MILLIS);
                gateway.endFlush();
                moved = true;
            }
            out = broker.beginFlush();
            if (out != null) {
                byte[] b = new byte[out.remaining()];
                out.get(b);
                broker.endFlush();
                if (!relay) {
                    replaceRelay(b);
                }
                sent.writeBytes(b);
                gateway.ingest(b, 0, b.length, START_MILLIS);
                moved = true;
            }
        }
    }

    /** The attachment must see what the recording holds: the open without the relay when {@code relay} is false. */
    private static void replaceRelay(byte[] b) {
        for (int i = 0; i + RELAY.length <= b.length; i++) {
            if (Arrays.equals(b, i, i + RELAY.length, RELAY, 0, RELAY.length)) {
                System.arraycopy(NO_RELAY, 0, b, i, NO_RELAY.length);
            }
        }
    }
}
