package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.connector.engine.Session;
import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.budget.Limit;
import io.amqpservlet.jetty.internal.log.ErrorsSent;
import io.amqpservlet.jetty.internal.log.PeerLog;
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
 *
 * <p>What an operator reads of its clients (docs/jetty.md, "Logs"): each connection's open and close at DEBUG, with
 * the peer's address and container-id (and at the open its product and user); a failed login, a connection we
 * closed for what the peer did, a session we ended or a link we detached with an error, and a refusal by a
 * connection limit or by the limit of failed logins per source address, at INFO, one line each, within the factory's {@link PeerLog} allowance. Every error we send in
 * a close, an end or a detach is counted in the factory's {@link ErrorsSent}.
 */
public final class ListenerHandler extends ServingHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerHandler.class);
    /** The most characters of a peer's text (a container-id, a link name) a log line shows. */
    private static final int PEER_TEXT_CHARS = 200;

    private final ErrorsSent errorsSent;

    /** The identity TLS established for SASL EXTERNAL (the certificate's subject), or null. */
    private String externalIdentity;
    private String openHostname;
    /** The client's container-id, as log lines and Jetty's dump show it; read on other threads. */
    private volatile String containerId;
    /** The AMQP error the connection ended with (its close's), or null: read at the close, on Jetty's thread. */
    private volatile String closeError;
    /** This connection's end has a line of its own already (a refusal, a failed login): no peer-error line then. */
    private boolean explained;
    /** This connection's login was refused before its credentials were looked at (its address failed too often). */
    private boolean loginRefused;

    public ListenerHandler(ServingSettings settings, ErrorsSent errorsSent, ConnectionMetaData connection,
                           EngineInbox inbox, BudgetShare budget, boolean secure) {
        super(settings, connection, inbox, budget, secure);
        this.errorsSent = errorsSent;
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
            String why = budget.refusal(refused);
            explained = true; // its close is counted when the connection ends (onClosed), as every close is
            if (LOG.isInfoEnabled()) {
                long leftOut = settings.peerLog().permit(PeerLog.Kind.REFUSAL);
                if (leftOut >= 0) {
                    LOG.info("AMQP connection from {} refused: {}{}", peerAddress(), why, PeerLog.leftOut(leftOut));
                }
            }
            return new ErrorCondition().condition(ErrorConditions.RESOURCE_LIMIT_EXCEEDED).description(why);
        }
        containerId = PeerLog.text(remoteOpen.containerId().toString(), PEER_TEXT_CHARS);
        if (LOG.isDebugEnabled()) {
            String product = ClientProduct.of(remoteOpen);
            LOG.debug("AMQP connection from {} open: container-id {}, product {}, user {}", peerAddress(),
                    containerId, product != null ? PeerLog.text(product, PEER_TEXT_CHARS) : "(none)",
                    engine.identity());
        }
        return null;
    }

    /**
     * A login starts: its source address must have a failed login left ({@code maxFailedLoginsPerAddress}), else it
     * is refused before its credentials are looked at, so a password guesser learns nothing from it.
     */
    @Override
    public String onSaslInit(Engine engine, String mechanism) {
        String refusal = budget.loginStarting();
        loginRefused = refusal != null;
        return refusal;
    }

    @Override
    public void onAuthenticationFailed(Engine engine, String mechanism, String reason) {
        explained = true;
        if (loginRefused) {
            // A refusal by a limit: one line within the refusals' allowance (a guesser's flood of them is one kind).
            if (LOG.isInfoEnabled()) {
                long leftOut = settings.peerLog().permit(PeerLog.Kind.REFUSAL);
                if (leftOut >= 0) {
                    LOG.info("AMQP login from {} refused: {}{}{}", peerAddress(), reason,
                            mechanism == null ? "" : " (" + mechanism + ")", PeerLog.leftOut(leftOut));
                }
            }
            return;
        }
        if (LOG.isInfoEnabled()) {
            long leftOut = settings.peerLog().permit(PeerLog.Kind.FAILED_LOGIN);
            if (leftOut >= 0) {
                LOG.info("AMQP login from {} failed: {}{}{}", peerAddress(), reason,
                        mechanism == null ? "" : " (" + mechanism + ")", PeerLog.leftOut(leftOut));
            }
        }
    }

    @Override
    public void onAuthenticated(Engine engine, String identity) {
        budget.loginSucceeded(); // only failed logins count against the address
        authenticatedAs(settings.users().authenticationOf(identity,
                identity != null && identity.equals(externalIdentity)));
    }

    /**
     * A session the client begins is refused ({@code amqp:resource-limit-exceeded}) while the byte budget is used up
     * for this connection and it has {@link BudgetShare#SESSIONS_ANYWAY} already: sessions count in it
     * ({@link BudgetShare#SESSION_BYTES}).
     */
    @Override
    public ErrorCondition onSessionBegin(Session session) {
        Engine engine = session.engine();
        return engine.sessionCount() <= BudgetShare.SESSIONS_ANYWAY ? null : budgetRefusal(engine, "session");
    }

    /**
     * A link the client attaches ends its session instead ({@code amqp:resource-limit-exceeded}, which frees the
     * session's links) while the byte budget is used up for this connection and it has
     * {@link BudgetShare#LINKS_ANYWAY} links already: links count in it ({@link BudgetShare#LINK_BYTES}).
     */
    @Override
    public String onLinkAttaching(Session session) {
        Engine engine = session.engine();
        if (engine.linkCount() < BudgetShare.LINKS_ANYWAY) {
            return null;
        }
        ErrorCondition refused = budgetRefusal(engine, "link");
        return refused == null ? null : refused.description().toString();
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

    /**
     * {@code amqp:resource-limit-exceeded} for a new {@code what} while the byte budget is used up (counting the
     * connection's sessions and links as they are now, the new one among them), else null.
     */
    private ErrorCondition budgetRefusal(Engine engine, String what) {
        String used = budget.exhaustedWithState(BudgetShare.stateBytes(engine.sessionCount(), engine.linkCount(),
                engine.unsettledIncoming() + engine.unsettledSent()));
        if (used == null) {
            return null;
        }
        String why = used.equals("server") ? "the server's byte budget is used up (maxBufferedBytes)"
                : "the connections of your address hold half the server's byte budget (maxBufferedBytes)";
        return new ErrorCondition().condition(ErrorConditions.RESOURCE_LIMIT_EXCEEDED)
                .description("no new " + what + ": " + why);
    }

    /** A session we ended with an error (a session error of the peer's, a limit): counted, and one INFO line. */
    @Override
    public void onSessionEnd(Session session, ErrorCondition error) {
        super.onSessionEnd(session, error);
        if (error != null && session.endedHere()) {
            endedHere(ErrorsSent.Scope.SESSION, error, "session " + session.remoteChannel(), "ended");
        }
    }

    /**
     * A link we detached, or whose attach we refused, with an error (a message over the size limit, a reply node
     * that does not exist, ...): counted, and one INFO line.
     */
    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        super.onLinkDetach(link, error);
        if (error != null && link.endedHere()) {
            endedHere(ErrorsSent.Scope.LINK, error,
                    "link '" + PeerLog.text(link.name().toString(), PEER_TEXT_CHARS) + "'", "detached");
        }
    }

    /** {@code what} (a session, a link) ended here with {@code error}: counted, and one line within the allowance. */
    private void endedHere(ErrorsSent.Scope scope, ErrorCondition error, String what, String ended) {
        errorsSent.sent(scope, error.condition().toString());
        if (LOG.isInfoEnabled()) {
            long leftOut = settings.peerLog().permit(PeerLog.Kind.PEER_ERROR);
            if (leftOut >= 0) {
                LOG.info("AMQP {} from {} {}: {} {}{}", what, peerAddress(), ended, error.condition(),
                        error.description(), PeerLog.leftOut(leftOut));
            }
        }
    }

    /**
     * The AMQP connection ended. When we ended it for something the peer did (a protocol violation, a handshake or
     * idle timeout), that is one INFO line, within the peer-error allowance; a close the peer sent with an error,
     * our graceful stop's, a refusal and a failed login (logged already) are not.
     */
    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        if (error == null) {
            return;
        }
        String why = error.condition() + " " + error.description();
        closeError = why;
        boolean peerSent = error == engine.remoteError();
        if (!peerSent) {
            errorsSent.sent(ErrorsSent.Scope.CONNECTION, error.condition().toString());
        }
        if (!explained && !peerSent && !error.is(ErrorConditions.CONNECTION_FORCED) && LOG.isInfoEnabled()) {
            long leftOut = settings.peerLog().permit(PeerLog.Kind.PEER_ERROR);
            if (leftOut >= 0) {
                LOG.info("AMQP connection from {} closed: {}{}", peerAddress(), why, PeerLog.leftOut(leftOut));
            }
        }
    }

    @Override
    public void transportClosed(Throwable cause) {
        super.transportClosed(cause);
        if (LOG.isDebugEnabled()) {
            String error = closeError;
            String id = containerId;
            LOG.debug("AMQP connection from {} closed: container-id {}, requests: {}, {}", peerAddress(),
                    id != null ? id : "(no open)", messagesIn(),
                    error != null ? error : cause != null ? cause.toString() : "no error");
        }
    }

    @Override
    public String containerId() {
        return containerId;
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
     * Whether the request's reply link already holds as many unsent responses as the engine lets it buffer, the
     * connection's sending links together hold as many bytes, or the client has as many responses it has not settled
     * as the engine keeps (docs/design.md §5).
     */
    @Override
    boolean replyBufferFull(Engine engine, Exchange exchange) {
        if (!exchange.wantsResponse()) {
            return false;
        }
        Link replies = replyLink(engine, exchange);
        return replies != null && (replies.queued() >= engine.config().maxBufferedMessagesPerLink()
                || engine.queuedBytes() >= engine.config().maxBufferedBytesPerConnection()
                || engine.unsettledSentFull());
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
