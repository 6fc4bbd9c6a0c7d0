package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.budget.Limit;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.eclipse.jetty.http.HostPortHttpField;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the clients that connect to a listener (an {@code AmqpConnectionFactory}): keeps credit open on the links
 * they send requests on, answers each request on the reply node its reply-to names on the connection, and settles
 * the request once its response is on its way. A connection over a connection limit (server-wide or of its source
 * address) is opened and closed at once (AMQP 1.0 §2.4.2).
 */
public final class ListenerHandler extends ServingHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerHandler.class);

    /** The identity TLS established for SASL EXTERNAL (the certificate's subject), or null. */
    private String externalIdentity;
    private String openHostname;

    public ListenerHandler(ServingSettings settings, ConnectionMetaData connection, EngineInbox inbox,
                           BudgetShare budget, boolean secure) {
        super(settings, connection, inbox, budget, secure);
    }

    @Override
    public void engineStarting(long streamIdleTimeoutMillis, String externalIdentity) {
        super.engineStarting(streamIdleTimeoutMillis, externalIdentity);
        this.externalIdentity = externalIdentity;
    }

    @Override
    public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        openHostname = remoteOpen.hostname().isNull() ? null : hostOrNull(remoteOpen.hostname().toString());
        long qpidJmsHeartbeat = settings.qpidJmsHeartbeatMillis();
        if (qpidJmsHeartbeat > 0 && ClientProduct.isQpidJms(remoteOpen)) {
            engine.advertiseIdleTimeoutMillis(qpidJmsHeartbeat); // its unflushed writes wait for a heartbeat
        }
        Limit refused = budget.opened();
        if (refused != null) {
            // AMQP 1.0 §2.4.2: a refused connection is answered with open, then closed with the reason, which names
            // the limit (server-wide or of the client's source address).
            return new ErrorCondition().condition(ErrorConditions.RESOURCE_LIMIT_EXCEEDED)
                    .description(budget.refusal(refused));
        }
        return null;
    }

    @Override
    public void onAuthenticated(Engine engine, String identity) {
        authenticatedAs(settings.users().authenticationOf(identity,
                identity != null && identity.equals(externalIdentity)));
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        if (!link.isSender()) {
            // The client sends requests on this link: credit is the back-pressure (docs/design.md §5). Messages of
            // several frames stream in (StreamedRequest), so a large body never sits whole here.
            link.streaming(true).autoCredit(settings.linkCredit());
        }
        return null; // sending links are reply links; the engine has resolved their nodes
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        if (error != null && LOG.isDebugEnabled()) {
            LOG.debug("AMQP connection {} ended: {}", engine, error);
        }
    }

    @Override
    String openHostname() {
        return openHostname;
    }

    /** The reply node {@code replyTo} names on this connection, or null. */
    @Override
    Link replyRoute(Engine engine, byte[] replyTo) {
        return engine.replyLink(replyTo, 0, replyTo.length);
    }

    /**
     * Whether the request's reply link already holds as many unsent responses as the engine lets it buffer, or the
     * connection's sending links together hold as many bytes (docs/design.md §5).
     */
    @Override
    boolean replyBufferFull(Engine engine, Exchange exchange) {
        if (!exchange.wantsResponse()) {
            return false;
        }
        Link replies = replyLink(engine, exchange);
        return replies != null && (replies.queued() >= engine.config().maxBufferedMessagesPerLink()
                || engine.queuedBytes() >= engine.config().maxBufferedBytesPerConnection());
    }

    @Override
    void answered(Engine engine, Link replies, Delivery response, Delivery request, boolean timedOut) {
        if (timedOut) {
            engine.release(request); // a request that timed out gets a 503 and is released
        } else {
            engine.accept(request); // 404 and 500 are responses too: the request was processed
        }
    }

    /** The reply-to names nothing on this connection: rejected, {@code amqp:not-found}. */
    @Override
    void unanswerable(Engine engine, Exchange exchange, Delivery request, String address) {
        engine.reject(request, ErrorConditions.NOT_FOUND, "reply-to " + address
                + " is not a reply node on this connection");
    }

    /**
     * {@return {@code hostname}, or null when it is no host[:port]}: the open's hostname is only a hint (AMQP 1.0
     * §2.7.1), and RabbitMQ's clients put a virtual host there ({@code vhost:/}); a request of such a connection
     * falls back to the server name rather than being refused with 400. Checked once per connection.
     */
    private static String hostOrNull(String hostname) {
        // A port that is not digits is refused before Jetty's parser, which would log a warning per connection.
        int colon = hostname.lastIndexOf(':');
        if (colon >= 0 && colon > hostname.lastIndexOf(']')) {
            for (int i = colon + 1; i < hostname.length(); i++) {
                if (hostname.charAt(i) < '0' || hostname.charAt(i) > '9') {
                    return null;
                }
            }
        }
        try {
            new HostPortHttpField(hostname);
            return hostname;
        } catch (IllegalArgumentException | HttpException.RuntimeException notAHost) {
            return null;
        }
    }
}
