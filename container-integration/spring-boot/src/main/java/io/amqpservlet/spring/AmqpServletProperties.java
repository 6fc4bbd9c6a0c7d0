package io.amqpservlet.spring;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.AmqpServerBudget;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings of the AMQP connector the starter adds to Boot's embedded Jetty, under {@code amqp.servlet}: every
 * setting of {@code AmqpConnectionFactory} and {@code AmqpBrokerAttachment} (docs/spring-boot.md has the table).
 * Setting {@code amqp.servlet.port} adds the listener, setting {@code amqp.servlet.attach.uri} a broker attachment,
 * and each {@code amqp.servlet.attachments.<name>.uri} one more.
 *
 * <p>The defaults are the connector library's own (AmqpServletPropertiesTest checks they stay so); they are written
 * out here so that the configuration metadata, and so an IDE, shows them.
 */
@ConfigurationProperties("amqp.servlet")
public class AmqpServletProperties {
    /** The address the AMQP listener binds to; all addresses when unset. */
    private String host;

    /** The AMQP listener's port (5672 is AMQP's IANA port, 0 a free one); no listener when unset. */
    private Integer port;

    /** Acceptor threads of the listener; -1 lets Jetty choose by the number of cores. */
    private int acceptors = -1;

    /** Selector threads of the listener; -1 lets Jetty choose by the number of cores. */
    private int selectors = -1;

    /** The Host of requests that name none (no http:host or host application-property, no open hostname). */
    private String serverName = "localhost";

    /** Requests each link a client sends on may have in flight: the credit kept open on it. */
    private int linkCredit = 100;

    /**
     * How long a controller may take to answer; then the client gets a 503 and the request is released (in attach
     * mode accepted, so that the broker does not deliver it again). 0: none.
     */
    private Duration requestTimeout = Duration.ofSeconds(30);

    /** How long a client has to answer our close (graceful stop, idle timeout) before it is dropped. */
    private Duration closeTimeout = Duration.ofSeconds(5);

    /**
     * How long a connection (the listener's and the attachment's) holds a ready response back while it still serves
     * others, so that they leave in one write; 0: never. At most 1s.
     */
    private Duration writeCoalescing = Duration.ofNanos(AmqpConnectionFactory.DEFAULT_WRITE_COALESCING_MICROS * 1_000);

    /** The most of a response without Content-Length held back so that it goes as one data section. */
    private DataSize responseBufferSize = DataSize.ofMegabytes(16);

    /**
     * The idle-time-out announced to Qpid JMS clients, so that they flush the end of an upload they hold back; 0
     * treats them as other clients.
     */
    private Duration qpidJmsHeartbeat = Duration.ofSeconds(1);

    /**
     * A connection that sends nothing, not even a heartbeat, for this long is closed; the open frame announces half
     * of it (AMQP 1.0 §2.4.5).
     */
    private Duration idleTimeout = Duration.ofSeconds(60);

    /**
     * Properties the server's open offers (AMQP 1.0 §2.7.1). RabbitMQ 4's AMQP 1.0 clients want product=RabbitMQ,
     * version=4.0.0 and a node.
     */
    private Map<String, String> connectionProperties = new LinkedHashMap<>();

    private final Limits limits = new Limits();

    private final Sasl sasl = new Sasl();

    private final Ssl ssl = new Ssl();

    private final Attach attach = new Attach();

    /**
     * Broker attachments by name, besides or instead of amqp.servlet.attach: each takes every setting the single one
     * has (uri required), with the same defaults. A name is letters, digits, '-' and '_'; its attachment's connector
     * is amqp-attach-{name}, its health amqpAttachments/{name}.
     */
    private Map<String, Attach> attachments = new LinkedHashMap<>();

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public int getAcceptors() {
        return acceptors;
    }

    public void setAcceptors(int acceptors) {
        this.acceptors = acceptors;
    }

    public int getSelectors() {
        return selectors;
    }

    public void setSelectors(int selectors) {
        this.selectors = selectors;
    }

    public String getServerName() {
        return serverName;
    }

    public void setServerName(String serverName) {
        this.serverName = serverName;
    }

    public int getLinkCredit() {
        return linkCredit;
    }

