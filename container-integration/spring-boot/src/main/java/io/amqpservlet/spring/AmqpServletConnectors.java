package io.amqpservlet.spring;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpAuthenticator;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.protocol.codec.DecoderLimits;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.security.EmptyLoginService;
import org.eclipse.jetty.security.SecurityHandler;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.springframework.boot.jetty.JettyServerCustomizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.util.unit.DataSize;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The AMQP connectors the starter adds to Boot's embedded Jetty, made from {@link AmqpServletProperties} when Boot
 * builds its server (a {@link JettyServerCustomizer}): the listener ({@code amqp.servlet.port}), the broker
 * attachment ({@code amqp.servlet.attach.uri}) and the named ones ({@code amqp.servlet.attachments.<name>.uri}). The
 * meters, the health indicators and the graceful shutdown find them here once the server exists.
 */
public final class AmqpServletConnectors implements JettyServerCustomizer {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpServletConnectors.class);
    /** The name of the listener connector (Jetty's connector name, the meters' {@code connector.name} tag). */
    public static final String LISTENER_NAME = "amqp";
    /** The name of the attachment connector (its meters' {@code connector.name} tag). */
    public static final String ATTACHMENT_NAME = "amqp-attach";
    /** What an attachment's name may be: it becomes part of a connector name, a health path and a meter tag. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private final AmqpServletProperties properties;
    private final Function<String, SslBundle> sslBundles;
    /** Registers what to do when Boot reloads a bundle ({@code reload-on-update}): a bundle's name and the action. */
    private final BiConsumer<String, Consumer<SslBundle>> bundleUpdates;
    private final Supplier<PlainAuthenticator> plainAuthenticator;
    private volatile ServerConnector listener;
    private volatile AmqpConnectionFactory listenerFactory;
    private volatile AmqpBrokerAttachment attachment;
    private volatile Map<String, AmqpBrokerAttachment> attachments = Map.of();
    private volatile boolean made;

    /**
     * Connectors made from {@code properties}.
     *
     * @param properties the {@code amqp.servlet} settings
     * @param sslBundles Boot's SSL bundles by name (for {@code amqp.servlet.ssl.bundle} and the attachment's)
     * @param plainAuthenticator gives the SASL PLAIN authenticator when the server is made, or null for none
     * @throws IllegalArgumentException when an {@code amqp.servlet.attachments} entry has no uri or a name that is
     *                                  not letters, digits, '-' and '_'
     */
    public AmqpServletConnectors(AmqpServletProperties properties, Function<String, SslBundle> sslBundles,
                                 Supplier<PlainAuthenticator> plainAuthenticator) {
        this(properties, sslBundles, (name, action) -> { }, plainAuthenticator);
    }

    /**
     * Connectors made from {@code properties} whose TLS follows the SSL bundles Boot reloads.
     *
     * @param properties the {@code amqp.servlet} settings
     * @param sslBundles Boot's SSL bundles by name (for {@code amqp.servlet.ssl.bundle} and the attachments')
     * @param bundleUpdates registers an action for when Boot reloads the bundle of a name (its key or trust store
     *                      changed on disk, with the bundle's {@code reload-on-update}): {@code SslBundles}'
     *                      {@code addBundleUpdateHandler}
     * @param plainAuthenticator gives the SASL PLAIN authenticator when the server is made, or null for none
     * @throws IllegalArgumentException when an {@code amqp.servlet.attachments} entry has no uri or a name that is
     *                                  not letters, digits, '-' and '_'
     */
    public AmqpServletConnectors(AmqpServletProperties properties, Function<String, SslBundle> sslBundles,
                                 BiConsumer<String, Consumer<SslBundle>> bundleUpdates,
                                 Supplier<PlainAuthenticator> plainAuthenticator) {
        for (Map.Entry<String, AmqpServletProperties.Attach> named : properties.getAttachments().entrySet()) {
            // Checked here, when the application starts, rather than when Boot makes its server.
            if (!NAME.matcher(named.getKey()).matches()) {
                throw new IllegalArgumentException("amqp.servlet.attachments: the name '" + named.getKey()
                        + "' is not letters, digits, '-' and '_' (it names a connector, a health component and "
                        + "meters)");
            }
            String uri = named.getValue().getUri();
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("amqp.servlet.attachments." + named.getKey() + ".uri is not set");
            }
        }
        this.properties = properties;
        this.sslBundles = sslBundles;
        this.bundleUpdates = bundleUpdates;
        this.plainAuthenticator = plainAuthenticator;
    }

    /**
     * The connector name of the attachment {@code name} of {@code amqp.servlet.attachments}: its meters'
     * {@code connector.name} tag.
     *
     * @param name the attachment's name in {@code amqp.servlet.attachments}
     * @return {@code amqp-attach-} and the name
     */
    public static String attachmentName(String name) {
        return ATTACHMENT_NAME + "-" + name;
    }

    /** Names Boot's {@link SslBundles} as the source of bundles. */
    static Function<String, SslBundle> bundlesOf(SslBundles bundles) {
        return name -> {
            if (bundles == null) {
                throw new IllegalStateException("SSL bundle '" + name + "' named, but the application has no SSL bundles");
            }
            return bundles.getBundle(name);
        };
    }

    @Override
    public void customize(Server server) {
        if (made) {
            // A second server of the same context (a management server on its own port) serves HTTP only.
            return;
        }
        made = true;
        HttpConfiguration http = httpConfigurationOf(server);
        authenticateAmqpRequests(server);
        if (properties.getPort() != null) {
            addListener(server, http);
        }
        if (properties.getAttach().getUri() != null) {
            attachment = addAttachment(server, http, ATTACHMENT_NAME, properties.getAttach());
        }
        Map<String, AmqpBrokerAttachment> named = new LinkedHashMap<>();
        for (Map.Entry<String, AmqpServletProperties.Attach> e : properties.getAttachments().entrySet()) {
            named.put(e.getKey(), addAttachment(server, http, attachmentName(e.getKey()), e.getValue()));
        }
        attachments = Collections.unmodifiableMap(named);
    }

    /**
     * Lets the web application's security handler see AMQP requests' users. Boot's web application context has a
     * Jetty {@code SecurityHandler} without an authenticator, which gives every request no user, the connection's
     * included: with {@link AmqpAuthenticator} a request of an AMQP connection is its SASL user (or the attachment's
     * request user) and any other request is unauthenticated, as before. Jetty's realm stays empty: the
     * application's users are Spring Security's.
     */
    private static void authenticateAmqpRequests(Server server) {
        ServletContextHandler context = server.getDescendant(ServletContextHandler.class);
        SecurityHandler security = context == null ? null : context.getSecurityHandler();
        if (security != null && security.getAuthenticator() == null) {
            security.setAuthenticator(new AmqpAuthenticator());
            if (security.getLoginService() == null) {
                security.setLoginService(new EmptyLoginService());
            }
        }
    }

    private void addListener(Server server, HttpConfiguration http) {
        AmqpConnectionFactory factory = newFactory(new HttpConfiguration(http));
        factory.setMaxConnections(properties.getLimits().getMaxConnections());
        factory.setMaxHandshakingConnections(properties.getLimits().getMaxHandshakingConnections());
        factory.setMaxConnectionsPerAddress(properties.getLimits().getMaxConnectionsPerAddress());
        factory.setMaxHandshakesPerAddress(properties.getLimits().getMaxHandshakesPerAddress());
        factory.setMaxFailedLoginsPerAddress(properties.getLimits().getMaxFailedLoginsPerAddress());
        factory.setFailedLoginsWindowMillis(properties.getLimits().getFailedLoginsWindow().toMillis());
        factory.setMaxBufferedBytes(properties.getLimits().getMaxBufferedBytes().toBytes());
        factory.setSaslExternal(properties.getSasl().isExternal());
        PlainAuthenticator plain = properties.getSasl().isPlain() ? plainAuthenticator.get() : null;
        if (plain != null) {
            factory.setPlainAuthenticator(plain);
        }
        List<ConnectionFactory> chain = new ArrayList<>();
        String bundle = properties.getSsl().getBundle();
        if (bundle != null) {
            if (factory.getHttpConfiguration().getCustomizer(SecureRequestCustomizer.class) == null) {
                // AMQPS requests are secure as HTTPS ones are: https scheme, the TLS attributes.
                factory.getHttpConfiguration().addCustomizer(new SecureRequestCustomizer());
            }
            SslContextFactory.Server tls = serverTls(sslBundles.apply(bundle));
            followUpdates(bundle, tls, "the AMQP listener");
            chain.add(new SslConnectionFactory(tls, AmqpConnectionFactory.PROTOCOL));
        }
        chain.add(factory);
        ServerConnector connector = new ServerConnector(server, properties.getAcceptors(), properties.getSelectors(),
                chain.toArray(new ConnectionFactory[0]));
        connector.setName(LISTENER_NAME);
        connector.setHost(properties.getHost());
        connector.setPort(properties.getPort());
        server.addConnector(connector);
        listenerFactory = factory;
        listener = connector;
    }

    private AmqpBrokerAttachment addAttachment(Server server, HttpConfiguration http, String name,
                                               AmqpServletProperties.Attach settings) {
        // A factory of its own: the attachment's connection counts into it, not into the listener's budget.
        AmqpConnectionFactory factory = newFactory(new HttpConfiguration(http));
        if (settings.getRequestTimeout() != null) {
            factory.setRequestTimeout(settings.getRequestTimeout().toMillis());
        }
        AmqpBrokerAttachment a = new AmqpBrokerAttachment(server, factory);
        a.setName(name);
        a.setUri(settings.getUri());
        a.setCredit(settings.getCredit());
        a.setRequestUser(settings.getRequestUser());
        a.setAtMostOnce(settings.isAtMostOnce());
        a.setAttachTimeout(settings.getAttachTimeout().toMillis());
        a.setReconnectDelay(settings.getMinReconnectDelay().toMillis(), settings.getMaxReconnectDelay().toMillis());
        a.setMaxReplyLinks(settings.getMaxReplyLinks());
        a.setReplyLinkIdleTimeout(settings.getReplyLinkIdleTimeout().toMillis());
        a.setSaslExternal(settings.isSaslExternal());
        if (settings.getSslBundle() != null) {
            SslContextFactory.Client tls = new SslContextFactory.Client();
            configure(tls, sslBundles.apply(settings.getSslBundle()));
            followUpdates(settings.getSslBundle(), tls, "the broker attachment " + name);
            a.setSslContextFactory(tls);
        }
        server.addConnector(a);
        return a;
    }

    /** A factory with the engine, serving and connection settings every AMQP connection here shares. */
    private AmqpConnectionFactory newFactory(HttpConfiguration http) {
        AmqpServletProperties.Limits limits = properties.getLimits();
        AmqpServletProperties.Sasl sasl = properties.getSasl();
        EngineConfig engine = new EngineConfig()
                .anonymousAllowed(sasl.isAnonymous())
                .saslRequired(sasl.isRequired())
                .saslTimeoutMillis(sasl.getTimeout().toMillis())
                .maxFrameSizeBytes(intBytes(limits.getMaxFrameSize(), "limits.max-frame-size"))
                .channelMax(limits.getChannelMax())
                .handleMax(limits.getHandleMax())
                .maxLinksPerConnection(limits.getMaxLinksPerConnection())
                .maxLinkBytesPerConnection(intBytes(limits.getMaxLinkBytesPerConnection(),
                        "limits.max-link-bytes-per-connection"))
                .maxMessageSizeBytes(limits.getMaxMessageSize().toBytes())
                .maxDeliveriesInFlight(limits.getMaxDeliveriesInFlight())
                .sessionIncomingWindowFrames(limits.getSessionIncomingWindowFrames())
                .maxBufferedMessagesPerLink(limits.getMaxBufferedMessagesPerLink())
                .maxBufferedBytesPerConnection(limits.getMaxBufferedBytesPerConnection().toBytes())
                .maxUnsettledSentDeliveries(limits.getMaxUnsettledSentDeliveries())
                .maxPendingOutputBytes(intBytes(limits.getMaxPendingOutputBytes(), "limits.max-pending-output-bytes"))
                .idleTimeoutMillis(properties.getIdleTimeout().toMillis())
                .minPeerIdleTimeoutMillis(limits.getMinPeerIdleTimeout().toMillis())
                .partialFrameTimeoutMillis(limits.getPartialFrameTimeout().toMillis())
                .decoderLimits(new DecoderLimits(limits.getMaxDecodeDepth(), limits.getMaxDecodeElements()))
                .connectionProperties(properties.getConnectionProperties());
        AmqpConnectionFactory factory = new AmqpConnectionFactory(http, engine);
        factory.setServerName(properties.getServerName());
        factory.setLinkCredit(properties.getLinkCredit());
        factory.setRequestTimeout(properties.getRequestTimeout().toMillis());
        factory.setCloseTimeout(properties.getCloseTimeout().toMillis());
        factory.setWriteCoalescing(properties.getWriteCoalescing().toNanos() / 1_000);
        factory.setResponseBufferSize(intBytes(properties.getResponseBufferSize(), "response-buffer-size"));
        factory.setQpidJmsHeartbeatMillis(properties.getQpidJmsHeartbeat().toMillis());
        return factory;
    }

    private static int intBytes(DataSize size, String name) {
        long bytes = size.toBytes();
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("amqp.servlet." + name + " must be below 2 GiB: " + size);
        }
        return (int) bytes;
    }

    /**
     * The HTTP configuration AMQP requests see: a copy of Boot's HTTP connector's, so its customizers (forwarded
     * headers, ...) and settings (no Server header, header sizes) apply to AMQP requests as to HTTP ones.
     */
    private static HttpConfiguration httpConfigurationOf(Server server) {
        for (Connector c : server.getConnectors()) {
            HttpConnectionFactory http = c.getConnectionFactory(HttpConnectionFactory.class);
            if (http != null) {
                return http.getHttpConfiguration();
            }
        }
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        return http;
    }

    private SslContextFactory.Server serverTls(SslBundle bundle) {
        SslContextFactory.Server tls = new SslContextFactory.Server();
        configure(tls, bundle);
        AmqpServletProperties.ClientAuth auth = properties.getSsl().getClientAuth();
        tls.setWantClientAuth(auth != AmqpServletProperties.ClientAuth.NONE);
        tls.setNeedClientAuth(auth == AmqpServletProperties.ClientAuth.NEED);
        return tls;
    }

    /**
     * When Boot reloads the bundle {@code bundle}, {@code tls} takes its new key and trust material: the connections
     * made from then on use them, those open keep theirs. A reload that fails leaves a WARN line.
     */
    private void followUpdates(String bundle, SslContextFactory tls, String what) {
        bundleUpdates.accept(bundle, updated -> {
            try {
                tls.reload(f -> configure(f, updated));
                LOG.info("TLS of {} reloaded from SSL bundle '{}'", what, bundle);
            } catch (Exception e) {
                LOG.warn("TLS of {} not reloaded from SSL bundle '{}': {}", what, bundle, e.toString());
            }
        });
    }

    /** The bundle's key and trust material as an SSLContext made by Boot, and its protocol and cipher options. */
    private static void configure(SslContextFactory tls, SslBundle bundle) {
        tls.setSslContext(bundle.createSslContext());
        SslOptions options = bundle.getOptions();
        if (options.getCiphers() != null) {
            tls.setIncludeCipherSuites(options.getCiphers());
            tls.setExcludeCipherSuites();
        }
        if (options.getEnabledProtocols() != null) {
            tls.setIncludeProtocols(options.getEnabledProtocols());
            tls.setExcludeProtocols();
        }
    }

    /**
     * The listener connector, once Boot made its server.
     *
     * @return the AMQP listener, or null when {@code amqp.servlet.port} is unset or the server is not made yet
     */
    public ServerConnector getListener() {
        return listener;
    }

    /**
     * The listener's connection factory: its settings and counts.
     *
     * @return the listener's factory, or null without a listener
     */
    public AmqpConnectionFactory getListenerFactory() {
        return listenerFactory;
    }

    /**
     * The broker attachment, once Boot made its server.
     *
     * @return the attachment, or null when {@code amqp.servlet.attach.uri} is unset or the server is not made yet
     */
    public AmqpBrokerAttachment getAttachment() {
        return attachment;
    }

    /**
     * The attachments of {@code amqp.servlet.attachments}, once Boot made its server.
     *
     * @return each attachment by its name there (in the order the properties gave them); empty when none is set or
     *         the server is not made yet
     */
    public Map<String, AmqpBrokerAttachment> getAttachments() {
        return attachments;
    }

    /**
     * The names {@code amqp.servlet.attachments} gives, known before the server is made (the health contributors
     * are made from them).
     *
     * @return the attachments' names, in the order the properties gave them
     */
    public Set<String> getAttachmentNames() {
        return Collections.unmodifiableSet(properties.getAttachments().keySet());
    }

    /** The listener's port bound now, or -1 when there is none or it is not open. */
    int listenerPort() {
        ServerConnector c = listener;
        return c == null ? -1 : c.getLocalPort();
    }
}
