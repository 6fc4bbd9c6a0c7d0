package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.attach.AttachEngineConfig;
import io.amqpservlet.jetty.internal.attach.AttachSettings;
import io.amqpservlet.jetty.internal.attach.AttachedLinks;
import io.amqpservlet.jetty.internal.attach.AttachmentState;
import io.amqpservlet.jetty.internal.attach.BrokerUri;
import io.amqpservlet.jetty.internal.attach.Reconnection;
import io.amqpservlet.jetty.internal.budget.ServerBudget;
import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.connection.ConnectionSettings;
import io.amqpservlet.jetty.internal.exchange.AttachedHandler;
import io.amqpservlet.jetty.internal.exchange.RequestAttributesCustomizer;
import io.amqpservlet.jetty.internal.exchange.ServingSettings;
import io.amqpservlet.jetty.internal.log.ErrorsSent;
import io.amqpservlet.connector.engine.EngineConfig;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.annotation.ManagedAttribute;
import org.eclipse.jetty.util.annotation.ManagedObject;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Attach mode (docs/attach.md): a Jetty {@link org.eclipse.jetty.server.Connector} that, instead of accepting
 * clients, connects out to an AMQP broker and consumes request messages from its queues, so that many gateways can
 * serve one queue as competing consumers, with the broker as load balancer and durable buffer.
 *
 * <p>Every request runs through the same mapping and the same {@code HttpChannel} path as on an
 * {@link AmqpConnectionFactory} listener: the same servlets, filters, security constraints and request attributes.
 * Its response goes to the request's {@code reply-to} through the broker, and the request is accepted only once the
 * broker has accepted the response, so a gateway that dies loses nothing the broker did not keep. Credit on each
 * request queue is the servlet capacity ({@link #setCredit}): a slow gateway takes less work, a fast one more.
 *
 * <pre>{@code
 * Server server = new Server();
 * AmqpBrokerAttachment orders = new AmqpBrokerAttachment(server);
 * orders.setUri("amqp://app:secret@broker1:5672,broker2:5672/orders");
 * server.addConnector(orders);
 * server.setHandler(servletContext);
 * server.start();
 * }</pre>
 *
 * <p>It connects to one broker of its list at a time, and when the connection fails or is lost, to the next, after
 * a delay that doubles from {@link #setReconnectDelay the minimum} up to the maximum, with jitter so that many
 * gateways do not all come back at the same instant. A graceful server stop takes the credit back, lets the
 * requests in flight finish and be settled, then closes.
 */
@ManagedObject("Attach mode: consumes request messages from a broker's queues")
public class AmqpBrokerAttachment extends AbstractConnector {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpBrokerAttachment.class);
    /** The IANA port of AMQP. */
    public static final int DEFAULT_PORT = 5672;
    /** The IANA port of AMQP over TLS. */
    public static final int DEFAULT_TLS_PORT = 5671;
    /** How long the broker has to answer an attach (and the whole connection to be set up), by default. */
    public static final long DEFAULT_ATTACH_TIMEOUT_MILLIS = 10_000;
    /** The first delay before connecting again, by default. */
    public static final long DEFAULT_MIN_RECONNECT_DELAY_MILLIS = 100;
    /** The longest delay before connecting again, by default. */
    public static final long DEFAULT_MAX_RECONNECT_DELAY_MILLIS = 30_000;
    /** How many reply senders (one per reply address, when the broker has no anonymous relay) are kept, by default. */
    public static final int DEFAULT_MAX_REPLY_LINKS = 64;
    /** How long an unused reply sender stays attached, by default. */
    public static final long DEFAULT_REPLY_LINK_IDLE_TIMEOUT_MILLIS = 30_000;

    private final AmqpConnectionFactory factory;
    private final ClientConnector client = new ClientConnector();
    private final List<BrokerUri.HostPort> brokers = new ArrayList<>();
    private final List<String> addresses = new ArrayList<>();
    private boolean tls;
    private SslContextFactory.Client sslContextFactory;
    private String username;
    private String password;
    private String saslMechanism;
    private String requestUser;
    private boolean trustUserId;
    private boolean atMostOnce;
    private int credit;
    private long attachTimeoutMillis = DEFAULT_ATTACH_TIMEOUT_MILLIS;
    private long minReconnectDelayMillis = DEFAULT_MIN_RECONNECT_DELAY_MILLIS;
    private long maxReconnectDelayMillis = DEFAULT_MAX_RECONNECT_DELAY_MILLIS;
    private int maxReplyLinks = DEFAULT_MAX_REPLY_LINKS;
    private long replyLinkIdleTimeoutMillis = DEFAULT_REPLY_LINK_IDLE_TIMEOUT_MILLIS;
    /** The engine's idle timeout on connections to the broker; -1 until set: the factory's then. */
    private long idleTimeoutMillis = -1;
    /** The attachment's own limits: counted, never refused (the broker's credit bounds what comes in). */
    private final ServerBudget budget = ServerBudget.withoutAddressLimits();
    /** The AMQP errors its connections sent their brokers, over every start and connection. */
    private final ErrorsSent errorsSent = new ErrorsSent();
    /** The connection over time; made at start from the settings above (null before). */
    private volatile Reconnection reconnection;

    /**
     * An attachment with a default {@link AmqpConnectionFactory}, whose settings (request timeout, limits) apply.
     *
     * @param server the server whose handler serves the requests
     */
    public AmqpBrokerAttachment(Server server) {
        this(server, new AmqpConnectionFactory());
    }

    /**
     * An attachment whose connections take their HTTP configuration, request timeout, response buffer, close timeout
     * and engine limits from {@code factory}. Give it a factory of its own rather than a listener's, so that the two
     * do not share one connection budget.
     *
     * @param server the server whose handler serves the requests
     * @param factory the settings of every connection this attachment makes
     */
    public AmqpBrokerAttachment(Server server, AmqpConnectionFactory factory) {
        super(server, null, null, null, 0, factory);
        this.factory = Objects.requireNonNull(factory, "factory");
        installBean(client);
    }

    // ------------------------------------------------------------------------------------------ configuration

    /**
     * Configures the brokers, credentials and request address from one URI:
     * {@code amqp[s]://[user[:password]@]host[:port][,host[:port]...]/address}. The hosts are the failover list,
     * tried in turn; user and password (percent-encoded) select SASL PLAIN, their absence SASL ANONYMOUS;
     * {@code amqps} means TLS (port 5671 by default). The path without its first {@code /} is a request address
     * (percent-decoded): {@code amqp://broker/orders} consumes {@code orders}, {@code amqp://rabbit//queue/orders}
     * consumes {@code /queue/orders}.
     *
     * @param uri the broker URI
     * @throws IllegalArgumentException when the URI is not of that form
     */
    public void setUri(String uri) {
        BrokerUri parsed = BrokerUri.parse(uri);
        brokers.clear();
        brokers.addAll(parsed.brokers());
        tls = parsed.secure();
        username = parsed.user();
        password = parsed.password();
        addresses.add(parsed.address());
    }

    /**
     * Adds a broker to the failover list.
     *
     * @param host the broker's host name or address
     * @param port its AMQP port
     */
    public void addBroker(String host, int port) {
        brokers.add(new BrokerUri.HostPort(Objects.requireNonNull(host, "host"), port));
    }

    /**
     * Adds a request address: a receiving link is attached to it on every connection.
     *
     * @param address the node to consume requests from, as the broker names it
     */
    public void addAddress(String address) {
        addresses.add(Objects.requireNonNull(address, "address"));
    }

    /**
     * The request addresses.
     *
     * @return the addresses consumed, in the order given
     */
    public List<String> getAddresses() {
        return List.copyOf(addresses);
    }

    /**
     * The brokers, as {@code host:port}, in the order they are tried.
     *
     * @return the failover list
     */
    public List<String> getBrokers() {
        List<String> names = new ArrayList<>();
        for (BrokerUri.HostPort b : brokers) {
            names.add(b.toString());
        }
        return names;
    }

    /**
     * Authenticates with SASL PLAIN; null for SASL ANONYMOUS.
     *
     * @param username the user at the broker, or null
     * @param password its password
     */
    public void setCredentials(String username, String password) {
        this.username = username;
        this.password = password;
    }

    /**
     * Authenticates with SASL EXTERNAL: the identity is the client certificate of the TLS connection (needs an
     * {@code amqps} URI and a key store, {@link #setKeyStore} or in {@link #setSslContextFactory the TLS
     * configuration}). Which broker user the certificate is, is the broker's mapping (docs/attach.md).
     *
     * @param external true for EXTERNAL, false for PLAIN or ANONYMOUS by the credentials
     */
    public void setSaslExternal(boolean external) {
        this.saslMechanism = external ? "EXTERNAL" : null;
    }

    /**
     * Connects with TLS, configured by {@code sslContextFactory} (trust store, client certificate, host name check).
     *
     * @param sslContextFactory the TLS configuration; null for the default one (the JVM's trust store)
     */
    public void setSslContextFactory(SslContextFactory.Client sslContextFactory) {
        updateBean(this.sslContextFactory, sslContextFactory);
        this.sslContextFactory = sslContextFactory;
        this.tls = true;
    }

    /**
     * The client certificate the attachment presents to the broker over TLS, for {@link #setSaslExternal SASL
     * EXTERNAL} or a broker that needs one: sets the key store of the TLS configuration (made on first use), for
     * configuration files that give it in parts. It does not turn TLS on: an {@code amqps} URI does.
     *
     * @param path the PKCS12 key store with the client's key and certificate; null to leave it as it is
     * @param password its password
     */
    public void setKeyStore(String path, String password) {
        if (path != null) {
            SslContextFactory.Client tlsConfiguration = tlsConfiguration();
            tlsConfiguration.setKeyStorePath(path);
            tlsConfiguration.setKeyStorePassword(password);
        }
    }

    /**
     * The certificates the broker's is checked against: sets the trust store of the TLS configuration (made on first
     * use); without one, the JVM's trust store. It does not turn TLS on: an {@code amqps} URI does.
     *
     * @param path the PKCS12 trust store; null to leave it as it is
     * @param password its password
     */
    public void setTrustStore(String path, String password) {
        if (path != null) {
            SslContextFactory.Client tlsConfiguration = tlsConfiguration();
            tlsConfiguration.setTrustStorePath(path);
            tlsConfiguration.setTrustStorePassword(password);
        }
    }

    /** The TLS configuration, made (without turning TLS on) when there is none yet. */
    private SslContextFactory.Client tlsConfiguration() {
        if (sslContextFactory == null) {
            sslContextFactory = new SslContextFactory.Client();
            addBean(sslContextFactory);
        }
        return sslContextFactory;
    }

    /**
     * Whether connections use TLS.
     *
     * @return true for TLS (an {@code amqps} URI or a TLS configuration)
     */
    public boolean isTls() {
        return tls;
    }

    /**
     * The user every request of this attachment is made by (the broker knows who sent a message, but the gateway
     * does not): servlets see it as the request's user; null (the default) for none.
     *
     * @param user the user name requests are authenticated as, or null
     */
    public void setRequestUser(String user) {
        this.requestUser = user;
    }

    /**
     * Makes each request's user the {@code user-id} of its message (AMQP 1.0 §3.2.4: the identity of the user that
     * produced it): {@code getUserPrincipal()}, {@code getRemoteUser()} and security constraints (through
     * {@link AmqpAuthenticator}) see that name, and {@code getAuthType()} reads
     * {@link AmqpAuthenticator#USER_ID_AUTH_TYPE}; a message without a user-id has no user. Its roles are those the
     * factory's {@link AmqpConnectionFactory#setExternalLoginService external login service} gives the name, none
     * without one.
     *
     * <p>Turn it on only when the broker validates the user-id of every message any producer puts on the request
     * queues (docs/attach.md, "Who sent it"): otherwise any producer can claim to be any user. Off by default; it
     * excludes {@link #setRequestUser}.
     *
     * @param trust true to take each request's user from its message's user-id
     */
    public void setTrustUserId(boolean trust) {
        this.trustUserId = trust;
    }

    /**
     * Whether each request's user is its message's user-id; see {@link #setTrustUserId}.
     *
     * @return true when the user-id is trusted
     */
    @ManagedAttribute("Whether each request's user is its message's user-id, which the broker validated")
    public boolean isTrustUserId() {
        return trustUserId;
    }

    /**
     * Serves requests at most once (off by default): request links ask the broker for pre-settled messages and
     * responses are sent pre-settled, so neither side sends or waits for an outcome and no request is served twice
     * (it is not faster through Artemis, docs/attach.md). It gives up what the default gives (docs/attach.md, "At most
     * once"): a request this gateway holds when it, its connection or the broker fails is lost rather than delivered
     * again, and a response the broker cannot route is dropped without the request going back to the queue. The
     * credit still bounds the requests here: it follows the requests being served.
     *
     * @param atMostOnce true to pre-settle requests and responses
     */
    public void setAtMostOnce(boolean atMostOnce) {
        this.atMostOnce = atMostOnce;
    }

    /**
     * Whether requests and responses are pre-settled; see {@link #setAtMostOnce}.
     *
     * @return true when requests are served at most once
     */
    @ManagedAttribute("Whether requests and responses are pre-settled (at most once)")
    public boolean isAtMostOnce() {
        return atMostOnce;
    }

    /**
     * Sets how many requests each request address may have in flight here: the credit kept on its receiving link,
     * counting requests being served and those whose response awaits the broker's outcome. 0 (the default) takes
     * half the server thread pool's maximum, or 8 when it has none.
     *
     * @param credit requests in flight per request address; 0 for the default
     */
    public void setCredit(int credit) {
        if (credit < 0) {
            throw new IllegalArgumentException("credit must not be negative: " + credit);
        }
        this.credit = credit;
    }

    /**
     * The configured credit per request address; see {@link #setCredit}.
     *
     * @return the configured credit, 0 for the default
     */
    @ManagedAttribute("The credit per request address (0: half the thread pool)")
    public int getCredit() {
        return credit;
    }

    /**
     * How long the broker has to answer each attach; one that does not is logged, and the connection is closed and
     * made again (a request link or the relay) or the reply sender dropped.
     *
     * @param millis the attach timeout in milliseconds, at least 1
     */
    public void setAttachTimeout(long millis) {
        if (millis < 1) {
            throw new IllegalArgumentException("attach timeout must be at least 1 ms: " + millis);
        }
        this.attachTimeoutMillis = millis;
    }

    /**
     * How long the broker has to answer each attach.
     *
     * @return the attach timeout in milliseconds
     */
    public long getAttachTimeout() {
        return attachTimeoutMillis;
    }

    /**
     * How long a connection to the broker may carry no frame at all before the attachment closes it and connects
     * again: how soon a broker that died without closing, or a network that drops every packet, is noticed. Half of it
     * is announced as the open's idle-time-out (AMQP 1.0 §2.4.5), and the broker sends an empty frame at least that
     * often when it has nothing else to send, so a quiet but healthy broker is never taken for a dead one. Until set,
     * the idle timeout of the {@link #getConnectionFactory() factory}'s engine (60 s by default). When the broker gives
     * up on a silent gateway (a hung process) is the broker's own setting, not this one (docs/attach.md).
     *
     * @param millis the idle timeout in milliseconds; 0 for none (nothing announced, silence never closes)
     */
    @Override
    public void setIdleTimeout(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("idle timeout must not be negative: " + millis);
        }
        super.setIdleTimeout(millis);
        this.idleTimeoutMillis = millis;
    }

    /**
     * How long a connection to the broker may carry no frame before it is closed and made again; see
     * {@link #setIdleTimeout}.
     *
     * @return the idle timeout in milliseconds, 0 for none
     */
    @Override
    @ManagedAttribute("How long the connection to the broker may carry no frame before it is made again, in ms (half "
            + "is announced to the broker)")
    public long getIdleTimeout() {
        return idleTimeoutMillis >= 0 ? idleTimeoutMillis : factory.getIdleTimeout();
    }

    /**
     * The delays before connecting again: the first failure waits about {@code minMillis}, each further one twice
     * as long, up to {@code maxMillis}; each delay is randomly shortened by up to half.
     *
     * @param minMillis the first delay in milliseconds, at least 1
     * @param maxMillis the longest delay in milliseconds, at least {@code minMillis}
     */
    public void setReconnectDelay(long minMillis, long maxMillis) {
        if (minMillis < 1 || maxMillis < minMillis) {
            throw new IllegalArgumentException("reconnect delays must be 1 <= min <= max: " + minMillis + ", "
                    + maxMillis);
        }
        this.minReconnectDelayMillis = minMillis;
        this.maxReconnectDelayMillis = maxMillis;
    }

    /**
     * The first delay before connecting again after a failure; see {@link #setReconnectDelay}.
     *
     * @return the delay in milliseconds
     */
    @ManagedAttribute("The first delay before connecting again after a failure, in ms")
    public long getMinReconnectDelay() {
        return minReconnectDelayMillis;
    }

    /**
     * The longest delay before connecting again; see {@link #setReconnectDelay}.
     *
     * @return the delay in milliseconds
     */
    @ManagedAttribute("The longest delay before connecting again, in ms")
    public long getMaxReconnectDelay() {
        return maxReconnectDelayMillis;
    }

    /**
     * Sets how many reply senders may be attached at once when the broker offers no anonymous relay (one per reply
     * address); a response to a new address when all of them wait for outcomes goes back to the queue.
     *
     * @param max the most reply senders, at least 1
     */
    public void setMaxReplyLinks(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max reply links must be at least 1: " + max);
        }
        this.maxReplyLinks = max;
    }

    /**
     * How many reply senders may be attached at once.
     *
     * @return the most reply senders
     */
    public int getMaxReplyLinks() {
        return maxReplyLinks;
    }

    /**
     * Sets how long a reply sender with nothing in flight stays attached.
     *
     * @param millis the idle time in milliseconds, at least 1
     */
    public void setReplyLinkIdleTimeout(long millis) {
        if (millis < 1) {
            throw new IllegalArgumentException("reply link idle timeout must be at least 1 ms: " + millis);
        }
        this.replyLinkIdleTimeoutMillis = millis;
    }

    /**
     * How long a reply sender with nothing in flight stays attached.
     *
     * @return the idle time in milliseconds
     */
    public long getReplyLinkIdleTimeout() {
        return replyLinkIdleTimeoutMillis;
    }

    /**
     * The connection factory whose settings this attachment's connections take.
     *
     * @return the factory given at construction
     */
    public AmqpConnectionFactory getConnectionFactory() {
        return factory;
    }

    /**
     * Whether a connection to a broker is up with every request link attached.
     *
     * @return true while attached
     */
    @ManagedAttribute("Whether a connection to a broker is up with every request link attached")
    public boolean isAttached() {
        return getState().equals(AttachmentState.ATTACHED.name());
    }

    /**
     * Where the attachment is: {@code STOPPED}, {@code CONNECTING}, {@code ATTACHED} or {@code BACKING_OFF} (waiting
     * to connect again after a failure).
     *
     * @return the state's name
     */
    @ManagedAttribute("STOPPED, CONNECTING, ATTACHED or BACKING_OFF")
    public String getState() {
        Reconnection r = reconnection;
        return (r == null ? AttachmentState.STOPPED : r.state()).name();
    }

    /**
     * The broker connected to now, or to be tried next.
     *
     * @return {@code host:port}, or null before the attachment started
     */
    @ManagedAttribute("The broker connected to now, or tried next")
    public String getBroker() {
        Reconnection r = reconnection;
        return r == null ? null : r.broker();
    }

    /**
     * How many connections this attachment has made (the first and every reconnection), for monitoring.
     *
     * @return the number of connection attempts that reached a broker
     */
    @ManagedAttribute("Connections made to a broker since the start, reconnections included")
    public long getConnectCount() {
        Reconnection r = reconnection;
        return r == null ? 0 : r.connectCount();
    }

    /**
     * Failed or lost connections since the attachment was last attached.
     *
     * @return the number of failures in a row; 0 while attached
     */
    @ManagedAttribute("Failed or lost connections since the last time attached")
    public int getFailures() {
        Reconnection r = reconnection;
        return r == null ? 0 : r.failures();
    }

    /**
     * Why the last connection to a broker could not be made or ended, as the warning logged then says: TLS failed
     * (the broker's alert, such as {@code certificate_required}, or a certificate this side does not trust), the
     * broker's close and its error, a connection refused or reset. A broker that refuses TLS and closes at once may
     * reset the connection before its alert is read: then the reset is all there is to say. It stays after the
     * attachment is attached again, so it tells why the last reconnection was needed.
     *
     * @return the reason, or null if no connection has failed since the start
     */
    @ManagedAttribute("Why the last connection to a broker could not be made or ended (null if none has)")
    public String getLastFailure() {
        Reconnection r = reconnection;
        return r == null ? null : r.lastFailure();
    }

    /**
     * The delay before the next connection attempt, while backing off.
     *
     * @return the delay in milliseconds of the current (or last) wait; 0 once attached
     */
    @ManagedAttribute("The delay before connecting again, in ms (0 once attached)")
    public long getReconnectDelay() {
        Reconnection r = reconnection;
        return r == null ? 0 : r.delayMillis();
    }

    /**
     * The requests being served on the current connection.
     *
     * @return the number of requests dispatched and not yet ended; 0 when not connected
     */
    @ManagedAttribute("Requests being served on the current connection")
    public int getActiveRequests() {
        Reconnection r = reconnection;
        return r != null && r.connection() instanceof AmqpConnection c ? c.getActiveRequests() : 0;
    }

    /**
     * The most requests the broker could have had out to this attachment at once, on any of its connections: credit
     * granted plus requests not yet settled (at most once: being served or held), sampled as requests arrive and are
     * settled. More than the credit times the number of request addresses only when a broker sent beyond the credit
     * ({@link #getRequestsBeyondCredit()}).
     *
     * @return the high-water mark of outstanding requests
     */
    @ManagedAttribute("The most requests out to this attachment at once (credit plus unsettled)")
    public int getMostOutstanding() {
        Reconnection r = reconnection;
        return r == null ? 0 : r.mostOutstanding();
    }

    /**
     * Requests the broker sent beyond the credit, on any of this attachment's connections (RabbitMQ 3 does now and
     * then): at least once each is released to the queue unserved; at most once, pre-settled, each waits for a
     * servlet (docs/attach.md). Counted as requests arrive, so one released while none follows is counted with the
     * next.
     *
     * @return how many requests came beyond the credit since the start
     */
    @ManagedAttribute("Requests the broker sent beyond the credit (released at least once, held at most once)")
    public long getRequestsBeyondCredit() {
        Reconnection r = reconnection;
        return r == null ? 0 : r.beyondCredit();
    }

    /**
     * The bytes this attachment's connections buffer now: request bodies a servlet has not read yet, responses not
     * yet written to the broker. They count in the attachment's own byte budget, not its factory's (whose
     * {@link AmqpConnectionFactory#getBufferedBytes()} counts that factory's listener connections only).
     *
     * @return the bytes buffered now
     */
    @ManagedAttribute("Bytes its connections buffer now: request bodies unread, responses unwritten")
    public long getBufferedBytes() {
        return budget.getBufferedBytes() - budget.stateBytes(); // its one connection's sessions and links: no buffer
    }

    /**
     * The AMQP errors this attachment's connections closed with, sending them to the broker: {@code
     * amqp:connection:forced} when it closes to connect again (a request link or the relay ended, an attach not
     * answered in time, a broker that sends beyond the credit) or at a stop, an error it found in what the broker sent
     * ({@code amqp:decode-error}, {@code amqp:connection:framing-error}, ...), the broker's silence past the idle
     * timeout ({@code amqp:resource-limit-exceeded}). Counted only when a close went out: a connection that ends
     * before there is an AMQP connection to close (a broker that refuses the login, a handshake that does not finish)
     * sent the broker nothing. A close the broker sends is its own and not counted.
     *
     * @return the number of closes with an error since the attachment was made, by condition
     */
    @ManagedAttribute("Connections to brokers closed with an AMQP error since the start, by condition")
    public Map<String, Long> getConnectionErrorsSent() {
        return errorsSent.byCondition(ErrorsSent.Scope.CONNECTION);
    }

    /**
     * The AMQP errors this side ended sessions with, for what the broker sent on them ({@code
     * amqp:session:unattached-handle}, {@code amqp:session:window-violation}, ...).
     *
     * @return the number of sessions ended here with an error since the attachment was made, by condition
     */
    @ManagedAttribute("Sessions with brokers ended with an AMQP error since the start, by condition")
    public Map<String, Long> getSessionErrorsSent() {
        return errorsSent.byCondition(ErrorsSent.Scope.SESSION);
    }

    /**
     * The AMQP errors this side detached links with, for what the broker sent on them (a transfer that breaks
     * AMQP's rules), or refused a link the broker attached with ({@code amqp:not-allowed}: the attachment attaches
     * the links it uses). A request over the size limit is not here: it is rejected alone, its link kept.
     *
     * @return the number of links detached or refused here with an error since the attachment was made, by condition
     */
    @ManagedAttribute("Links with brokers detached or refused with an AMQP error since the start, by condition")
    public Map<String, Long> getLinkErrorsSent() {
        return errorsSent.byCondition(ErrorsSent.Scope.LINK);
    }

    /**
     * How many AMQP errors of {@code condition} this attachment's connections sent their brokers in {@code scope},
     * as the maps of {@link #getConnectionErrorsSent()}, {@link #getSessionErrorsSent()} and
     * {@link #getLinkErrorsSent()} count them.
     *
     * @param scope     {@code connection}, {@code session} or {@code link}
     * @param condition the error's condition, such as {@code amqp:connection:forced}
     * @return the number sent since the attachment was made; 0 for none
     * @throws IllegalArgumentException for another scope
     */
    public long getErrorsSent(String scope, String condition) {
        return errorsSent.count(ErrorsSent.Scope.ofTag(scope), condition);
    }

    /**
     * Tells {@code kind} of each scope ({@code connection}, {@code session}, {@code link}) and condition that an
     * error was sent to a broker in so far, then of each new one as its first error is sent, on the thread sending
     * it: how meters of the errors ({@link #getErrorsSent(String, String)}) are made as they come.
     *
     * @param kind told the scope and the condition
     */
    public void watchErrorsSent(BiConsumer<String, String> kind) {
        Objects.requireNonNull(kind, "kind");
        errorsSent.watch((scope, condition) -> kind.accept(scope.tag(), condition));
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    @Override
    public Object getTransport() {
        return client;
    }

    @Override
    protected void accept(int acceptorId) {
        throw new UnsupportedOperationException("an attachment connects out: it has no acceptors");
    }

    @Override
    protected void doStart() throws Exception {
        if (brokers.isEmpty()) {
            throw new IllegalStateException("no broker to attach to: setUri or addBroker");
        }
        if (addresses.isEmpty()) {
            throw new IllegalStateException("no request address to consume: setUri or addAddress");
        }
        if (tls && (sslContextFactory == null)) {
            setSslContextFactory(new SslContextFactory.Client());
        }
        if ("EXTERNAL".equals(saslMechanism) && !tls) {
            throw new IllegalStateException("SASL EXTERNAL needs TLS with a client certificate");
        }
        if ("EXTERNAL".equals(saslMechanism) && username != null) {
            throw new IllegalStateException("SASL EXTERNAL logs in with the client certificate: the URI names a user "
                    + "too (" + username + ")");
        }
        if (trustUserId && requestUser != null) {
            throw new IllegalStateException("a request user and a trusted user-id exclude each other: the request "
                    + "user would be every request's, the user-id each message's own");
        }
        client.setExecutor(getExecutor());
        client.setScheduler(getScheduler());
        client.setByteBufferPool(getByteBufferPool());
        client.setConnectTimeout(java.time.Duration.ofMillis(attachTimeoutMillis));
        client.setIdleTimeout(java.time.Duration.ZERO); // the AMQP engine has its own idle timeout and heartbeats
        if (tls) {
            client.setSslContextFactory(sslContextFactory);
        }
        // Settings made once: each connection of this start takes them whole.
        List<ConnectionSettings> perBroker = new ArrayList<>();
        ServingSettings serving = factory.servingSettings();
        var httpConfiguration = RequestAttributesCustomizer.configurationFor(factory.getHttpConfiguration());
        java.util.function.Function<String, ConnectionSettings> settingsFor = hostname -> new ConnectionSettings(
                newEngineConfig().hostname(hostname), httpConfiguration, false, factory.getCloseTimeout(),
                factory.getWriteCoalescing() * 1_000, budget, serving);
        for (BrokerUri.HostPort broker : brokers) {
            perBroker.add(settingsFor.apply(broker.host()));
        }
        AttachSettings links = new AttachSettings(addresses, effectiveCredit(), attachTimeoutMillis, maxReplyLinks,
                replyLinkIdleTimeoutMillis, atMostOnce, serving.peerLog());
        Request.AuthenticationState user = requestUser == null ? null
                : serving.users().authenticationOf(requestUser, false);
        boolean trust = trustUserId;
        super.doStart();
        Reconnection r = new Reconnection(brokers, client, tls ? sslContextFactory : null, getScheduler(),
                // Where a broker redirected to (index -1) is set up as the listed brokers are, for its hostname.
                (endPoint, broker, index, hostname, owner) -> newConnection(endPoint, broker, index >= 0
                        ? perBroker.get(index) : settingsFor.apply(hostname != null ? hostname : broker.host()),
                        new AttachedLinks(links, owner, errorsSent, "broker " + broker, NanoTime.now() / 1_000_000L), user,
                        trust),
                minReconnectDelayMillis, maxReconnectDelayMillis);
        reconnection = r;
        r.start();
    }

    /** The credit each request link is kept at. */
    private int effectiveCredit() {
        if (credit > 0) {
            return credit;
        }
        if (getExecutor() instanceof ThreadPool.SizedThreadPool pool && pool.getMaxThreads() > 1) {
            return pool.getMaxThreads() / 2;
        }
        return 8;
    }

    private EngineConfig newEngineConfig() {
        // A request larger than the limit announced on the request links is rejected alone (a broker dead-letters
        // it) rather than ending the link: on a new link the queue would deliver it again, and again.
        return AttachEngineConfig.of(factory.getEngineConfig(), getIdleTimeout(),
                effectiveCredit() * addresses.size(), "EXTERNAL".equals(saslMechanism), username, password)
                .rejectTooLargeMessages(true);
    }

    /** A connection to {@code broker}: an initiator engine, requests taken from the broker's queues. */
    private Connection newConnection(EndPoint endPoint, BrokerUri.HostPort broker, ConnectionSettings settings,
                                     AttachedLinks links, Request.AuthenticationState user, boolean trustUserId) {
        AmqpConnection c = factory.configureAttached(new AmqpConnection(this, endPoint, settings,
                (connection, inbox, share, secure) -> new AttachedHandler(settings.serving(), connection, inbox, share,
                        links, user, trustUserId)), this, endPoint);
        c.addEventListener(new Connection.Listener() {
            @Override
            public void onOpened(Connection connection) {
                onEndPointOpened(endPoint);
            }

            @Override
            public void onClosed(Connection connection) {
                onEndPointClosed(endPoint);
            }
        });
        if (LOG.isDebugEnabled()) {
            LOG.debug("connection to {} made: {}", broker, c);
        }
        return c;
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        stopConnecting();
        return super.shutdown();
    }

    @Override
    protected void doStop() throws Exception {
        Connection c = stopConnecting();
        if (c != null) {
            c.getEndPoint().close();
        }
        super.doStop();
    }

    /** No further connection attempt; returns the connection open now, or null. */
    private Connection stopConnecting() {
        Reconnection r = reconnection;
        return r == null ? null : r.stop();
    }

    @Override
    public String toString() {
        return "AmqpBrokerAttachment" + getBrokers() + addresses;
    }
}
