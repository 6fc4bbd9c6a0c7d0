package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.jetty.internal.budget.ServerBudget;
import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.internal.connection.ConnectionHandlers;
import io.amqpservlet.jetty.internal.connection.ConnectionSettings;
import io.amqpservlet.jetty.internal.exchange.ListenerHandler;
import io.amqpservlet.jetty.internal.exchange.RequestAttributesCustomizer;
import io.amqpservlet.jetty.internal.exchange.RequestCounters;
import io.amqpservlet.jetty.internal.exchange.SaslUsers;
import io.amqpservlet.jetty.internal.exchange.ServingSettings;
import io.amqpservlet.jetty.internal.log.ErrorsSent;
import io.amqpservlet.jetty.internal.log.PeerLog;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.security.LoginService;
import org.eclipse.jetty.server.AbstractConnectionFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.annotation.ManagedAttribute;
import org.eclipse.jetty.util.annotation.ManagedObject;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * A Jetty {@link org.eclipse.jetty.server.ConnectionFactory} for protocol {@code "amqp"}: each accepted connection
 * becomes an AMQP connection that speaks AMQP 1.0 (as the acceptor) and turns request messages into HTTP
 * requests for the server's handler tree, so servlets, filters, security constraints and request logs serve AMQP
 * clients unchanged.
 *
 * <pre>{@code
 * ServerConnector amqp = new ServerConnector(server, new AmqpConnectionFactory());
 * amqp.setPort(5672);
 * server.addConnector(amqp);
 * }</pre>
 *
 * <p>The {@link EngineConfig} given here is a template shared by every connection: its role is forced to
 * {@link EngineConfig.Role#ACCEPTOR}, and a {@link PlainAuthenticator} set with
 * {@link #setPlainAuthenticator(PlainAuthenticator)} is installed in it. Configure it before the server starts; an
 * engine reads its configuration once, when its connection opens.
 *
 * <p>It is also a {@link ConnectionFactory.Detecting}: in a {@code DetectorConnectionFactory} it claims the
 * connections that start with {@code "AMQP"}, so HTTP and AMQP can share one port (see {@link #detect}). And it is an
 * {@link HttpConfiguration.ConnectionFactory}, so Jetty code that configures the HTTP side of a connector finds its
 * configuration: {@code AbstractConnectionFactory.getFactories(sslContextFactory, amqp)}, for one, adds the
 * {@code SecureRequestCustomizer} that makes AMQPS requests secure ({@code https} scheme, TLS attributes).
 *
 * <p>Settings are read when a connection is made: the factory builds them once, and again after a setter changed one,
 * and each connection takes them whole; a connection made before the change keeps what it had. Under Jetty's
 * {@code MBeanContainer} the factory shows its limits and what became of its connections and requests, and its
 * {@link #getServerBudget() budget} and {@link #getConnections() connections} are beans of it.
 */
@ManagedObject("AMQP 1.0 connection factory: serves the server's handlers to AMQP request/response clients")
public class AmqpConnectionFactory extends AbstractConnectionFactory
        implements ConnectionFactory.Detecting, HttpConfiguration.ConnectionFactory {
    /** The protocol name Jetty's connector uses to find this factory. */
    public static final String PROTOCOL = "amqp";

    private final HttpConfiguration httpConfiguration;
    private final EngineConfig engineConfig;
    private String serverName = "localhost";
    private int linkCredit = 100;
    private boolean saslExternal;
    private LoginService externalLoginService;
    private final GracefulAmqpConnections connections = new GracefulAmqpConnections();
    private long requestTimeoutMillis = DEFAULT_REQUEST_TIMEOUT_MILLIS;
    private long closeTimeoutMillis = DEFAULT_CLOSE_TIMEOUT_MILLIS;
    private long qpidJmsHeartbeatMillis = DEFAULT_QPID_JMS_HEARTBEAT_MILLIS;
    private long writeCoalescingMicros = DEFAULT_WRITE_COALESCING_MICROS;
    /** Log lines its peers cause, limited across all its connections (the budget's refusals among them). */
    private final PeerLog peerLog = new PeerLog();
    private final ErrorsSent errorsSent = new ErrorsSent();
    private final AmqpServerBudget budget = new AmqpServerBudget(new ServerBudget(peerLog));
    private final RequestCounters counters = new RequestCounters();
    /** The settings connections are made with now; null after a setter changed one (built again when next needed). */
    private volatile Settings settings;

    private int responseBufferBytes = DEFAULT_RESPONSE_BUFFER_BYTES;

    /**
     * The default {@link #setResponseBufferSize response buffer}: 16 MiB, the engine's default max-message-size,
     * so that every response a client could have received whole before responses streamed still comes whole.
     */
    public static final int DEFAULT_RESPONSE_BUFFER_BYTES = 16 * 1024 * 1024;

    /** The default {@link #setCloseTimeout close timeout}: 5 seconds. */
    public static final long DEFAULT_CLOSE_TIMEOUT_MILLIS = 5_000;
    /** The default of {@link #setQpidJmsHeartbeatMillis}. */
    public static final long DEFAULT_QPID_JMS_HEARTBEAT_MILLIS = 1_000;

    /** The default {@link #setRequestTimeout request timeout}: 30 seconds. */
    public static final long DEFAULT_REQUEST_TIMEOUT_MILLIS = 30_000;

    /** The default {@link #setWriteCoalescing write coalescing}: 200 microseconds. */
    public static final long DEFAULT_WRITE_COALESCING_MICROS = 200;

    /** The longest {@link #setWriteCoalescing write coalescing}: one second. */
    public static final long MAX_WRITE_COALESCING_MICROS = 1_000_000;

    /**
     * The session incoming window, in frames, this factory's default engine configuration uses and the gateway
     * sets: 16 frames of 64 KiB, 1 MiB, is what a request whose servlet does not read can have buffered per session
     * beyond the unread threshold (docs/jetty.md, "Streaming"); the engine's own default (2,048 frames) would allow
     * 128 MiB. The window is reopened at half used, so a client that keeps sending never waits for it; Qpid JMS
     * 2.10 streams a 16 MB body through it as fast as through 256 frames (QpidJmsUploadWindowTest).
     */
    public static final int STREAMING_SESSION_WINDOW_FRAMES = 16;

    /**
     * A factory with default HTTP and engine configurations; SASL ANONYMOUS is allowed, and so is a client that
     * skips SASL (AMQP 1.0 §5.1 leaves that to the server): it would be anonymous anyway, and rhea, for one, opens
     * without SASL unless given a user.
     */
    public AmqpConnectionFactory() {
        this(new HttpConfiguration(), new EngineConfig().anonymousAllowed(true).saslRequired(false)
                .sessionIncomingWindowFrames(STREAMING_SESSION_WINDOW_FRAMES));
    }

    /**
     * A factory with the given configurations.
     *
     * @param httpConfiguration customizers, header limits and the like, as for Jetty's HTTP connection factories
     * @param engineConfig the AMQP limits and SASL setup every connection's engine gets
     */
    public AmqpConnectionFactory(HttpConfiguration httpConfiguration, EngineConfig engineConfig) {
        super(PROTOCOL);
        this.httpConfiguration = Objects.requireNonNull(httpConfiguration, "httpConfiguration");
        this.engineConfig = Objects.requireNonNull(engineConfig, "engineConfig").role(EngineConfig.Role.ACCEPTOR);
        installBean(httpConfiguration);
        installBean(connections);
        installBean(budget);
    }

    /**
     * The open connections, shut down gracefully when the server stops with a stop timeout.
     *
     * @return the factory's connection set, a bean of this factory; it lists the connections open now
     */
    public GracefulAmqpConnections getConnections() {
        return connections;
    }

    /** The HTTP configuration the requests of every connection see. */
    public HttpConfiguration getHttpConfiguration() {
        return httpConfiguration;
    }

    /**
     * The engine configuration template.
     *
     * @return the engine configuration every connection's engine is made with, its role set to acceptor
     */
    public EngineConfig getEngineConfig() {
        return engineConfig;
    }

    /**
     * Checks SASL PLAIN credentials (for example against the server's {@code LoginService}); null stops offering
     * PLAIN.
     *
     * @param authenticator checks a PLAIN authentication identity and password (RFC 4616); null to stop offering PLAIN
     */
    public void setPlainAuthenticator(PlainAuthenticator authenticator) {
        engineConfig.plainAuthenticator(authenticator);
        settings = null;
    }

    /**
     * The authenticator for SASL PLAIN, or null.
     *
     * @return the PLAIN authenticator set, or null when PLAIN is not offered
     */
    public PlainAuthenticator getPlainAuthenticator() {
        return engineConfig.plainAuthenticator();
    }

    /**
     * The host name of requests that name none (no {@code http:host} or {@code host} application property and no
     * {@code hostname} in the client's open): the last entry of docs/design.md §3's Host rule.
     *
     * @return the server name used as the request's host when nothing else names one
     */
    @ManagedAttribute("The host of requests that name none")
    public String getServerName() {
        return serverName;
    }

    /**
     * Sets the host name of requests that name none; see {@link #getServerName()}.
     *
     * @param serverName the host name, without port; must not be null
     * @throws NullPointerException when {@code serverName} is null
     */
    public void setServerName(String serverName) {
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        settings = null;
    }

    /**
     * The connection properties the server's open offers (AMQP 1.0 §2.7.1: symbol keys, here string values).
     *
     * @return the properties, in the order they were set; empty by default
     */
    public Map<String, String> getConnectionProperties() {
        return engineConfig.connectionProperties();
    }

    /**
     * Replaces the connection properties the server's open offers; see {@link #getConnectionProperties()}. Some
     * clients read them before they go on: RabbitMQ 4's AMQP 1.0 clients want {@code product} = {@code RabbitMQ},
     * {@code version} 4.0.0 or later and a {@code node}. Applies to connections accepted after the call.
     *
     * @param properties the keys (ASCII, not empty) and their values; copied
     * @throws IllegalArgumentException when a key is empty or not ASCII, or a key or value is null
     */
    public void setConnectionProperties(Map<String, String> properties) {
        engineConfig.connectionProperties(properties);
        settings = null;
    }

    /**
     * Reads connection properties written as text, {@code KEY=VALUE} pairs separated by commas
     * ({@code product=RabbitMQ,version=4.0.0}), as the jetty-home module's {@code amqp.connectionProperties} holds
     * them: for {@link #setConnectionProperties(Map)}. Spaces around keys and values are dropped; a value cannot
     * hold a comma.
     *
     * @param list the pairs; null or blank for none
     * @return the properties in the order written
     * @throws IllegalArgumentException when a pair has no {@code =} or an empty key
     */
    public static Map<String, String> connectionPropertiesOf(String list) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (list == null || list.isBlank()) {
            return properties;
        }
        for (String pair : list.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || pair.substring(0, eq).isBlank()) {
                throw new IllegalArgumentException("a connection property is KEY=VALUE, not " + pair.trim());
            }
            properties.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return properties;
    }

    /**
     * Sets one connection property the server's open offers, keeping the others; see
     * {@link #setConnectionProperties(Map)}.
     *
     * @param key the property's key, sent as a symbol (ASCII, not empty)
     * @param value its value, sent as a string; null removes the property
     * @throws IllegalArgumentException when the key is empty or not ASCII
     */
    public void setConnectionProperty(String key, String value) {
        Map<String, String> next = new LinkedHashMap<>(engineConfig.connectionProperties());
        if (value == null) {
            next.remove(key);
        } else {
            next.put(key, value);
        }
        engineConfig.connectionProperties(next);
        settings = null;
    }

    /**
     * How many request messages each receiving link may have in flight (the credit kept open for the client). The
     * engine never grants more than {@link EngineConfig#maxDeliveriesInFlight()} per connection.
     *
     * @return the credit in messages kept open on each receiving link
     */
    @ManagedAttribute("The credit kept open on each link a client sends requests on")
    public int getLinkCredit() {
        return linkCredit;
    }

    /**
     * Sets how many request messages each receiving link may have in flight; see {@link #getLinkCredit()}. Applies to
     * connections accepted after the call.
     *
     * @param linkCredit the credit in messages, at least 1
     * @throws IllegalArgumentException when {@code linkCredit} is less than 1
     */
    public void setLinkCredit(int linkCredit) {
        if (linkCredit < 1) {
            throw new IllegalArgumentException("link credit must be at least 1: " + linkCredit);
        }
        this.linkCredit = linkCredit;
        settings = null;
    }

    /**
     * Whether SASL EXTERNAL is offered to TLS clients that present a certificate (behind an
     * {@code SslConnectionFactory} that wants or needs client authentication): the identity is the certificate's
     * subject DN, in RFC 2253 form. The engine is then made once the handshake is done. Clients
     * without a certificate, and plain TCP ones, are offered the other mechanisms only. Off by default.
     *
     * @return true when SASL EXTERNAL is offered to clients with a certificate
     */
    @ManagedAttribute("Whether SASL EXTERNAL is offered to TLS clients with a certificate")
    public boolean isSaslExternal() {
        return saslExternal;
    }

    /**
     * Turns SASL EXTERNAL for TLS clients with a certificate on or off; see {@link #isSaslExternal()}. Applies to
     * connections accepted after the call.
     *
     * @param saslExternal true to offer EXTERNAL to clients that present a certificate, false (the default) not to
     */
    public void setSaslExternal(boolean saslExternal) {
        this.saslExternal = saslExternal;
        settings = null;
    }

    /**
     * Where SASL EXTERNAL users get their roles, or null (the default: a certificate user has none). The
     * certificate's subject DN (RFC 2253) is looked up with {@link LoginService#getUserIdentity}, Jetty's way to ask
     * for the roles of a user authenticated elsewhere; its default, which {@code HashLoginService} keeps, is a login
     * with an empty password, so such a realm lists the DN with an empty password and its roles. A DN the login
     * service does not know is still the user, without roles. {@link LoginServicePlainAuthenticator} refuses empty
     * passwords, so those entries cannot be used to log in with PLAIN. On a broker attachment that trusts user-id
     * ({@link AmqpBrokerAttachment#setTrustUserId}), each message's user-id is looked up the same way.
     *
     * @return the login service asked for the roles of EXTERNAL users, or null when they get none
     */
    public LoginService getExternalLoginService() {
        return externalLoginService;
    }

    /**
     * Sets where SASL EXTERNAL users get their roles; see {@link #getExternalLoginService()}.
     *
     * @param loginService asked with {@link LoginService#getUserIdentity} for the certificate's subject DN; null (the
     *     default) gives such users no roles
     */
    public void setExternalLoginService(LoginService loginService) {
        this.externalLoginService = loginService;
        settings = null;
    }

    /**
     * Recognizes a connection by the first four bytes of the AMQP protocol header, {@code "AMQP"} (AMQP 1.0 §2.2:
     * "AMQP" then the protocol id, 0 for AMQP or 3 for SASL, and the version 1.0.0). Only those four are looked at:
     * the engine checks the rest and answers a header it does not support with its own (§2.2), which is more use
     * to an AMQP peer than an HTTP error. Fewer than four bytes that match so far need more; reads nothing.
     */
    @Override
    public Detection detect(ByteBuffer buffer) {
        int available = Math.min(buffer.remaining(), AMQP_MAGIC.length);
        int position = buffer.position();
        for (int i = 0; i < available; i++) {
            if (buffer.get(position + i) != AMQP_MAGIC[i]) {
                return Detection.NOT_RECOGNIZED;
            }
        }
        return available == AMQP_MAGIC.length ? Detection.RECOGNIZED : Detection.NEED_MORE_BYTES;
    }

    private static final byte[] AMQP_MAGIC = {'A', 'M', 'Q', 'P'};

    /**
     * The longest a request may take, from its dispatch to its response; see {@link #setRequestTimeout}.
     *
     * @return the request timeout in milliseconds; 0 means no limit
     */
    @ManagedAttribute("How long a request may take before it is answered 503, in ms (0: no limit)")
    public long getRequestTimeout() {
        return requestTimeoutMillis;
    }

    /**
     * How long a servlet may take to answer a request (from the moment the request reaches Jetty to its last
     * write); after that the client gets a 503 response and the request delivery is released (AMQP
     * {@code released}, so it may be sent again; in attach mode it is accepted once the broker takes the 503, so that
     * the broker does not deliver it again). 0 means no limit. Default 30 seconds.
     *
     * @param millis the request timeout in milliseconds; 0 for no limit
     * @throws IllegalArgumentException when {@code millis} is negative
     */
    public void setRequestTimeout(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("request timeout must not be negative: " + millis);
        }
        this.requestTimeoutMillis = millis;
        settings = null;
    }

    /**
     * How long a connection may hold its output back while other requests of it are being served; see
     * {@link #setWriteCoalescing}.
     *
     * @return the hold time in microseconds; 0 means every output is written at once
     */
    @ManagedAttribute("How long a connection holds its output back while more of its requests are served, in µs "
            + "(0: never)")
    public long getWriteCoalescing() {
        return writeCoalescingMicros;
    }

    /**
     * Write coalescing: while other requests of a connection are still being served, a response that is ready waits
     * up to {@code micros} for theirs, so that they leave in one write (with the dispositions and flows that go with
     * them) rather than one write each. The output leaves at once when no other request of the connection is being
     * served or when 4 KiB have gathered, so a connection serving one request at a time never waits, and a slow
     * servlet delays its neighbours' responses by at most {@code micros}. Fewer, larger writes cost the peer (a
     * broker above all, in attach mode) and this server less per request (docs/profiling.md). 0 writes each output at
     * once. Default 200 µs; applies to the connections made after the call.
     *
     * @param micros the hold time in microseconds, 0 to {@value #MAX_WRITE_COALESCING_MICROS}
     * @throws IllegalArgumentException when {@code micros} is negative or above one second
     */
    public void setWriteCoalescing(long micros) {
        if (micros < 0 || micros > MAX_WRITE_COALESCING_MICROS) {
            throw new IllegalArgumentException("write coalescing must be 0 to " + MAX_WRITE_COALESCING_MICROS
                    + " µs: " + micros);
        }
        this.writeCoalescingMicros = micros;
        settings = null;
    }

    /**
     * The most body bytes of a response without Content-Length held back to go as one data section; see
     * {@link #setResponseBufferSize}.
     *
     * @return the response buffer size in bytes
     */
    @ManagedAttribute("The response bytes held back to go as one data section")
    public int getResponseBufferSize() {
        return responseBufferBytes;
    }

    /**
     * The most body bytes of a response WITHOUT Content-Length held back so that it goes as one data section (the
     * form clients built on proton-j, Qpid JMS among them, read whole). A response that completes within it is sent
     * whole; a longer one streams, each further write as another data section, which those clients truncate to
     * its last. A response WITH Content-Length streams as one data section of that size after its first 64 KiB,
     * whatever this says. This is the memory a response without Content-Length may hold; lower it to bound that
     * tighter, at the cost above. Default 16 MiB.
     *
     * @param bytes the response buffer size in bytes, at least 1
     * @throws IllegalArgumentException when {@code bytes} is less than 1
     */
    public void setResponseBufferSize(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("response buffer must be at least 1 byte: " + bytes);
        }
        this.responseBufferBytes = bytes;
        settings = null;
    }

    /**
     * The idle-time-out announced to Qpid JMS clients; see {@link #setQpidJmsHeartbeatMillis}.
     *
     * @return milliseconds, 0 when Qpid JMS clients get the same announcement as the others
     */
    @ManagedAttribute("The idle-time-out announced to Qpid JMS clients, in ms (0: as to others)")
    public long getQpidJmsHeartbeatMillis() {
        return qpidJmsHeartbeatMillis;
    }

    /**
     * The idle-time-out announced in our open to clients whose open says they are Qpid JMS (its {@code product}
     * property, {@code QpidJMS}), instead of half the connector's idle timeout: such a client then sends a frame
     * whenever it has been silent for half of this. Qpid JMS (up to at least 2.10) can leave the last frames of a
     * message unflushed in its socket until it next writes, and its heartbeat is then the only write to come, so
     * an upload can wait up to half the announced idle-time-out (15 s at the default 60 s idle timeout) for nothing
     * (docs/jetty.md, "Streaming"). Default {@value #DEFAULT_QPID_JMS_HEARTBEAT_MILLIS} ms: an idle Qpid JMS
     * connection then sends about two empty frames a second. When idle connections are closed does not change.
     *
     * @param millis the idle-time-out to announce to Qpid JMS clients in milliseconds; 0 to treat them as others
     * @throws IllegalArgumentException when {@code millis} is negative
     */
    public void setQpidJmsHeartbeatMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("the Qpid JMS idle-time-out must not be negative: " + millis);
        }
        this.qpidJmsHeartbeatMillis = millis;
        settings = null;
    }

    /**
     * The server-wide limits every connection of this factory shares, and their current counts.
     *
     * @return the server budget, shared by every connection of this factory
     */
    public AmqpServerBudget getServerBudget() {
        return budget;
    }

    /**
     * The most AMQP connections this factory keeps open at once; see {@link #setMaxConnections}.
     *
     * @return the connection limit of this factory's server budget
     */
    @ManagedAttribute("The most AMQP connections open at once")
    public int getMaxConnections() {
        return budget.getMaxConnections();
    }

    /**
     * The most AMQP connections this factory keeps open at once (default
     * {@value AmqpServerBudget#DEFAULT_MAX_CONNECTIONS}). One more is answered with open and then closed with
     * {@code amqp:resource-limit-exceeded}, after SASL if the client does SASL (AMQP 1.0 §2.4.2).
     *
     * @param max the most open connections, at least 1; applies to connections accepted after the call
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxConnections(int max) {
        budget.setMaxConnections(max);
    }

    /**
     * The most connections between accept and the client's open at once; see {@link #setMaxHandshakingConnections}.
     *
     * @return the handshake limit of this factory's server budget
     */
    @ManagedAttribute("The most connections between accept and the client's open at once")
    public int getMaxHandshakingConnections() {
        return budget.getMaxHandshakingConnections();
    }

    /**
     * The most connections between accept and the client's open (protocol header, SASL, open) at once (default
     * {@value AmqpServerBudget#DEFAULT_MAX_HANDSHAKING_CONNECTIONS}). When there are this many, the oldest handshake
     * that has stalled ({@value AmqpServerBudget#HANDSHAKE_STALLED_MILLIS} ms or more) ends to make room for a new
     * connection, so a flood of sockets that stop talking cannot keep new clients out; when none has stalled, the
     * new connection is closed before any frame. Each handshake still ends within the engine's
     * {@code saslTimeoutMillis}.
     *
     * @param max the most connections in the handshake at once, at least 1
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxHandshakingConnections(int max) {
        budget.setMaxHandshakingConnections(max);
    }

    /**
     * The most AMQP connections one source address keeps open at once; see {@link #setMaxConnectionsPerAddress}.
     *
     * @return the per-address connection limit of this factory's server budget; 0 for none
     */
    @ManagedAttribute("The most AMQP connections one source address keeps open at once (0: no limit)")
    public int getMaxConnectionsPerAddress() {
        return budget.getMaxConnectionsPerAddress();
    }

    /**
     * The most AMQP connections one source address keeps open at once (default
     * {@value AmqpServerBudget#DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}, an eighth of the server-wide default): one more
     * from that address is answered with open and closed with {@code amqp:resource-limit-exceeded}, whatever room
     * the server has, so that idle connections from one machine cannot fill the server-wide limit. An IPv4 address
     * counts alone, an IPv6 address with its /64. Behind a load balancer every client has the balancer's address
     * unless Jetty's {@code ProxyConnectionFactory} (PROXY protocol) in front of this factory gives the real one;
     * without it, set 0 (docs/jetty.md, "Limits per source address").
     *
     * @param max the most open connections per source address, or 0 for no per-address limit
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxConnectionsPerAddress(int max) {
        budget.setMaxConnectionsPerAddress(max);
    }

    /**
     * The most connections of one source address between accept and the client's open at once; see
     * {@link #setMaxHandshakesPerAddress}.
     *
     * @return the per-address handshake limit of this factory's server budget; 0 for none
     */
    @ManagedAttribute("The most connections of one source address between accept and open at once (0: no limit)")
    public int getMaxHandshakesPerAddress() {
        return budget.getMaxHandshakesPerAddress();
    }

    /**
     * The most connections of one source address between accept and the client's open at once (default
     * {@value AmqpServerBudget#DEFAULT_MAX_HANDSHAKES_PER_ADDRESS}, an eighth of the server-wide default), so that
     * sockets from one machine that stop in their handshake cannot fill the server-wide handshake limit. When the
     * address has this many, its oldest handshake that has stalled
     * ({@value AmqpServerBudget#HANDSHAKE_STALLED_MILLIS} ms or more) ends to make room for its new connection;
     * when none has, the new connection is closed before any frame. See {@link #setMaxConnectionsPerAddress} for
     * what an address is, and for load balancers.
     *
     * @param max the most handshakes per source address, or 0 for no per-address limit
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxHandshakesPerAddress(int max) {
        budget.setMaxHandshakesPerAddress(max);
    }

    /**
     * The failed SASL logins one source address may have per {@link #getFailedLoginsWindowMillis() window}; see
     * {@link #setMaxFailedLoginsPerAddress}.
     *
     * @return the limit of this factory's server budget; 0 for none
     */
    @ManagedAttribute("The failed SASL logins one source address may have per failedLoginsWindowMillis (0: no limit)")
    public int getMaxFailedLoginsPerAddress() {
        return budget.getMaxFailedLoginsPerAddress();
    }

    /**
     * The failed SASL logins one source address may have in a burst, and again per
     * {@link #setFailedLoginsWindowMillis window} (default {@value AmqpServerBudget#DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS}
     * per {@value AmqpServerBudget#DEFAULT_FAILED_LOGINS_WINDOW_MILLIS} ms), so that one address cannot guess
     * passwords as fast as it can open connections. A login of an address with none left is refused before its
     * credentials are looked at, with sasl-outcome {@code sys-temp}, and its connection ends as a failed login's
     * does; other addresses are not affected. See {@link AmqpServerBudget#setMaxFailedLoginsPerAddress}, and
     * {@link #setMaxConnectionsPerAddress} for what an address is, and for load balancers.
     *
     * @param max the failed logins per source address and window, or 0 for no limit
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxFailedLoginsPerAddress(int max) {
        budget.setMaxFailedLoginsPerAddress(max);
    }

    /**
     * The time in which a source address's allowance of failed logins refills whole; see
     * {@link #setFailedLoginsWindowMillis}.
     *
     * @return the window of this factory's server budget, in milliseconds
     */
    @ManagedAttribute("The time in which an address's allowance of failed logins refills whole, in milliseconds")
    public long getFailedLoginsWindowMillis() {
        return budget.getFailedLoginsWindowMillis();
    }

    /**
     * The time in which a source address's allowance of {@link #setMaxFailedLoginsPerAddress failed logins} refills
     * whole (default {@value AmqpServerBudget#DEFAULT_FAILED_LOGINS_WINDOW_MILLIS} ms): one comes back every window
     * divided by the limit.
     *
     * @param millis the window, 1 ms to {@value AmqpServerBudget#MAX_FAILED_LOGINS_WINDOW_MILLIS} ms
     * @throws IllegalArgumentException when {@code millis} is out of that range
     */
    public void setFailedLoginsWindowMillis(long millis) {
        budget.setFailedLoginsWindowMillis(millis);
    }

    /**
     * The bytes all connections of this factory together may buffer; see {@link #setMaxBufferedBytes}.
     *
     * @return the byte limit of this factory's server budget
     */
    @ManagedAttribute("The bytes all connections together may buffer")
    public long getMaxBufferedBytes() {
        return budget.getMaxBufferedBytes();
    }

    /**
     * The bytes all connections of this factory together may buffer (default 64 MiB): request bodies received and
     * not yet read by their servlets, responses encoded or queued and not yet written to the socket, frames that have
     * not all arrived, and a fixed cost per request being served and per delivery kept unsettled. While it
     * is used up, no link credit is granted, no session window is reopened, and new requests are released (AMQP
     * {@code released}: the client may send them again), so the server degrades instead of running out of heap.
     * See docs/jetty.md, "Server-wide limits", for the heap a configuration needs.
     *
     * @param bytes the byte limit, at least 1
     * @throws IllegalArgumentException when {@code bytes} is less than 1
     */
    public void setMaxBufferedBytes(long bytes) {
        budget.setMaxBufferedBytes(bytes);
    }

    /**
     * The encoded bytes each connection keeps ahead of its socket; see {@link #setMaxPendingOutputBytes}.
     *
     * @return the limit in bytes, from the engine configuration
     */
    @ManagedAttribute("The encoded bytes each connection keeps ahead of its socket")
    public int getMaxPendingOutputBytes() {
        return engineConfig.maxPendingOutputBytes();
    }

    /**
     * The encoded bytes each connection keeps ahead of its socket (default 256 KiB): past it, responses stop being
     * encoded (a streamed response's servlet write waits) and the connection stops reading the client's frames
     * until the socket has taken them, whatever link credit and session window the client granted. Sets the
     * engine configuration's {@code maxPendingOutputBytes}.
     *
     * @param bytes the limit in bytes per connection, at least 1
     * @throws IllegalArgumentException when {@code bytes} is less than 1
     */
    public void setMaxPendingOutputBytes(int bytes) {
        engineConfig.maxPendingOutputBytes(bytes);
        settings = null;
    }

    /**
     * How long a client has to answer our close before the connection is dropped; see {@link #setCloseTimeout}.
     *
     * @return the close timeout in milliseconds
     */
    @ManagedAttribute("How long a client has to answer our close, in ms")
    public long getCloseTimeout() {
        return closeTimeoutMillis;
    }

    /**
     * How long a client has to answer our close (a graceful stop's {@code amqp:connection:forced}, an idle timeout,
     * a refusal) and to read what we still have to write, before the connection is dropped without waiting
     * further (default 5 seconds). Without it a client that never answers would hold a graceful stop for the whole
     * stop timeout.
     *
     * @param millis the close timeout in milliseconds, at least 1
     * @throws IllegalArgumentException when {@code millis} is less than 1
     */
    public void setCloseTimeout(long millis) {
        if (millis < 1) {
            throw new IllegalArgumentException("close timeout must be at least 1 ms: " + millis);
        }
        this.closeTimeoutMillis = millis;
        settings = null;
    }

    /**
     * The engine's largest frame, inbound; see the {@link #getEngineConfig() engine configuration}.
     *
     * @return max-frame-size in bytes
     */
    @ManagedAttribute("The largest AMQP frame a client may send, in bytes")
    public int getMaxFrameSize() {
        return engineConfig.maxFrameSizeBytes();
    }

    /**
     * The largest request message, across its frames; see the {@link #getEngineConfig() engine configuration}.
     *
     * @return max-message-size in bytes
     */
    @ManagedAttribute("The largest request message a client may send, in bytes")
    public long getMaxMessageSize() {
        return engineConfig.maxMessageSizeBytes();
    }

    /**
     * The highest channel a client may use (sessions per connection, less one).
     *
     * @return channel-max
     */
    @ManagedAttribute("The highest channel a client may use")
    public int getChannelMax() {
        return engineConfig.channelMax();
    }

    /**
     * The idle timeout of each connection's engine (AMQP 1.0 §2.4.5).
     *
     * @return the idle timeout in milliseconds
     */
    @ManagedAttribute("The idle timeout of a connection, in ms")
    public long getIdleTimeout() {
        return engineConfig.idleTimeoutMillis();
    }

    /**
     * The highest link handle a client may use in a session (links per session, less one), advertised in begin.
     *
     * @return handle-max, from the engine configuration
     */
    @ManagedAttribute("The highest link handle a client may use in a session")
    public int getHandleMax() {
        return engineConfig.handleMax();
    }

    /**
     * The links a client may have attached on one connection, all its sessions together; see
     * {@link EngineConfig#maxLinksPerConnection()}.
     *
     * @return the limit, from the engine configuration
     */
    @ManagedAttribute("The links a client may have on one connection, all its sessions together")
    public int getMaxLinksPerConnection() {
        return engineConfig.maxLinksPerConnection();
    }

    /**
     * The bytes of names and termini a client's attaches may leave on one connection's links; see
     * {@link EngineConfig#maxLinkBytesPerConnection()}.
     *
     * @return the limit in bytes, from the engine configuration
     */
    @ManagedAttribute("The bytes of names and termini a client's links may keep on one connection")
    public int getMaxLinkBytesPerConnection() {
        return engineConfig.maxLinkBytesPerConnection();
    }

    /**
     * The requests one connection may have unsettled at once; see {@link EngineConfig#maxDeliveriesInFlight()}.
     *
     * @return the limit, from the engine configuration
     */
    @ManagedAttribute("The requests one connection may have unsettled at once")
    public int getMaxDeliveriesInFlight() {
        return engineConfig.maxDeliveriesInFlight();
    }

    /**
     * A session's incoming window, in transfer frames (AMQP 1.0 §2.5.6).
     *
     * @return the window, from the engine configuration
     */
    @ManagedAttribute("A session's incoming window, in transfer frames")
    public int getSessionIncomingWindow() {
        return engineConfig.sessionIncomingWindowFrames();
    }

    /**
     * The responses sent unsettled on one connection that may wait for the client's settlement; see
     * {@link EngineConfig#maxUnsettledSentDeliveries()}.
     *
     * @return the limit, from the engine configuration
     */
    @ManagedAttribute("The responses one connection may have sent and the client not yet settled")
    public int getMaxUnsettledSentDeliveries() {
        return engineConfig.maxUnsettledSentDeliveries();
    }

    /**
     * The responses held for one reply link while it waits for the client's credit; see
     * {@link EngineConfig#maxBufferedMessagesPerLink()}.
     *
     * @return the limit, from the engine configuration
     */
    @ManagedAttribute("The responses held for one reply link that waits for credit")
    public int getMaxBufferedMessagesPerLink() {
        return engineConfig.maxBufferedMessagesPerLink();
    }

    /**
     * The response bytes held across the reply links of one connection while they wait for credit; see
     * {@link EngineConfig#maxBufferedBytesPerConnection()}.
     *
     * @return the limit in bytes, from the engine configuration
     */
    @ManagedAttribute("The response bytes held across one connection's reply links that wait for credit")
    public long getMaxBufferedBytesPerConnection() {
        return engineConfig.maxBufferedBytesPerConnection();
    }

    /**
     * The shortest idle-time-out a client may announce in its open; see
     * {@link EngineConfig#minPeerIdleTimeoutMillis()}.
     *
     * @return the limit in milliseconds, from the engine configuration
     */
    @ManagedAttribute("The shortest idle-time-out a client may announce, in ms")
    public long getMinPeerIdleTimeout() {
        return engineConfig.minPeerIdleTimeoutMillis();
    }

    /**
     * How long a frame a client has begun may stay incomplete; see {@link EngineConfig#partialFrameTimeoutMillis()}.
     *
     * @return the timeout in milliseconds (0: none), from the engine configuration
     */
    @ManagedAttribute("How long a frame a client has begun may stay incomplete, in ms")
    public long getPartialFrameTimeout() {
        return engineConfig.partialFrameTimeoutMillis();
    }

    /**
     * How long a client has from connect until its open, SASL included; see
     * {@link EngineConfig#saslTimeoutMillis()}.
     *
     * @return the timeout in milliseconds, from the engine configuration
     */
    @ManagedAttribute("How long a client has from connect until its open, SASL included, in ms")
    public long getSaslTimeout() {
        return engineConfig.saslTimeoutMillis();
    }

    /**
     * The most compound values (lists, maps, arrays, described values) a client's frames and typed bodies may nest
     * at once; see {@link EngineConfig#decoderLimits()}. Past it, a frame closes the connection and a request's
     * body rejects its delivery, with {@code amqp:decode-error}.
     *
     * @return the depth, from the engine configuration
     */
    @ManagedAttribute("The most compound values a client's frames and typed bodies may nest at once")
    public int getMaxDecodeDepth() {
        return engineConfig.decoderLimits().maxDepth();
    }

    /**
     * The most elements one list, map or array in a client's frames and typed bodies may declare; see
     * {@link EngineConfig#decoderLimits()}. Past it, as past {@link #getMaxDecodeDepth()}: {@code amqp:decode-error}.
     *
     * @return the count, from the engine configuration
     */
    @ManagedAttribute("The most elements one list, map or array a client sends may declare")
    public int getMaxDecodeElements() {
        return engineConfig.decoderLimits().maxElements();
    }

    /**
     * AMQP connections open now (past the client's open), across this factory's connections.
     *
     * @return the number of open connections
     */
    @ManagedAttribute("AMQP connections open now")
    public int getConnectionsOpen() {
        return budget.getConnections();
    }

    /**
     * Connections between accept and the client's open now.
     *
     * @return the number of connections in the handshake
     */
    @ManagedAttribute("Connections between accept and the client's open now (refused ones until they close too)")
    public int getConnectionsHandshaking() {
        return budget.getHandshakingConnections();
    }

    /**
     * Bytes buffered now across this factory's connections (request bodies unread, responses unwritten, frames that
     * have not all arrived, requests being served, deliveries kept unsettled).
     *
     * @return the bytes counted against {@link #getMaxBufferedBytes()}
     */
    @ManagedAttribute("Bytes buffered now across all connections")
    public long getBufferedBytes() {
        return budget.getBufferedBytes();
    }

    /**
     * Bytes the byte budget has left before new requests are released.
     *
     * @return {@link #getMaxBufferedBytes()} minus {@link #getBufferedBytes()}, 0 when used up
     */
    @ManagedAttribute("Bytes the byte budget has left")
    public long getFreeBytes() {
        return budget.getFreeBytes();
    }

    /**
     * Connections refused by a connection or handshake limit, or at their login by the limit of failed logins per
     * source address, since the factory was made.
     *
     * @return the number of refused connections
     */
    @ManagedAttribute("Connections refused by a limit since the start")
    public long getConnectionsRefused() {
        return budget.getRefusedConnections();
    }

    /**
     * Connections refused by a per-address limit (connections or handshakes of one source address, or its failed
     * logins: such a login is refused and its connection ends) since the factory was made; {@link #getServerBudget()} has the count of each limit.
     *
     * @return the number of connections refused by a per-address limit
     */
    @ManagedAttribute("Connections refused by a per-address limit (failed logins included) since the start")
    public long getConnectionsRefusedPerAddress() {
        return budget.getRefusedByMaxConnectionsPerAddress() + budget.getRefusedByMaxHandshakesPerAddress()
                + budget.getRefusedByMaxFailedLoginsPerAddress();
    }

    /**
     * Stalled handshakes ended to make room for a new connection (a handshake limit, server-wide or of an address,
     * was full) since the factory was made.
     *
     * @return the number of handshakes so ended
     */
    @ManagedAttribute("Stalled handshakes ended to make room for new connections since the start")
    public long getHandshakesEvicted() {
        return budget.getEvictedByMaxHandshakingConnections() + budget.getEvictedByMaxHandshakesPerAddress();
    }

    /**
     * Source addresses with a connection now (IPv4 addresses, IPv6 /64s).
     *
     * @return the number of source addresses counted now
     */
    @ManagedAttribute("Source addresses with a connection now")
    public int getSourceAddresses() {
        return budget.getSourceAddresses();
    }

    /**
     * How many requests were handed to a servlet, across this factory's connections (and its attachments').
     *
     * @return the number of requests served since the factory was made
     */
    @ManagedAttribute("Requests handed to a servlet since the start")
    public long getRequestsServed() {
        return counters.served();
    }

    /**
     * How many request messages were answered or rejected without a servlet because they are no HTTP request (a 4xx
     * or 505 answer, or {@code amqp:decode-error}).
     *
     * @return the number of refused requests since the factory was made
     */
    @ManagedAttribute("Requests answered or rejected without a servlet (no HTTP request) since the start")
    public long getRequestsRefused() {
        return counters.refused();
    }

    /**
     * How many requests were released unserved: the server was stopping or over its byte budget, or the client's
     * replies backed up (docs/design.md §3).
     *
     * @return the number of released requests since the factory was made
     */
    @ManagedAttribute("Requests released unserved (stopping, over budget, replies backed up) since the start")
    public long getRequestsReleased() {
        return counters.released();
    }

    /**
     * How many requests had expired before they could be served (answered 504, or rejected when one-way), across
     * this factory's connections (docs/mapping.md, "Expiry").
     *
     * @return the number of expired requests since the factory was made
     */
    @ManagedAttribute("Requests that had expired before they could be served, since the start")
    public long getExpiredRequests() {
        return counters.expired();
    }

    /**
     * How many requests their request timeout answered 503 for.
     *
     * @return the number of timed-out requests since the factory was made
     */
    @ManagedAttribute("Requests answered 503 by the request timeout since the start")
    public long getRequestsTimedOut() {
        return counters.timedOut();
    }

    /**
     * How many responses a servlet finished after the request timeout had already answered 503 for them: counted
     * here, since they went nowhere.
     *
     * @return the number of late responses since the factory was made
     */
    @ManagedAttribute("Responses finished after their request timed out since the start")
    public long getLateResponses() {
        return counters.lateResponses();
    }

    /**
     * The AMQP errors this factory's connections sent in a close: a client's protocol error, a handshake or idle
     * timeout, a refusal by a connection limit, {@code amqp:connection:forced} at a stop. A connection that ends
     * before there is an AMQP connection to close is counted under the condition the engine reports for it, though
     * no close goes out then: {@code amqp:connection:framing-error} for bytes that are not the protocol header,
     * {@code amqp:unauthorized-access} for a failed or skipped SASL login, {@code amqp:resource-limit-exceeded} for
     * the handshake timeout.
     *
     * @return the number of closes with an error since the start, by condition
     */
    @ManagedAttribute("Connections closed with an AMQP error since the start, by condition")
    public Map<String, Long> getConnectionErrorsSent() {
        return errorsSent.byCondition(ErrorsSent.Scope.CONNECTION);
    }

    /**
     * The AMQP errors sessions of this factory's connections were ended with, by this side: a client's session
     * error ({@code amqp:session:window-violation}, ...) or a limit of the engine's ({@code
     * amqp:resource-limit-exceeded}).
     *
     * @return the number of sessions ended here with an error since the start, by condition
     */
    @ManagedAttribute("Sessions ended with an AMQP error since the start, by condition")
    public Map<String, Long> getSessionErrorsSent() {
        return errorsSent.byCondition(ErrorsSent.Scope.SESSION);
    }

    /**
     * The AMQP errors links of this factory's connections were detached with, by this side, or their attaches
     * refused with: a request over the size limit ({@code amqp:link:message-size-exceeded}), a reply node that does
     * not exist ({@code amqp:not-found}), a client's link error.
     *
     * @return the number of links detached or refused here with an error since the start, by condition
     */
    @ManagedAttribute("Links detached or refused with an AMQP error since the start, by condition")
    public Map<String, Long> getLinkErrorsSent() {
        return errorsSent.byCondition(ErrorsSent.Scope.LINK);
    }

    /**
     * How many AMQP errors of {@code condition} this factory's connections sent in {@code scope}, as the maps of
     * {@link #getConnectionErrorsSent()}, {@link #getSessionErrorsSent()} and {@link #getLinkErrorsSent()} count them.
     *
     * @param scope     {@code connection}, {@code session} or {@code link}
     * @param condition the error's condition, such as {@code amqp:decode-error}
     * @return the number sent since the start; 0 for none
     * @throws IllegalArgumentException for another scope
     */
    public long getErrorsSent(String scope, String condition) {
        return errorsSent.count(ErrorsSent.Scope.ofTag(scope), condition);
    }

    /**
     * Tells {@code kind} of each scope ({@code connection}, {@code session}, {@code link}) and condition that an
     * error was sent in so far, then of each new one as its first error is sent, on the thread sending it: how
     * meters of the errors ({@link #getErrorsSent(String, String)}) are made as they come, rather than one for every
     * condition there is.
     *
     * @param kind told the scope and the condition
     */
    public void watchErrorsSent(BiConsumer<String, String> kind) {
        Objects.requireNonNull(kind, "kind");
        errorsSent.watch((scope, condition) -> kind.accept(scope.tag(), condition));
    }

    /**
     * How many requests this factory's connections are serving now: handed to a servlet and not yet ended.
     *
     * @return the number of requests in flight
     */
    @ManagedAttribute("Requests being served now")
    public int getRequestsActive() {
        return connections.activeRequests();
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        Settings s = settings();
        return configure(new AmqpConnection(connector, endPoint, s.connection, s.listener), connector, endPoint);
    }

    /**
     * A connection an attachment made, configured as this factory's own are: its listeners (the graceful stop among
     * them) and input buffer size.
     */
    AmqpConnection configureAttached(AmqpConnection connection, Connector attachment, EndPoint endPoint) {
        return configure(connection, attachment, endPoint);
    }

    /** What connections are made with, built from the settings now (once per change). */
    private Settings settings() {
        Settings s = settings;
        if (s == null) {
            ServingSettings serving = servingSettings();
            ConnectionSettings connection = new ConnectionSettings(engineConfig,
                    RequestAttributesCustomizer.configurationFor(httpConfiguration), saslExternal, closeTimeoutMillis,
                    writeCoalescingMicros * 1_000, budget.ledger(), serving);
            ConnectionHandlers listener = (c, inbox, share, secure) ->
                    new ListenerHandler(serving, errorsSent, c, inbox, share, secure);
            s = new Settings(connection, listener);
            settings = s;
        }
        return s;
    }

    /** How requests are served, now: for this factory's connections and for its attachments'. */
    ServingSettings servingSettings() {
        return new ServingSettings(serverName, httpConfiguration.getRequestHeaderSize(), linkCredit,
                requestTimeoutMillis, responseBufferBytes, qpidJmsHeartbeatMillis, counters, saslUsers(), peerLog);
    }

    /**
     * How a SASL identity becomes the requests' user: through jetty-security when it is there (an optional
     * dependency, docs/design.md §8), with the roles of {@link #getExternalLoginService()} for certificate users;
     * without it, no user.
     */
    SaslUsers saslUsers() {
        try {
            return AmqpAuthenticator.saslUsers(externalLoginService);
        } catch (NoClassDefFoundError absent) {
            return SaslUsers.NONE;
        }
    }

    /** The settings of a moment, and the handlers of its listener connections. */
    private record Settings(ConnectionSettings connection, ConnectionHandlers listener) {
    }
}
