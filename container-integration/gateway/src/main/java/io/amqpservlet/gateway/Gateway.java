package io.amqpservlet.gateway;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.gateway.demo.DemoApp;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.LoginServicePlainAuthenticator;
import jakarta.servlet.Servlet;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
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
import java.util.Map;

/**
 * The standalone gateway: one Jetty {@link Server} serving the same servlets over AMQP 1.0 (an
 * {@link AmqpConnectionFactory} on its own port) and over HTTP/1.1 and h2c (a second port). Built from
 * {@link GatewayOptions}; {@link #start()} binds both ports, {@link #stop()} stops accepting and waits up to the
 * stop timeout for requests in flight.
 */
public final class Gateway {
    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final GatewayOptions options;
    private final Server server;
    private final ServerConnector amqp;
    private final ServerConnector http;
    private final ServerConnector amqps;
    private final ServerConnector https;

    /** Builds the server (nothing is bound until {@link #start()}). */
    public Gateway(GatewayOptions options) throws ReflectiveOperationException {
        this.options = options;
        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("gateway");
        server = new Server(threads);
        server.setStopTimeout(options.stopTimeoutMillis());
        server.setStopAtShutdown(false); // GatewayMain's hook stops it, after logging

        HashLoginService logins = null;
        if (!options.users().isEmpty()) {
            UserStore store = new UserStore();
            for (GatewayOptions.User u : options.users()) {
                store.addUser(u.name(), Credential.getCredential(u.password()), new String[] {"user"});
            }
            logins = new HashLoginService("amqp-servlet");
            logins.setUserStore(store);
            server.addBean(logins);
        }

        HttpConfiguration httpConfig = new HttpConfiguration();
        httpConfig.setSendServerVersion(false);
        EngineConfig engineConfig = new EngineConfig().containerId("amqp-servlet-gateway")
                .anonymousAllowed(logins == null).saslRequired(logins != null) // no users: SASL optional, as for rhea
                .sessionIncomingWindowFrames(AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES);
        AmqpConnectionFactory amqpFactory = new AmqpConnectionFactory(httpConfig, engineConfig);
        if (logins != null) {
            amqpFactory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        }
        amqp = options.amqpPort() < 0 ? null : connector(options.amqpPort(), amqpFactory);
        http = options.httpPort() < 0 ? null : connector(options.httpPort(),
                new HttpConnectionFactory(httpConfig), new HTTP2CServerConnectionFactory(httpConfig));
        amqps = options.amqpsPort() < 0 ? null : amqpsConnector(httpConfig, engineConfig, logins);
        https = options.httpsPort() < 0 ? null : httpsConnector(httpConfig);
        if (amqp == null && http == null && amqps == null && https == null) {
            throw new IllegalArgumentException("every port is off: nothing to serve");
        }

        ServletContextHandler context;
        if (options.war() != null) {
            WebAppContext webapp = new WebAppContext();
            webapp.setWar(new File(options.war()).getAbsolutePath());
            context = webapp;
        } else {
            context = new ServletContextHandler();
        }
        context.setContextPath("/");
        if (options.demo()) {
            DemoApp.install(context);
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        for (Map.Entry<String, String> e : options.servlets().entrySet()) {
            Class<? extends Servlet> type = Class.forName(e.getValue(), true, loader).asSubclass(Servlet.class);
            ServletHolder holder = new ServletHolder(type);
            holder.setAsyncSupported(true);
            context.addServlet(holder, e.getKey());
        }
        // GracefulHandler: on stop, new requests get 503 while the ones in flight finish (up to the stop timeout).
        Handler app = new SaslPrincipalHandler(context);
        server.setHandler(new GracefulHandler(options.stats() ? new GatewayStatsHandler(app) : app));
    }

    /** TLS, then AMQP: its own factory (same engine settings and users), with SASL EXTERNAL if certificates are asked. */
    private ServerConnector amqpsConnector(HttpConfiguration httpConfig, EngineConfig engineConfig,
                                           HashLoginService logins) {
        SslContextFactory.Server tls = tls("--amqps-port");
        AmqpConnectionFactory factory = new AmqpConnectionFactory(httpConfig, engineConfig);
        if (logins != null) {
            factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        }
        factory.setSaslExternal(!"none".equals(options.tlsClientAuth()));
        return connector(options.amqpsPort(), new SslConnectionFactory(tls, factory.getProtocol()), factory);
    }

    /**
     * TLS, then HTTP/1.1 (no h2: that needs ALPN, which the jar does not carry). The requests are marked secure
     * (scheme https, the TLS session's attributes) by Jetty's {@code SecureRequestCustomizer}.
     */
    private ServerConnector httpsConnector(HttpConfiguration httpConfig) {
        HttpConfiguration httpsConfig = new HttpConfiguration(httpConfig);
        httpsConfig.addCustomizer(new SecureRequestCustomizer());
        HttpConnectionFactory http11 = new HttpConnectionFactory(httpsConfig);
        return connector(options.httpsPort(), new SslConnectionFactory(tls("--https-port"), http11.getProtocol()),
                http11);
    }

    /** The server side of TLS from the --tls-* options, shared by AMQPS and HTTPS (each port gets its own). */
    private SslContextFactory.Server tls(String forOption) {
        if (options.tlsKeyStore() == null) {
            throw new IllegalArgumentException(forOption + " needs --tls-keystore");
        }
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStorePath(options.tlsKeyStore());
        tls.setKeyStorePassword(options.tlsKeyStorePassword());
        if (options.tlsTrustStore() != null) {
            tls.setTrustStorePath(options.tlsTrustStore());
            tls.setTrustStorePassword(options.tlsTrustStorePassword());
        }
        tls.setWantClientAuth("want".equals(options.tlsClientAuth()));
        tls.setNeedClientAuth("need".equals(options.tlsClientAuth()));
        return tls;
    }

    private ServerConnector connector(int port, ConnectionFactory... factories) {
        ServerConnector c = new ServerConnector(server, 1, 1, factories);
        c.setHost(options.bind());
        c.setPort(port);
        // The JDK's default backlog is 50: a burst of connects (many clients reconnecting after a restart) would
        // have SYNs dropped and retried a second later whenever the acceptor falls behind for a moment.
        c.setAcceptQueueSize(1024);
        server.addConnector(c);
        return c;
    }

    /** Binds the ports and starts serving; logs the endpoints and the SASL mode. */
    public void start() throws Exception {
        server.start();
        String sasl = options.users().isEmpty() ? "SASL ANONYMOUS (no users configured)"
                : "SASL PLAIN for " + options.users().size() + " user(s), ANONYMOUS refused";
        if (amqp != null) {
            LOG.info("AMQP 1.0 on amqp://{}:{} ({})", options.bind(), amqp.getLocalPort(), sasl);
        }
        if (amqps != null) {
            LOG.info("AMQP 1.0 over TLS on amqps://{}:{} ({}{})", options.bind(), amqps.getLocalPort(), sasl,
                    "none".equals(options.tlsClientAuth()) ? "" : ", SASL EXTERNAL for client certificates");
        }
        if (http != null) {
            LOG.info("HTTP/1.1 and h2c on http://{}:{}", options.bind(), http.getLocalPort());
        }
        if (https != null) {
            LOG.info("HTTP/1.1 over TLS on https://{}:{}", options.bind(), https.getLocalPort());
        }
        LOG.info("serving {}", options.demo() ? "the demo app" : options.war() != null
                ? "war " + options.war() + (options.servlets().isEmpty() ? "" : " and " + options.servlets())
                : options.servlets().toString());
    }

    /** Stops accepting, lets requests in flight finish (up to the stop timeout), then stops. */
    public void stop() throws Exception {
        server.stop();
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