    public void setLinkCredit(int linkCredit) {
        this.linkCredit = linkCredit;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public Duration getCloseTimeout() {
        return closeTimeout;
    }

    public Duration getWriteCoalescing() {
        return writeCoalescing;
    }

    public void setWriteCoalescing(Duration writeCoalescing) {
        this.writeCoalescing = writeCoalescing;
    }

    public void setCloseTimeout(Duration closeTimeout) {
        this.closeTimeout = closeTimeout;
    }

    public DataSize getResponseBufferSize() {
        return responseBufferSize;
    }

    public void setResponseBufferSize(DataSize responseBufferSize) {
        this.responseBufferSize = responseBufferSize;
    }

    public Duration getQpidJmsHeartbeat() {
        return qpidJmsHeartbeat;
    }

    public void setQpidJmsHeartbeat(Duration qpidJmsHeartbeat) {
        this.qpidJmsHeartbeat = qpidJmsHeartbeat;
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    public Map<String, String> getConnectionProperties() {
        return connectionProperties;
    }

    public void setConnectionProperties(Map<String, String> connectionProperties) {
        this.connectionProperties = connectionProperties;
    }

    public Limits getLimits() {
        return limits;
    }

    public Sasl getSasl() {
        return sasl;
    }

    public Ssl getSsl() {
        return ssl;
    }

    public Attach getAttach() {
        return attach;
    }

    public Map<String, Attach> getAttachments() {
        return attachments;
    }

    public void setAttachments(Map<String, Attach> attachments) {
        this.attachments = attachments;
    }

    /** What one peer, and all of them together, may take of the server (docs/jetty.md, "Server-wide limits"). */
    public static class Limits {
        /** The most AMQP connections open at once; one more is opened, then closed with resource-limit-exceeded. */
        private int maxConnections = 4096;

        /** The most connections between accept and the client's open; one more is closed at once. */
        private int maxHandshakingConnections = 256;

        /**
         * The most AMQP connections one source address (an IPv4 address, an IPv6 /64) keeps open at once, so that one
         * machine cannot take every connection; one more is opened, then closed with resource-limit-exceeded. 0: no
         * limit.
         */
        private int maxConnectionsPerAddress = AmqpServerBudget.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;

        /**
         * The most connections one source address may have between accept and its open; past it that address's oldest
         * stalled handshake ends to make room, or the new connection is closed. 0: no limit.
         */
        private int maxHandshakesPerAddress = AmqpServerBudget.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;

        /**
         * The failed SASL logins one source address may have in a burst, and again per failed-logins-window; past it
         * a login from that address is refused with sasl-outcome sys-temp before its password is checked. A
         * successful login costs nothing. 0: no limit.
         */
        private int maxFailedLoginsPerAddress = AmqpServerBudget.DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS;

        /**
         * The time in which a source address's allowance of failed logins refills whole, one coming back every
         * window divided by max-failed-logins-per-address; at most a day.
         */
        private Duration failedLoginsWindow = Duration.ofMillis(AmqpServerBudget.DEFAULT_FAILED_LOGINS_WINDOW_MILLIS);

        /**
         * The bytes all connections together may buffer (request bodies not yet read, responses not yet written);
         * while they are used up, no credit is granted and new requests are released.
         */
        private DataSize maxBufferedBytes = DataSize.ofMegabytes(64);

        /** The encoded bytes each connection keeps ahead of its socket; past it, responses wait. */
        private DataSize maxPendingOutputBytes = DataSize.ofKilobytes(256);

        /** The largest frame a client may send (AMQP 1.0 §2.7.1 max-frame-size; at least 512 bytes). */
        private DataSize maxFrameSize = DataSize.ofKilobytes(64);

        /** The highest channel (session) number a client may use (AMQP 1.0 §2.7.1 channel-max). */
        private int channelMax = 255;

        /** The highest link handle a client may use in a session (AMQP 1.0 §2.7.2 handle-max). */
        private int handleMax = 1023;

        /**
         * The links a client may have on one connection, all its sessions together; an attach past it ends its
         * session with resource-limit-exceeded.
         */
        private int maxLinksPerConnection = 1024;

        /**
         * The names and termini (addresses, capabilities, filters) a client's attaches may leave on one connection's
         * links, all its sessions together; an attach past it ends its session with resource-limit-exceeded.
         */
        private DataSize maxLinkBytesPerConnection = DataSize.ofKilobytes(32);

        /** The largest request message, across all its transfer frames. */
        private DataSize maxMessageSize = DataSize.ofMegabytes(16);

        /** Requests one connection may have unsettled at once. */
        private int maxDeliveriesInFlight = 1024;

        /**
         * A session's incoming window in transfer frames (AMQP 1.0 §2.5.6): with the frame size, what a request body
         * whose controller does not read may buffer per session.
         */
        private int sessionIncomingWindowFrames = 16;

        /** Responses held for one reply link whose client grants no credit; a request past it is released. */
        private int maxBufferedMessagesPerLink = 1024;

        /** Response bytes held across the reply links of one connection; a request past it is released. */
        private DataSize maxBufferedBytesPerConnection = DataSize.ofMegabytes(8);

        /**
         * Responses one connection may have sent and its client not yet settled; a request past it is released.
         */
        private int maxUnsettledSentDeliveries = 16_384;

        /**
         * The shortest idle-time-out a client may announce in its open: the server sends something every half of it
         * (AMQP 1.0 §2.4.5). A client that announces less gets the server's open, then a close with
         * resource-limit-exceeded.
         */
        private Duration minPeerIdleTimeout = Duration.ofMillis(100);

        /**
         * How long a frame may stay incomplete after its first byte (0: no limit); past it the connection is closed
         * with resource-limit-exceeded.
         */
        private Duration partialFrameTimeout = Duration.ofSeconds(30);

        /**
         * The most lists, maps, arrays and described values a client's frames and typed request bodies may nest at
         * once; a frame nested deeper closes the connection, a request body nested deeper is rejected, with
         * decode-error.
         */
        private int maxDecodeDepth = 64;

        /**
         * The most elements one list, map or array a client sends may declare (a map's keys and values each count);
         * past it, as past max-decode-depth.
         */
        private int maxDecodeElements = 1 << 20;

        public int getMaxConnections() {
            return maxConnections;
        }

        public void setMaxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
        }

        public int getMaxHandshakingConnections() {
            return maxHandshakingConnections;
        }

        public void setMaxHandshakingConnections(int maxHandshakingConnections) {
            this.maxHandshakingConnections = maxHandshakingConnections;
        }

        public int getMaxConnectionsPerAddress() {
            return maxConnectionsPerAddress;
        }

        public void setMaxConnectionsPerAddress(int maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
        }

        public int getMaxHandshakesPerAddress() {
            return maxHandshakesPerAddress;
        }

        public void setMaxHandshakesPerAddress(int maxHandshakesPerAddress) {
            this.maxHandshakesPerAddress = maxHandshakesPerAddress;
        }

        public int getMaxFailedLoginsPerAddress() {
            return maxFailedLoginsPerAddress;
        }

        public void setMaxFailedLoginsPerAddress(int maxFailedLoginsPerAddress) {
            this.maxFailedLoginsPerAddress = maxFailedLoginsPerAddress;
        }

        public Duration getFailedLoginsWindow() {
            return failedLoginsWindow;
        }

        public void setFailedLoginsWindow(Duration failedLoginsWindow) {
            this.failedLoginsWindow = failedLoginsWindow;
        }

        public DataSize getMaxBufferedBytes() {
            return maxBufferedBytes;
        }

        public void setMaxBufferedBytes(DataSize maxBufferedBytes) {
            this.maxBufferedBytes = maxBufferedBytes;
        }

        public DataSize getMaxPendingOutputBytes() {
            return maxPendingOutputBytes;
        }

        public void setMaxPendingOutputBytes(DataSize maxPendingOutputBytes) {
            this.maxPendingOutputBytes = maxPendingOutputBytes;
        }

        public DataSize getMaxFrameSize() {
            return maxFrameSize;
        }

        public void setMaxFrameSize(DataSize maxFrameSize) {
            this.maxFrameSize = maxFrameSize;
        }

        public int getChannelMax() {
            return channelMax;
        }

        public void setChannelMax(int channelMax) {
            this.channelMax = channelMax;
        }

        public int getHandleMax() {
            return handleMax;
        }

        public void setHandleMax(int handleMax) {
            this.handleMax = handleMax;
        }

        public int getMaxLinksPerConnection() {
            return maxLinksPerConnection;
        }

        public void setMaxLinksPerConnection(int maxLinksPerConnection) {
            this.maxLinksPerConnection = maxLinksPerConnection;
        }

        public DataSize getMaxLinkBytesPerConnection() {
            return maxLinkBytesPerConnection;
        }

        public void setMaxLinkBytesPerConnection(DataSize maxLinkBytesPerConnection) {
            this.maxLinkBytesPerConnection = maxLinkBytesPerConnection;
        }

        public DataSize getMaxMessageSize() {
            return maxMessageSize;
        }

        public void setMaxMessageSize(DataSize maxMessageSize) {
            this.maxMessageSize = maxMessageSize;
        }

        public int getMaxDeliveriesInFlight() {
            return maxDeliveriesInFlight;
        }

        public void setMaxDeliveriesInFlight(int maxDeliveriesInFlight) {
            this.maxDeliveriesInFlight = maxDeliveriesInFlight;
        }

        public int getSessionIncomingWindowFrames() {
            return sessionIncomingWindowFrames;
        }

        public void setSessionIncomingWindowFrames(int sessionIncomingWindowFrames) {
            this.sessionIncomingWindowFrames = sessionIncomingWindowFrames;
        }

        public int getMaxBufferedMessagesPerLink() {
            return maxBufferedMessagesPerLink;
        }

        public void setMaxBufferedMessagesPerLink(int maxBufferedMessagesPerLink) {
            this.maxBufferedMessagesPerLink = maxBufferedMessagesPerLink;
        }

        public DataSize getMaxBufferedBytesPerConnection() {
            return maxBufferedBytesPerConnection;
        }

        public void setMaxBufferedBytesPerConnection(DataSize maxBufferedBytesPerConnection) {
            this.maxBufferedBytesPerConnection = maxBufferedBytesPerConnection;
        }

        public int getMaxUnsettledSentDeliveries() {
            return maxUnsettledSentDeliveries;
        }

        public void setMaxUnsettledSentDeliveries(int maxUnsettledSentDeliveries) {
            this.maxUnsettledSentDeliveries = maxUnsettledSentDeliveries;
        }

        public Duration getPartialFrameTimeout() {
            return partialFrameTimeout;
        }

        public void setPartialFrameTimeout(Duration partialFrameTimeout) {
            this.partialFrameTimeout = partialFrameTimeout;
        }

        public Duration getMinPeerIdleTimeout() {
            return minPeerIdleTimeout;
        }

        public void setMinPeerIdleTimeout(Duration minPeerIdleTimeout) {
            this.minPeerIdleTimeout = minPeerIdleTimeout;
        }

        public int getMaxDecodeDepth() {
            return maxDecodeDepth;
        }

        public void setMaxDecodeDepth(int maxDecodeDepth) {
            this.maxDecodeDepth = maxDecodeDepth;
        }

        public int getMaxDecodeElements() {
            return maxDecodeElements;
        }

        public void setMaxDecodeElements(int maxDecodeElements) {
            this.maxDecodeElements = maxDecodeElements;
        }
    }

    /** How clients authenticate (AMQP 1.0 §5.3). */
    public static class Sasl {
        /** Whether SASL ANONYMOUS is offered: a client without credentials is served as no user. */
        private boolean anonymous = true;

        /** Whether a client must start with SASL; false also serves clients that skip it, as anonymous. */
        private boolean required = false;

        /**
         * Whether SASL PLAIN is offered, checked by Spring Security's authentication manager (when the application
         * has Spring Security, or a PlainAuthenticator bean).
         */
        private boolean plain = true;

        /**
         * Whether SASL EXTERNAL is offered to TLS clients that present a certificate (amqp.servlet.ssl.client-auth
         * want or need): the certificate's subject DN is the user.
         */
        private boolean external = false;

        /** How long a client has from connecting to the end of SASL. */
        private Duration timeout = Duration.ofSeconds(10);

        public boolean isAnonymous() {
            return anonymous;
        }

        public void setAnonymous(boolean anonymous) {
            this.anonymous = anonymous;
        }

        public boolean isRequired() {
            return required;
        }

        public void setRequired(boolean required) {
            this.required = required;
        }

        public boolean isPlain() {
            return plain;
        }

        public void setPlain(boolean plain) {
            this.plain = plain;
        }

        public boolean isExternal() {
            return external;
        }

        public void setExternal(boolean external) {
            this.external = external;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** TLS on the listener (AMQPS), from a Boot SSL bundle (spring.ssl.bundle.*). */
    public static class Ssl {
        /** The SSL bundle whose key and trust material the listener uses; plain TCP when unset. */
        private String bundle;

        /** Whether the listener asks clients for a certificate (for SASL EXTERNAL). */
        private ClientAuth clientAuth = ClientAuth.NONE;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        public ClientAuth getClientAuth() {
            return clientAuth;
        }

        public void setClientAuth(ClientAuth clientAuth) {
            this.clientAuth = clientAuth;
        }
    }

    /** Whether a TLS listener asks its clients for a certificate. */
    public enum ClientAuth {
        /** No certificate is asked for. */
        NONE,
        /** A certificate is asked for; a client without one is still served. */
        WANT,
        /** A client without a trusted certificate fails the TLS handshake. */
        NEED
    }

    /**
     * Attach mode: the application consumes a broker's request queue (docs/attach.md). The settings of
     * {@code amqp.servlet.attach} and of each {@code amqp.servlet.attachments.<name>}.
     */
    public static class Attach {
        /**
         * The brokers and queue: amqp[s]://[user:password@]host[:port][,host[:port]...]/queue. The hosts are a
         * failover list; user and password select SASL PLAIN, else ANONYMOUS. Under amqp.servlet.attach: no attachment
         * when unset; under amqp.servlet.attachments.{name}: required.
         */
        private String uri;

        /**
         * Requests of the queue in flight here at once (served, or awaiting the broker's outcome of their response):
         * the credit the broker is given. 0: half the thread pool's maximum.
         */
        private int credit = 0;

        /** The user controllers see on these requests; none when unset. */
        private String requestUser;

        /**
         * Whether requests and responses are pre-settled (at most once): never served twice, but a request this application holds
         * when it, its connection or the broker fails is lost rather than delivered again.
         */
        private boolean atMostOnce = false;

        /** How long a controller may take to answer a request of the queue; the listener's request timeout when unset. */
        private Duration requestTimeout;

        /** How long the broker has to answer each attach (and the TCP connect). */
        private Duration attachTimeout = Duration.ofSeconds(10);

        /** The first delay before connecting again after a failure; it doubles per failure, with jitter. */
        private Duration minReconnectDelay = Duration.ofMillis(100);

        /** The longest delay before connecting again. */
        private Duration maxReconnectDelay = Duration.ofSeconds(30);

        /** Reply senders kept at once when the broker offers no anonymous relay (one per reply address). */
        private int maxReplyLinks = 64;

        /** How long an unused reply sender stays attached. */
        private Duration replyLinkIdleTimeout = Duration.ofSeconds(30);

        /** Whether to authenticate to the broker with SASL EXTERNAL (the client certificate of the SSL bundle). */
        private boolean saslExternal = false;

        /** The SSL bundle an amqps:// attachment trusts the broker with (and presents a key from); the JVM's when unset. */
        private String sslBundle;

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }

        public int getCredit() {
            return credit;
        }

        public void setCredit(int credit) {
            this.credit = credit;
        }

        public String getRequestUser() {
            return requestUser;
        }

        public void setRequestUser(String requestUser) {
            this.requestUser = requestUser;
        }

        public boolean isAtMostOnce() {
            return atMostOnce;
        }

        public void setAtMostOnce(boolean atMostOnce) {
            this.atMostOnce = atMostOnce;
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        public Duration getAttachTimeout() {
            return attachTimeout;
        }

        public void setAttachTimeout(Duration attachTimeout) {
            this.attachTimeout = attachTimeout;
        }

        public Duration getMinReconnectDelay() {
            return minReconnectDelay;
        }

        public void setMinReconnectDelay(Duration minReconnectDelay) {
            this.minReconnectDelay = minReconnectDelay;
        }

        public Duration getMaxReconnectDelay() {
            return maxReconnectDelay;
        }

        public void setMaxReconnectDelay(Duration maxReconnectDelay) {
            this.maxReconnectDelay = maxReconnectDelay;
        }

        public int getMaxReplyLinks() {
            return maxReplyLinks;
        }

        public void setMaxReplyLinks(int maxReplyLinks) {
            this.maxReplyLinks = maxReplyLinks;
        }

        public Duration getReplyLinkIdleTimeout() {
            return replyLinkIdleTimeout;
        }

        public void setReplyLinkIdleTimeout(Duration replyLinkIdleTimeout) {
            this.replyLinkIdleTimeout = replyLinkIdleTimeout;
        }

        public boolean isSaslExternal() {
            return saslExternal;
        }

        public void setSaslExternal(boolean saslExternal) {
            this.saslExternal = saslExternal;
        }

        public String getSslBundle() {
            return sslBundle;
        }

        public void setSslBundle(String sslBundle) {
            this.sslBundle = sslBundle;
        }
    }
}
