package io.amqpservlet.gateway;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.gateway.demo.DemoApp;
import io.amqpservlet.gateway.metrics.GatewayMetrics;
import io.amqpservlet.gateway.stats.FloorHandler;
import io.amqpservlet.gateway.stats.GatewayStatsHandler;
import io.amqpservlet.gateway.stats.ThreadAllocation;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.LoginServicePlainAuthenticator;
import jakarta.servlet.Servlet;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.annotations.AnnotationConfiguration;
import org.eclipse.jetty.ee.webapp.WebAppClassLoader;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import io.amqpservlet.jetty.AmqpAuthenticator;
import org.eclipse.jetty.ee11.servlet.security.ConstraintMapping;
import org.eclipse.jetty.ee11.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.SecurityHandler;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.CustomRequestLog;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ProxyConnectionFactory;
import org.eclipse.jetty.server.RequestLogWriter;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.security.Credential;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The standalone gateway: one Jetty {@link Server} serving the same servlets over AMQP 1.0 (an
 * {@link AmqpConnectionFactory} on its own port) and over HTTP/1.1 and h2c (a second port). Built from
 * {@link GatewayOptions}; {@link #start()} binds both ports, {@link #stop()} stops accepting and waits up to the
 * stop timeout for requests in flight. Options add AMQPS and HTTPS ports, AMQP on the HTTP port, clear-text AMQP on
 * the AMQPS port and AMQP over TLS on the HTTPS port (Jetty's {@code DetectorConnectionFactory} telling them apart by
 * their first bytes).
 *
 * <p>The servlets are the demo app, {@code --servlet} classes (from {@code --classpath} through a class loader of
 * their own) or a war (web.xml and annotations). With users, both ports require one: SASL PLAIN on AMQP, BASIC auth
 * on HTTP, one login service behind both.
 */
public final class Gateway {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
    /** The role every --user has; the constraint over all paths requires it when users are configured. */
    static final String USER_ROLE = "user";

    private final GatewayOptions options;
    private final Server server;
    private final ServerConnector amqp;
    private final ServerConnector http;
    private final ServerConnector amqps;
    private final ServerConnector https;
    /** With {@code --metrics-port}: the port that serves {@code /metrics} only. */
    private final ServerConnector metricsPort;
    private final List<AmqpBrokerAttachment> attachments = new ArrayList<>();
    /**
     * The TLS configurations watched for renewed stores ({@code --tls-reload-interval}), one watcher per set of store
     * files: AMQPS and HTTPS, both made from the {@code --tls-*} stores, share one.
     */
    private final List<TlsReload> tlsReloads = new ArrayList<>();
    /**
     * The factories of the ports that take AMQP by port name ({@code amqp}, {@code http} with
     * {@code --amqp-on-http-port}, {@code amqps}, {@code https} with {@code --amqp-on-https-port}): what the operator
     * paths report.
     */
    private final Map<String, AmqpConnectionFactory> listeners = new LinkedHashMap<>();
    private final GatewayMetrics metrics;

    /**
     * Builds the server (nothing is bound until {@link #start()}).
     *
     * @throws GatewayOptions.UsageException for options that do not go together, or an --attach URI the attachment
     *                                       cannot use: a bad command line, as for {@link GatewayOptions#parse}
     */
    public Gateway(GatewayOptions options) throws ReflectiveOperationException, GatewayOptions.UsageException {
        this.options = options;
        QueuedThreadPool threads = options.stats() ? new QueuedThreadPool(200, 8) {
            @Override
            public Thread newThread(Runnable runnable) {
                // --stats: a pool thread that ends (idle for a minute) still counts in the allocation totals.
                return super.newThread(ThreadAllocation.counted(runnable));
            }
        } : new QueuedThreadPool(200, 8);
        threads.setName("gateway");
        server = new Server(threads);
        server.setStopTimeout(options.stopTimeoutMillis());
        server.setStopAtShutdown(false); // GatewayMain's hook stops it, after logging

        HashLoginService logins = null;
        if (!options.users().isEmpty()) {
            UserStore store = new UserStore();
            for (GatewayOptions.User u : options.users()) {
                store.addUser(u.name(), Credential.getCredential(u.password()), new String[] {USER_ROLE});
            }
            logins = new HashLoginService("amqp-servlet");
            logins.setUserStore(store);
            server.addBean(logins);
        }

        HttpConfiguration httpConfig = new HttpConfiguration();
        httpConfig.setSendServerVersion(false);
        EngineConfig engineConfig = options.engineLimits().applyTo(new EngineConfig())
                .containerId("amqp-servlet-gateway")
                .anonymousAllowed(logins == null).saslRequired(logins != null); // no users: SASL optional, as for rhea
        if (options.amqpOnHttpPort() && options.httpPort() < 0) {
            throw new GatewayOptions.UsageException("--amqp-on-http-port needs the HTTP port (--http-port is -1)");
        }
        if (options.amqpOnAmqpsPort() && options.amqpsPort() < 0) {
            throw new GatewayOptions.UsageException("--amqp-on-amqps-port needs --amqps-port");
        }
        if (options.amqpOnHttpsPort() && options.httpsPort() < 0) {
            throw new GatewayOptions.UsageException("--amqp-on-https-port needs --https-port");
        }
        if (options.amqpOnAmqpsPort() && "need".equals(options.tlsClientAuth())) {
            throw new GatewayOptions.UsageException("--amqp-on-amqps-port and --tls-client-auth need exclude each "
                    + "other: clear-text clients present no certificate");
        }
        if (options.amqpPort() >= 0) {
            AmqpConnectionFactory factory = amqpFactory("amqp", httpConfig, engineConfig, logins);
            amqp = connector("amqp", options.amqpPort(), proxied(factory, factory));
        } else {
            amqp = null;
        }
        http = options.httpPort() < 0 ? null : httpConnector(httpConfig, engineConfig, logins);
        amqps = options.amqpsPort() < 0 ? null : amqpsConnector(httpConfig, engineConfig, logins);
        https = options.httpsPort() < 0 ? null : httpsConnector(httpConfig, engineConfig, logins);
        for (String uri : options.attach()) {
            attachments.add(attachment(uri, httpConfig));
        }
        if (amqp == null && http == null && amqps == null && https == null && attachments.isEmpty()) {
            throw new GatewayOptions.UsageException("every port is off and no --attach: nothing to serve");
        }
        metricsPort = options.metricsPort() < 0 ? null
                : connector("metrics", options.metricsPort(), new HttpConnectionFactory(httpConfig));

        ClassLoader loader = userClassLoader(options);
        ServletContextHandler context;
        if (options.war() != null) {
            File war = new File(options.war());
            if (!war.exists()) {
                throw new IllegalArgumentException("--war " + options.war() + ": no such file or directory");
            }
            WebAppContext webapp = new WebAppContext();
            webapp.setWar(war.getAbsolutePath());
            // A war that cannot deploy fails start() instead of leaving a context that answers 503.
            webapp.setThrowUnavailableOnStartupException(true);
            // Servlet 6.1 §8: @WebServlet, @WebFilter, @WebListener and ServletContainerInitializers of the war.
            webapp.addConfiguration(new AnnotationConfiguration());
            webapp.setClassLoader(new WebAppClassLoader(loader, webapp));
            context = webapp;
        } else {
            context = new ServletContextHandler();
            context.setClassLoader(loader);
        }
        context.setContextPath("/");
        if (options.demo()) {
            DemoApp.install(context);
        }
        for (Map.Entry<String, String> e : options.servlets().entrySet()) {
            Class<? extends Servlet> type = servletClass(e.getValue(), loader, !options.classpath().isEmpty());
            ServletHolder holder = new ServletHolder(type);
            holder.setAsyncSupported(true);
            context.addServlet(holder, e.getKey());
        }
        if (logins != null) {
            requireUsers(context, logins);
        }
        Handler app = new SaslPrincipalHandler(context);
        Map<String, Supplier<X509Certificate>> certificates = new LinkedHashMap<>();
        for (TlsReload reload : tlsReloads) {
            if (reload.hasKeyStore()) {
                for (String name : reload.names()) {
                    certificates.put(name, reload::servedCertificate);
                }
            }
        }
        metrics = options.metrics() ? new GatewayMetrics(server, threads, listeners, attachments, certificates) : null;
        if (metrics != null) {
            app = metrics.timed(app);
        }
        // GracefulHandler: on stop, new requests get 503 while the ones in flight finish (up to the stop timeout).
        server.setHandler(new GracefulHandler(operatorSurface(app, logins, httpConfig)));
        if (options.requestLog() != null) {
            // Jetty's own request log: AMQP requests pass HttpChannel, so they are logged as HTTP ones are.
            RequestLogWriter writer = new RequestLogWriter(options.requestLog());
            server.setRequestLog(new CustomRequestLog(writer, CustomRequestLog.EXTENDED_NCSA_FORMAT));
        }
    }

    /**
     * The operator paths that are on, in front of {@code app}, or {@code app} itself when none is: {@code --stats}
     * (the counters), {@code --metrics} (Prometheus text; on its own port with {@code --metrics-port}),
     * {@code --bench-floor} (the benchmark's floor, loopback clients only). With users they need the same
     * credentials as the servlets: BASIC over HTTP, the SASL login over AMQP; the health paths ({@code --health})
     * need none.
     */
    private Handler operatorSurface(Handler app, HashLoginService logins, HttpConfiguration httpConfig) {
        List<Handler> endpoints = new ArrayList<>();
        Set<String> paths = new LinkedHashSet<>();
        if (options.stats()) {
            endpoints.add(new GatewayStatsHandler(listeners, attachments));
            paths.add(GatewayStatsHandler.PATH);
        }
        if (metrics != null) {
            endpoints.add(metrics.endpoint());
            if (metricsPort == null) {
                paths.add(GatewayMetrics.PATH);
            }
        }
        if (options.benchFloor()) {
            // The floor's requests say they came through the HTTP connector (else the AMQP one), with the same
            // HttpConfiguration every connector here has.
            endpoints.add(new FloorHandler(http != null ? http : amqp, httpConfig));
            paths.add(FloorHandler.PATH);
        }
        HealthHandler health = null;
        if (options.health()) {
            List<Connector> ports = new ArrayList<>();
            for (Connector port : new Connector[] {amqp, http, amqps, https, metricsPort}) {
                if (port != null) {
                    ports.add(port);
                }
            }
            health = new HealthHandler(server, ports, attachments);
        }
        if (endpoints.isEmpty() && health == null) {
            return app;
        }
        Handler surface = new Handler.Sequence(endpoints);
        if (logins != null) {
            SecurityHandler.PathMapped security = new SecurityHandler.PathMapped();
            security.setLoginService(logins);
            security.setRealmName(logins.getName());
            security.setAuthenticator(new AmqpAuthenticator(new BasicAuthenticator()));
            security.put("/*", Constraint.from(USER_ROLE));
            security.setHandler(surface);
            surface = security;
        }
        return new OperatorHandler(app, surface, health, paths, metricsPort, GatewayMetrics.PATH);
    }

    /**
     * With {@code --classpath}: a class loader over those jars and directories, whose parent is the gateway's own
     * (so the servlet API is shared); it loads the {@code --servlet} classes and is the context's class loader (a
     * war's class loader's parent). Without: the gateway's class loader.
     */
    private static ClassLoader userClassLoader(GatewayOptions options) {
        ClassLoader own = Gateway.class.getClassLoader();
        if (options.classpath().isEmpty()) {
            return own;
        }
        URL[] urls = new URL[options.classpath().size()];
        for (int i = 0; i < urls.length; i++) {
            File entry = new File(options.classpath().get(i));
            if (!entry.exists()) {
                throw new IllegalArgumentException("--classpath " + entry + ": no such file or directory");
            }
            try {
                urls[i] = entry.getAbsoluteFile().toURI().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("--classpath " + entry + ": " + e.getMessage(), e);
            }
        }
        return new URLClassLoader("amqp-servlet-classpath", urls, own);
    }

    private static Class<? extends Servlet> servletClass(String name, ClassLoader loader, boolean userClasspath)
            throws ClassNotFoundException {
        Class<?> type;
        try {
            type = Class.forName(name, true, loader);
        } catch (ClassNotFoundException e) {
            throw new ClassNotFoundException("servlet class " + name + " not found" + (userClasspath
                    ? " in --classpath or the gateway's class path" : " (give its jar or classes with --classpath)"), e);
        }
        if (!Servlet.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("--servlet " + name + " is not a jakarta.servlet.Servlet");
        }
        return type.asSubclass(Servlet.class);
    }

    /**
     * With users: every request to the servlets needs one of them, so the HTTP port is no back door around SASL.
     * AMQP requests are authenticated by their connection's SASL PLAIN login ({@link AmqpAuthenticator}), HTTP ones
     * by BASIC auth against the same users (role {@code user}). A war's own constraints add to this one.
     */
    private static void requireUsers(ServletContextHandler context, HashLoginService logins) {
        ConstraintSecurityHandler security = context.getSecurityHandler() instanceof ConstraintSecurityHandler c
                ? c : new ConstraintSecurityHandler();
        security.setLoginService(logins);
        security.setRealmName(logins.getName());
        security.setAuthenticator(new AmqpAuthenticator(new BasicAuthenticator()));
        ConstraintMapping everything = new ConstraintMapping();
        everything.setPathSpec("/*");
        everything.setConstraint(Constraint.from(USER_ROLE));
        security.addConstraintMapping(everything);
        if (context.getSecurityHandler() != security) {
            context.setSecurityHandler(security);
        }
    }

    /**
     * Attach mode: consumes the queue of {@code uri} (its own factory, with the listener's limits, engine limits and
     * request timeout). An {@code amqps} URI trusts the --attach-truststore, else the --tls-truststore, else the JVM's trust
     * store, and presents the --attach-keystore's certificate when there is one.
     */
    private AmqpBrokerAttachment attachment(String uri, HttpConfiguration httpConfig)
            throws GatewayOptions.UsageException {
        // The engine limits as for the AMQP ports: the attachment takes those that bound what a broker may send.
        AmqpConnectionFactory factory = new AmqpConnectionFactory(httpConfig,
                options.engineLimits().applyTo(new EngineConfig()));
        applyLimits(factory);
        AmqpBrokerAttachment attachment = new AmqpBrokerAttachment(server, factory);
        try {
            attachment.setUri(uri);
        } catch (IllegalArgumentException e) {
            throw new GatewayOptions.UsageException("--attach: " + e.getMessage());
        }
        // Named for its queues (its meters' and counters' key), made unique when two attach the same queues.
        String name = "attach:" + String.join(",", attachment.getAddresses());
        for (int n = 2; named(name); n++) {
            name = "attach:" + String.join(",", attachment.getAddresses()) + "#" + n;
        }
        attachment.setName(name);
        attachment.setCredit(options.attachCredit());
        attachment.setRequestUser(options.attachRequestUser());
        if (options.attachIdleTimeoutMillis() >= 0) {
            attachment.setIdleTimeout(options.attachIdleTimeoutMillis());
        }
        attachment.setAttachTimeout(options.attachTimeoutMillis());
        if (options.attachMinReconnectDelayMillis() > options.attachMaxReconnectDelayMillis()) {
            throw new GatewayOptions.UsageException("--attach-min-reconnect-delay (" + options.attachMinReconnectDelayMillis()
                    + ") is above --attach-max-reconnect-delay (" + options.attachMaxReconnectDelayMillis() + ")");
        }
        attachment.setReconnectDelay(options.attachMinReconnectDelayMillis(), options.attachMaxReconnectDelayMillis());
        if (options.attachTrustUserId()) {
            if (options.attachRequestUser() != null) {
                throw new GatewayOptions.UsageException("--attach-trust-user-id and --attach-request-user exclude each "
                        + "other: the user is each message's, or the same for all");
            }
            attachment.setTrustUserId(true);
        }
        attachment.setAtMostOnce(options.attachAtMostOnce());
        if (attachment.isTls() && (options.attachTrustStore() != null || options.attachKeyStore() != null)) {
            SslContextFactory.Client tls = new SslContextFactory.Client();
            if (options.attachTrustStore() != null) {
                tls.setTrustStorePath(options.attachTrustStore());
                tls.setTrustStorePassword(options.attachTrustStorePassword());
            }
            if (options.attachKeyStore() != null) {
                tls.setKeyStorePath(options.attachKeyStore());
                tls.setKeyStorePassword(options.attachKeyStorePassword());
            }
            attachment.setSslContextFactory(tls);
            watch(new TlsReload("--attach", tls, server.getScheduler(),
                    options.tlsReloadIntervalMillis())
                    .keyStore("--attach-keystore", options.attachKeyStore(), options.attachKeyStorePassword())
                    .trustStore("--attach-truststore", options.attachTrustStore(),
                            options.attachTrustStorePassword()));
        }
        if (options.attachSaslExternal()) {
            if (!attachment.isTls() || options.attachKeyStore() == null) {
                throw new GatewayOptions.UsageException("--attach-sasl-external needs an amqps:// URI and --attach-keystore "
                        + "(the client certificate is the identity): " + uri);
            }
            attachment.setSaslExternal(true);
        }
        server.addConnector(attachment);
        return attachment;
    }

    private boolean named(String name) {
        for (Connector c : server.getConnectors()) {
            if (name.equals(c.getName())) {
                return true;
            }
        }
        return false;
    }

    /** The attachments to brokers ({@code --attach}), in the order given. */
    public List<AmqpBrokerAttachment> attachments() {
        return List.copyOf(attachments);
    }

    /** The watchers of renewed stores, one per set of store files, in the order the ports and attachments were made. */
    List<TlsReload> tlsReloads() {
        return List.copyOf(tlsReloads);
    }

    /**
     * The server budget, close and request timeouts, write coalescing and offered connection properties of one AMQP
     * port (each factory counts its own connections and bytes).
     */
    private void applyLimits(AmqpConnectionFactory factory) {
        factory.setConnectionProperties(options.connectionProperties());
        factory.setMaxConnections(options.maxConnections());
        factory.setMaxHandshakingConnections(options.maxHandshakes());
        factory.setMaxConnectionsPerAddress(options.maxConnectionsPerAddress());
        factory.setMaxHandshakesPerAddress(options.maxHandshakesPerAddress());
        factory.setMaxFailedLoginsPerAddress(options.maxFailedLoginsPerAddress());
        factory.setFailedLoginsWindowMillis(options.failedLoginsWindowMillis());
        factory.setMaxBufferedBytes(options.maxBufferedBytes());
        factory.setCloseTimeout(options.closeTimeoutMillis());
        factory.setRequestTimeout(options.requestTimeoutMillis());
        factory.setWriteCoalescing(options.writeCoalescingMicros());
    }

    /**
     * The factories of a port that takes AMQP, behind Jetty's {@code ProxyConnectionFactory} with
     * {@code --proxy-protocol}: it reads the PROXY header (v1 or v2) and names the client behind the load balancer as
     * the connection's remote address, which the per-address limits count. {@code first} is the factory the PROXY
     * header leads to.
     */
    private ConnectionFactory[] proxied(ConnectionFactory first, ConnectionFactory... factories) {
        if (!options.proxyProtocol()) {
            return factories;
        }
        ConnectionFactory[] all = new ConnectionFactory[factories.length + 1];
        all[0] = new ProxyConnectionFactory(first.getProtocol());
        System.arraycopy(factories, 0, all, 1, factories.length);
        return all;
    }

    /**
     * The AMQP factory of the port {@code port}: every AMQP port's engine settings, users and limits, and a server
     * budget and counters of its own, reported under the port's name.
     */
    private AmqpConnectionFactory amqpFactory(String port, HttpConfiguration httpConfig, EngineConfig engineConfig,
                                              HashLoginService logins) {
        AmqpConnectionFactory factory = new AmqpConnectionFactory(httpConfig, engineConfig);
        if (logins != null) {
            factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        }
        applyLimits(factory);
        listeners.put(port, factory);
        return factory;
    }

    /**
     * HTTP/1.1, with h2c by prior knowledge or upgrade. With {@code --amqp-on-http-port} a detector goes first: a
     * connection that starts with {@code AMQP} goes to the port's own AMQP factory, any other to HTTP/1.1 as without
     * it (so bytes that are neither still get HTTP's 400). The port then counts as an AMQP port, PROXY header
     * included.
     */
    private ServerConnector httpConnector(HttpConfiguration httpConfig, EngineConfig engineConfig,
                                          HashLoginService logins) {
        HttpConnectionFactory http11 = new HttpConnectionFactory(httpConfig);
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(httpConfig);
        if (!options.amqpOnHttpPort()) {
            return connector("http", options.httpPort(), http11, h2c);
        }
        DetectorConnectionFactory detector = new DetectorConnectionFactory(
                amqpFactory("http", httpConfig, engineConfig, logins));
        return connector("http", options.httpPort(), proxied(detector, detector, http11, h2c));
    }

    /**
     * TLS, then AMQP: its own factory (same engine settings and users), with SASL EXTERNAL if certificates are asked.
     * With {@code --amqp-on-amqps-port} TLS sits in a detector: a connection that starts with a TLS handshake goes
     * through TLS to the AMQP factory, any other straight to the same factory (same limits, same counters), where
     * EXTERNAL is never offered, since there is no certificate.
     */
    private ServerConnector amqpsConnector(HttpConfiguration httpConfig, EngineConfig engineConfig,
                                           HashLoginService logins) throws GatewayOptions.UsageException {
        SslContextFactory.Server tls = tls("--amqps-port");
        AmqpConnectionFactory factory = amqpFactory("amqps", httpConfig, engineConfig, logins);
        factory.setSaslExternal(!"none".equals(options.tlsClientAuth()));
        SslConnectionFactory ssl = new SslConnectionFactory(tls, factory.getProtocol());
        if (options.amqpOnAmqpsPort()) {
            DetectorConnectionFactory detector = new DetectorConnectionFactory(ssl);
            return connector("amqps", options.amqpsPort(), proxied(detector, detector, factory));
        }
        return connector("amqps", options.amqpsPort(), proxied(ssl, ssl, factory));
    }

    /**
     * TLS, then HTTP/1.1 (no h2: that needs ALPN, which the jar does not carry). The requests are marked secure
     * (scheme https, the TLS session's attributes) by Jetty's {@code SecureRequestCustomizer}. With
     * {@code --amqp-on-https-port} a detector follows TLS: a connection whose first bytes after the handshake are
     * {@code AMQP} goes to the port's own AMQP factory, made as the AMQPS port's is (SASL EXTERNAL when certificates
     * are asked), any other to HTTP/1.1 as without it. The port then counts as an AMQP port, PROXY header included.
     */
    private ServerConnector httpsConnector(HttpConfiguration httpConfig, EngineConfig engineConfig,
                                           HashLoginService logins) throws GatewayOptions.UsageException {
        HttpConfiguration httpsConfig = new HttpConfiguration(httpConfig);
        httpsConfig.addCustomizer(new SecureRequestCustomizer());
        HttpConnectionFactory http11 = new HttpConnectionFactory(httpsConfig);
        SslContextFactory.Server tls = tls("--https-port");
        if (!options.amqpOnHttpsPort()) {
            return connector("https", options.httpsPort(), new SslConnectionFactory(tls, http11.getProtocol()), http11);
        }
        AmqpConnectionFactory factory = amqpFactory("https", httpConfig, engineConfig, logins);
        factory.setSaslExternal(!"none".equals(options.tlsClientAuth()));
        DetectorConnectionFactory detector = new DetectorConnectionFactory(factory);
        SslConnectionFactory ssl = new SslConnectionFactory(tls, detector.getProtocol());
        return connector("https", options.httpsPort(), proxied(ssl, ssl, detector, http11));
    }

    /**
     * {@code reload} knows the certificate served (logged at start, and a meter with {@code --metrics}) and, with
     * {@code --tls-reload-interval} above 0, watches its stores while the server runs (a bean of it), so that a store
     * renewed on disk is used for new connections without a restart. One that watches the same files as an earlier
     * one joins it: the files are read once per interval and one log line names both.
     */
    private void watch(TlsReload reload) {
        if (!reload.watchesAny()) {
            return;
        }
        for (TlsReload earlier : tlsReloads) {
            if (earlier.sameStoresAs(reload)) {
                earlier.alsoFor(reload);
                return;
            }
        }
        tlsReloads.add(reload);
        server.addBean(reload);
    }

    /** The server side of TLS from the --tls-* options, shared by AMQPS and HTTPS (each port gets its own). */
    private SslContextFactory.Server tls(String forOption) throws GatewayOptions.UsageException {
        if (options.tlsKeyStore() == null) {
            throw new GatewayOptions.UsageException(forOption + " needs --tls-keystore");
        }
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStorePath(options.tlsKeyStore());
        tls.setKeyStorePassword(options.tlsKeyStorePassword());
        if (options.tlsTrustStore() != null) {
            tls.setTrustStorePath(options.tlsTrustStore());
            tls.setTrustStorePassword(options.tlsTrustStorePassword());
        }
        watch(new TlsReload(forOption, tls, server.getScheduler(), options.tlsReloadIntervalMillis())
                .keyStore("--tls-keystore", options.tlsKeyStore(), options.tlsKeyStorePassword())
                .trustStore("--tls-truststore", options.tlsTrustStore(), options.tlsTrustStorePassword()));
        tls.setWantClientAuth("want".equals(options.tlsClientAuth()));
        tls.setNeedClientAuth("need".equals(options.tlsClientAuth()));
        return tls;
    }

    /**
     * A port named {@code name}: the name tags its meters ({@code connector.name}, of Micrometer's connection meters
     * and of the AMQP ones alike) and keys its counters in the stats.
     */
    private ServerConnector connector(String name, int port, ConnectionFactory... factories) {
        ServerConnector c = new ServerConnector(server, 1, 1, factories);
        c.setName(name);
        c.setHost(options.bind());
        c.setAcceptQueueSize(options.acceptBacklog());
        c.setPort(port);
        server.addConnector(c);
        return c;
    }

    /**
     * Binds the ports and starts serving; logs the endpoints and the SASL mode. When anything fails to start (a
     * port in use, a war that cannot deploy) the server is stopped again and the failure thrown.
     */
    public void start() throws Exception {
        try {
            server.start();
        } catch (Exception | Error e) {
            try {
                server.stop();
            } catch (Exception stopFailure) {
                e.addSuppressed(stopFailure);
            }
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof java.nio.channels.UnresolvedAddressException) {
                    // Jetty's own text is "Failed to bind to x/<unresolved>:0"; its failure is kept as suppressed.
                    IllegalStateException unknown = new IllegalStateException("--bind " + options.bind()
                            + ": no such host or address");
                    unknown.addSuppressed(e);
                    throw unknown;
                }
            }
            if (options.war() != null && e instanceof Exception && !(e instanceof java.io.IOException)) {
                // Not a port in use (an IOException): the web application is what failed.
                throw new IllegalStateException("--war " + options.war() + " failed to deploy: "
                        + FailureText.describe(e), e);
            }
            throw e;
        }
        String sasl = options.users().isEmpty() ? "SASL ANONYMOUS (no users configured)"
                : "SASL PLAIN for " + options.users().size() + " user(s), ANONYMOUS refused";
        String httpAuth = options.users().isEmpty() ? "anonymous" : "BASIC auth for the same users";
        if (amqp != null) {
            LOG.info("AMQP 1.0 on amqp://{}:{} ({})", options.bind(), amqp.getLocalPort(), sasl);
        }
        if (amqps != null) {
            LOG.info("AMQP 1.0 over TLS on amqps://{}:{} ({}{}){}", options.bind(), amqps.getLocalPort(), sasl,
                    "none".equals(options.tlsClientAuth()) ? "" : ", SASL EXTERNAL for client certificates",
                    options.amqpOnAmqpsPort() ? ", and clear-text AMQP 1.0 on the same port" : "");
        }
        if (http != null) {
            LOG.info("HTTP/1.1 and h2c on http://{}:{} ({}){}", options.bind(), http.getLocalPort(), httpAuth,
                    options.amqpOnHttpPort() ? ", and AMQP 1.0 on the same port (" + sasl + ")" : "");
        }
        if (https != null) {
            LOG.info("HTTP/1.1 over TLS on https://{}:{} ({}){}", options.bind(), https.getLocalPort(), httpAuth,
                    options.amqpOnHttpsPort() ? ", and AMQP 1.0 over TLS on the same port (" + sasl
                            + ("none".equals(options.tlsClientAuth()) ? "" : ", SASL EXTERNAL for client certificates")
                            + ")" : "");
        }
        if (metrics != null) {
            LOG.info("Prometheus metrics at {} ({})", metricsPort == null ? GatewayMetrics.PATH + " on the HTTP ports"
                    : "http://" + options.bind() + ":" + metricsPort.getLocalPort() + GatewayMetrics.PATH, httpAuth);
        }
        if (options.requestLog() != null) {
            LOG.info("request log: {}", options.requestLog());
        }
        if (options.benchFloor()) {
            LOG.warn("--bench-floor: the benchmark's floor runs at {} for loopback clients", FloorHandler.PATH);
        }
        LOG.info("serving {}", options.demo() ? "the demo app" : options.war() != null
                ? "war " + options.war() + (options.servlets().isEmpty() ? "" : " and " + options.servlets())
                : options.servlets().toString());
    }

    /** Stops accepting, lets requests in flight finish (up to the stop timeout), then stops. */
    public void stop() throws Exception {
        try {
            server.stop();
        } finally {
            if (metrics != null) {
                metrics.close();
            }
        }
    }

    /** The bound port of {@code --metrics-port}, or -1 when off or not started. */
    public int metricsPort() {
        return metricsPort == null ? -1 : metricsPort.getLocalPort();
    }

    /** The bound AMQP port, or -1 when off or not started. */
    public int amqpPort() {
        return amqp == null ? -1 : amqp.getLocalPort();
    }

    /** The bound AMQPS port, or -1 when off or not started. */
    public int amqpsPort() {
        return amqps == null ? -1 : amqps.getLocalPort();
    }

    /** The bound HTTPS port, or -1 when off or not started. */
    public int httpsPort() {
        return https == null ? -1 : https.getLocalPort();
    }

    /** The bound HTTP port, or -1 when off or not started. */
    public int httpPort() {
        return http == null ? -1 : http.getLocalPort();
    }

    /** The Jetty server, for embedding and tests. */
    public Server server() {
        return server;
    }
}
