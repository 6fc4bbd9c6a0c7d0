package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.engine.EngineHandler;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.internal.log.ErrorsSent;
import io.amqpservlet.jetty.internal.log.PeerLog;
import io.amqpservlet.jetty.internal.mapping.MappedRequest;
import io.amqpservlet.jetty.internal.mapping.RequestMapper;
import io.amqpservlet.jetty.internal.mapping.ResponseEncoder;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.ClientConnector;

import java.io.ByteArrayOutputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A broker attachment's side of one connection to a broker, in memory, for the fuzz targets and their seeds: an
 * initiator engine configured as the attachment configures it ({@link AttachEngineConfig}, the default factory's
 * limits), and the attachment's own link rules ({@link AttachedLinks}, with a {@link Reconnection} that is
 * connecting), called as {@code AttachedHandler} calls them. Where the attachment hands a request to Jetty, this
 * maps it with the real {@link RequestMapper} and answers at once, as a servlet that returns 200 would: the response
 * ({@link ResponseEncoder}) goes on the link {@link AttachedLinks#replyLink} gives, and the request is settled once
 * the broker settles the response ({@link AttachedLinks#awaitOutcome}); a request without a reply-to is accepted.
 *
 * <p>What it does not run: Jetty's {@code HttpChannel}, servlet threads and the connection's inbox (the answer is
 * synchronous here, on the engine thread).
 */
final class FuzzedAttachment implements EngineHandler {
    static final String USER = "gateway";
    static final String PASSWORD = "gateway-password";
    /** Two request queues, credit 4 each, at most 2 reply senders (so eviction is reachable), default timeouts. */
    static final AttachSettings SETTINGS = new AttachSettings(List.of("requests", "orders"), 4,
            AmqpBrokerAttachment.DEFAULT_ATTACH_TIMEOUT_MILLIS, 2,
            AmqpBrokerAttachment.DEFAULT_REPLY_LINK_IDLE_TIMEOUT_MILLIS, false, new PeerLog());
    private static final EngineConfig FACTORY_DEFAULTS = new AmqpConnectionFactory().getEngineConfig();
    /** Connects nowhere: the reconnection stays connecting, as it is while a connection is being set up. */
    private static final ClientConnector NO_NETWORK = new ClientConnector() {
        @Override
        public void connect(SocketAddress address, Map<String, Object> context) {
        }
    };
    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

    final AttachedLinks links;
    final Reconnection reconnection;
    private final RequestMapper mapper = new RequestMapper(false);
    private final MappedRequest mapped = new MappedRequest();
    private final MessageView streamedView = new MessageView();
    private final ResponseEncoder encoder = new ResponseEncoder();
    private final HttpFields responseHeaders = HttpFields.build().add("content-type", "text/plain").asImmutable();
    private ByteArrayOutputStream streamed;
    private Delivery streamedDelivery;
    /** The fuzz clock, set by the driver before each engine call. */
    long nowMillis;
    int requests;
    int responses;
    int unanswerable;
    int malformed;

    FuzzedAttachment(long nowMillis) {
        this.nowMillis = nowMillis;
        this.reconnection = new Reconnection(List.of(new BrokerUri.HostPort("broker", 5672)),
                NO_NETWORK, null, null, (endPoint, broker, index, hostname, owner) -> null,
                AmqpBrokerAttachment.DEFAULT_MIN_RECONNECT_DELAY_MILLIS,
                AmqpBrokerAttachment.DEFAULT_MAX_RECONNECT_DELAY_MILLIS);
        reconnection.start();
        this.links = new AttachedLinks(SETTINGS, reconnection, new ErrorsSent(), "broker fuzz", nowMillis);
    }

    /** The attachment's engine configuration, with SASL PLAIN (user and password given) or ANONYMOUS. */
    static EngineConfig config(boolean plain) {
        int capacity = SETTINGS.credit() * SETTINGS.addresses().size();
        return AttachEngineConfig.of(FACTORY_DEFAULTS, FACTORY_DEFAULTS.idleTimeoutMillis(), capacity, false,
                        plain ? USER : null, PASSWORD)
                .hostname("broker").trace(false);
    }

    /** What the connection's pass does after each read: the engine's timers, then the attachment's deadlines. */
    void tick(Engine engine, long now) {
        nowMillis = now;
        engine.tick(now);
        links.tick(engine, now);
    }

    @Override
    public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        links.opened(engine, remoteOpen, nowMillis);
        return null;
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        return links.linkAttached(link, remoteAttach);
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        if (streamedDelivery != null && streamedDelivery.link() == link) {
            streamed = null;
            streamedDelivery = null;
        }
        links.linkDetached(link.session().engine(), link, error);
    }

    @Override
    public void onSessionEnd(Session session, ErrorCondition error) {
        links.sessionEnded(session, error);
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        links.outcome(link.session().engine(), delivery);
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        Engine engine = link.session().engine();
        links.sampleOutstanding(engine);
        requests++;
        serve(engine, link, delivery, message);
    }

    @Override
    public void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length, boolean last) {
        Engine engine = link.session().engine();
        if (streamedDelivery != delivery) {
            links.sampleOutstanding(engine);
            requests++;
            streamed = new ByteArrayOutputStream();
            streamedDelivery = delivery;
        }
        streamed.write(payload, offset, length);
        if (last) {
            byte[] message = streamed.toByteArray();
            streamed = null;
            streamedDelivery = null;
            try {
                streamedView.wrap(message, 0, message.length);
            } catch (DecodeException e) {
                rejectMalformed(engine, delivery, e.getMessage());
                return;
            }
            serve(engine, link, delivery, streamedView);
        }
    }

    @Override
    public void onMessageAborted(Link link, Delivery delivery) {
        if (streamedDelivery == delivery) {
            streamed = null;
            streamedDelivery = null;
        }
    }

    /** Mapped as every request is, then answered at once (200, or the mapper's refusal), or settled as the attachment does. */
    private void serve(Engine engine, Link link, Delivery delivery, MessageView message) {
        Delivery request = delivery.remotelySettled() ? null : delivery;
        mapped.clear();
        try {
            mapper.map(message, link, null, "gateway", 8192, 0L, false, mapped);
        } catch (DecodeException | IllegalArgumentException e) {
            if (request != null) {
                rejectMalformed(engine, request, e.getMessage());
            }
            return;
        }
        byte[] address = mapped.replyTo();
        if (address == null) {
            if (request != null) {
                engine.accept(request); // one-way, answered 2xx: accepted
            }
            return;
        }
        // AttachedHandler: $me names no link pair here; any other reply-to goes through the broker.
        Link replies = mapped.replyToPaired() ? null : links.replyLink(address, nowMillis);
        if (replies == null) {
            unanswerable++;
            if (request == null) {
                return;
            }
            if (mapped.replyToPaired()) {
                engine.reject(request, ErrorConditions.NOT_FOUND, "reply-to $me names no reply node");
            } else {
                engine.modified(request, true, false); // back to the queue
            }
            return;
        }
        encoder.begin(mapped.refusedStatus() != 0 ? mapped.refusedStatus() : 200, responseHeaders, address,
                mapped.correlationId());
        encoder.data(ByteBuffer.wrap(OK));
        encoder.end();
        Delivery sent;
        try {
            sent = replies.send(encoder.array(), encoder.offset(), encoder.length(), false);
        } catch (IllegalArgumentException tooLarge) {
            if (request != null) {
                engine.modified(request, true, true); // larger than the broker's max-message-size
            }
            return;
        }
        if (sent == null) {
            if (request != null) {
                engine.modified(request, true, false); // the reply link buffers too many responses
            }
            return;
        }
        responses++;
        if (request != null) {
            links.awaitOutcome(replies, sent, request);
        }
    }

    private void rejectMalformed(Engine engine, Delivery delivery, String why) {
        malformed++;
        engine.reject(delivery, ErrorConditions.DECODE_ERROR, why);
    }
}
