package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.AmqpServerBudget;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;

/**
 * The gateway's command line (picocli). Every setter hands its value to {@link GatewayOptions#set}, the same checks
 * a {@code --config} file's keys go through, in the order the options are given; a bad value becomes a usage error
 * naming the option (exit status 2).
 */
@Command(name = "amqp-servlet", mixinStandardHelpOptions = true, versionProvider = GatewayVersion.class,
        sortOptions = false, usageHelpWidth = 110,
        description = {"Serves servlets over AMQP 1.0 (and the same servlets over HTTP).",
            "  amqp-servlet request [options] URL   makes one request over AMQP (see: request --help)"},
        footer = {"", "A --config file takes the same names as keys, without the leading -- (user.1=alice:pw for repeats).",
            "Without --servlet or --war the demo app is served: /echo[/...], /status/{code}, /throw, /slow?ms=N,",
            "/bytes/{n}, /whoami, /orders, and /queues, /exchanges, /bindings for RabbitMQ's AMQP 1.0 clients",
            "(see docs/gateway.md)."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:--help or --version", "1:cannot start (port in use, class or war missing)",
            "2:bad command line (or an unreadable --config file)",
            "3:out of memory (the JVM's -XX:+ExitOnOutOfMemoryError, as bin/amqp-servlet runs it)",
            "130:stopped by Ctrl-C (SIGINT), after the graceful stop",
            "143:stopped by SIGTERM, after the graceful stop (systemd: SuccessExitStatus=143)"})
final class GatewayCommand {
    private final GatewayOptions o;
    @Spec
    private CommandSpec spec;
    /** The engine's limits per connection, listed after --close-timeout. */
    @Mixin
    private final EngineLimitOptions engineLimits;

    GatewayCommand(GatewayOptions options) {
        this.o = options;
        this.engineLimits = new EngineLimitOptions(options);
    }

    private void set(String name, String value) {
        try {
            o.set(name, value);
        } catch (GatewayOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    @Option(order = 1, names = "--amqp-port", paramLabel = "N", description = "AMQP port (default 5672; 0 = ephemeral, -1 = off)")
    void amqpPort(String port) {
        set("amqp-port", port);
    }

    @Option(order = 2, names = "--http-port", paramLabel = "N",
            description = "HTTP/1.1 and h2c port for the same servlets (default 8080; 0, -1 as above)")
    void httpPort(String port) {
        set("http-port", port);
    }

    @Option(order = 3, names = "--bind", paramLabel = "ADDRESS", description = "address to listen on (default 127.0.0.1)")
    void bind(String address) {
        set("bind", address);
    }

    @Option(order = 4, names = "--user", paramLabel = "NAME:PASSWORD", description = "a user (repeatable): AMQP then requires "
            + "SASL PLAIN and HTTP requires BASIC auth; without users both are anonymous")
    void user(String user) {
        set("user", user);
    }

    @Option(order = 5, names = "--servlet", paramLabel = "/PATH=CLASS",
            description = "serve a servlet class (from the class path or --classpath) at PATH (repeatable)")
    void servlet(String servlet) {
        set("servlet", servlet);
    }

    @Option(order = 6, names = {"-cp", "--classpath"}, paramLabel = "JARS",
            description = "jars and class directories for --servlet classes, separated by the platform's path "
                    + "separator (':' on Linux and macOS) (repeatable)")
    void classpath(String entries) {
        set("classpath", entries);
    }

    @Option(order = 7, names = "--war", paramLabel = "FILE",
            description = "deploy a web application (war file or directory) at /; @WebServlet annotations are scanned")
    void war(String war) {
        set("war", war);
    }

    @Option(order = 8, names = "--amqps-port", paramLabel = "N",
            description = "AMQP over TLS port (default -1 = off; needs --tls-keystore)")
    void amqpsPort(String port) {
        set("amqps-port", port);
    }

    @Option(order = 9, names = "--https-port", paramLabel = "N",
            description = "HTTP/1.1 over TLS port (default -1 = off; needs --tls-keystore)")
    void httpsPort(String port) {
        set("https-port", port);
    }

    @Option(order = 10, names = "--amqp-on-http-port", description = "the HTTP port takes AMQP too: a connection "
            + "that starts with the AMQP header is AMQP, any other HTTP; the port's AMQP has the AMQP options' limits "
            + "of its own, as each AMQP port has")
    void amqpOnHttpPort(boolean on) {
        o.amqpOnHttpPort = on;
    }

    @Option(order = 11, names = "--amqp-on-amqps-port", description = "the AMQPS port takes clear-text AMQP too: a "
            + "connection that starts with a TLS handshake is AMQPS, any other AMQP; one set of limits for both "
            + "(not with --tls-client-auth need)")
    void amqpOnAmqpsPort(boolean on) {
        o.amqpOnAmqpsPort = on;
    }

    @Option(order = 12, names = "--amqp-on-https-port", description = "the HTTPS port takes AMQP over TLS too: "
            + "after the TLS handshake a connection that starts with the AMQP header is AMQP, any other HTTP; the "
            + "port's AMQP has the AMQP options' limits of its own, as each AMQP port has")
    void amqpOnHttpsPort(boolean on) {
        o.amqpOnHttpsPort = on;
    }

    @Option(order = 13, names = "--tls-keystore", paramLabel = "FILE",
            description = "PKCS12 key store with the server's key and certificate")
    void tlsKeyStore(String file) {
        set("tls-keystore", file);
    }

    @Option(order = 14, names = "--tls-keystore-password", paramLabel = "PW", description = "its password")
    void tlsKeyStorePassword(String password) {
        set("tls-keystore-password", password);
    }

    @Option(order = 15, names = "--tls-truststore", paramLabel = "FILE",
            description = "trust store for client certificates (default: the JDK's)")
    void tlsTrustStore(String file) {
        set("tls-truststore", file);
    }

    @Option(order = 16, names = "--tls-truststore-password", paramLabel = "PW", description = "its password (default: the key "
            + "store's)")
    void tlsTrustStorePassword(String password) {
        set("tls-truststore-password", password);
    }

    @Option(order = 17, names = "--tls-client-auth", paramLabel = "MODE", description = "none (default), want or need a client "
            + "certificate; with want or need a certificate's subject DN is the client's SASL EXTERNAL identity")
    void tlsClientAuth(String mode) {
        set("tls-client-auth", mode);
    }

    @Option(order = 18, names = "--tls-reload-interval", paramLabel = "MS", description = "how often the TLS key and "
            + "trust stores (--tls-* and --attach-*) are looked at: one that changed is loaded and used for new "
            + "connections (default " + GatewayOptions.DEFAULT_TLS_RELOAD_INTERVAL_MILLIS + "; 0 = never)")
    void tlsReloadInterval(String millis) {
        set("tls-reload-interval", millis);
    }

    @Option(order = 19, names = "--accept-backlog", paramLabel = "N", description = "connections the kernel queues before they "
            + "are accepted, per port (default " + GatewayOptions.DEFAULT_ACCEPT_BACKLOG + "; capped by "
            + "net.core.somaxconn)")
    void acceptBacklog(String n) {
        set("accept-backlog", n);
    }

    @Option(order = 20, names = "--max-connections", paramLabel = "N", description = "AMQP connections each AMQP port keeps "
            + "open at once; one more is closed with amqp:resource-limit-exceeded (default "
            + AmqpServerBudget.DEFAULT_MAX_CONNECTIONS + ")")
    void maxConnections(String n) {
        set("max-connections", n);
    }

    @Option(order = 21, names = "--max-handshakes", paramLabel = "N", description = "connections each AMQP port holds between "
            + "accept and the client's open; when full, the oldest handshake stalled "
            + AmqpServerBudget.HANDSHAKE_STALLED_MILLIS / 1000 + " s or more makes room, else the new one is closed at "
            + "once (default " + AmqpServerBudget.DEFAULT_MAX_HANDSHAKING_CONNECTIONS + ")")
    void maxHandshakes(String n) {
        set("max-handshakes", n);
    }

    @Option(order = 22, names = "--max-connections-per-address", paramLabel = "N", description = "AMQP connections one "
            + "source address (IPv4 address, IPv6 /64) keeps open at once per AMQP port; one more from it is closed "
            + "with amqp:resource-limit-exceeded (default " + AmqpServerBudget.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
            + "; 0: no limit, as behind a load balancer without --proxy-protocol)")
    void maxConnectionsPerAddress(String n) {
        set("max-connections-per-address", n);
    }

    @Option(order = 23, names = "--max-handshakes-per-address", paramLabel = "N", description = "connections of one "
            + "source address each AMQP port holds between accept and the client's open; when full, its oldest "
            + "handshake stalled " + AmqpServerBudget.HANDSHAKE_STALLED_MILLIS / 1000 + " s or more makes room, "
            + "else the new one is closed at once (default " + AmqpServerBudget.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS
            + "; 0: no limit)")
    void maxHandshakesPerAddress(String n) {
        set("max-handshakes-per-address", n);
    }

    @Option(order = 46, names = "--max-failed-logins-per-address", paramLabel = "N", description = "failed SASL "
            + "logins one source address may have in a burst, and again per --failed-logins-window, per AMQP port; "
            + "past it a login is refused with sasl-outcome sys-temp before its password is checked (default "
            + AmqpServerBudget.DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS + "; 0: no limit)")
    void maxFailedLoginsPerAddress(String n) {
        set("max-failed-logins-per-address", n);
    }

    @Option(order = 47, names = "--failed-logins-window", paramLabel = "MS", description = "the time in which an "
            + "address's allowance of failed logins refills whole, one at a time (default "
            + AmqpServerBudget.DEFAULT_FAILED_LOGINS_WINDOW_MILLIS + ")")
    void failedLoginsWindow(String millis) {
        set("failed-logins-window", millis);
    }

    @Option(order = 25, names = "--proxy-protocol", description = "every port that takes AMQP reads a PROXY "
            + "protocol header (v1 or v2, as HAProxy and cloud load balancers send) before AMQP, TLS or HTTP: the "
            + "per-address limits and the logs see the client's address, not the load balancer's")
    void proxyProtocol(boolean on) {
        o.proxyProtocol = on;
    }

    @Option(order = 24, names = "--max-buffered-bytes", paramLabel = "SIZE", description = "request bodies not yet read and "
            + "responses not yet written, with a fixed cost per request served, session, link and unsettled delivery, "
            + "across each AMQP port's connections (k, m, g suffixes; default 64m); when used up, no credit is granted "
            + "and new requests are released; so for one source address at half of it")
    void maxBufferedBytes(String size) {
        set("max-buffered-bytes", size);
    }

    @Option(order = 29, names = "--close-timeout", paramLabel = "MS", description = "how long a client has to answer our "
            + "close before it is dropped (default " + AmqpConnectionFactory.DEFAULT_CLOSE_TIMEOUT_MILLIS + ")")
    void closeTimeout(String millis) {
        set("close-timeout", millis);
    }

    @Option(order = 26, names = "--request-timeout", paramLabel = "MS", description = "how long an AMQP request may "
            + "take before its client is answered 503 (default " + AmqpConnectionFactory.DEFAULT_REQUEST_TIMEOUT_MILLIS
            + "; 0: no limit)")
    void requestTimeout(String millis) {
        set("request-timeout", millis);
    }

    @Option(order = 27, names = "--write-coalescing", paramLabel = "MICROS", description = "how long an AMQP "
            + "connection holds a ready response back while it still serves others, so they leave in one write "
            + "(default " + AmqpConnectionFactory.DEFAULT_WRITE_COALESCING_MICROS + "; 0: never; at most "
            + AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS + ")")
    void writeCoalescing(String micros) {
        set("write-coalescing", micros);
    }

    @Option(order = 28, names = "--connection-property", paramLabel = "KEY=VALUE", description = "a property the "
            + "AMQP open offers, KEY as a symbol and VALUE as a string (repeatable); RabbitMQ's AMQP 1.0 clients "
            + "want product=RabbitMQ, version=4.0.0 (or later) and node=NAME")
    void connectionProperty(String property) {
        set("connection-property", property);
    }

    @Option(order = 50, names = "--stop-timeout", paramLabel = "MS",
            description = "how long shutdown waits for in-flight requests (default 30000)")
    void stopTimeout(String millis) {
        set("stop-timeout", millis);
    }

    @Option(order = 51, names = "--stats",
            description = "serve the AMQP counters (connections, requests, budget, attachments) and the process's "
                    + "(CPU, allocation, GC) as JSON at /.amqp-servlet/stats")
    void stats(boolean on) {
        o.stats = on;
    }

    @Option(order = 52, names = "--metrics", description = "serve Prometheus text at /metrics on the HTTP ports "
            + "(Micrometer: AMQP, Jetty and JVM meters)")
    void metrics(boolean on) {
        o.metrics = on;
    }

    @Option(order = 53, names = "--metrics-port", paramLabel = "N", description = "serve /metrics on this port "
            + "only, not on the HTTP ports (implies --metrics; 0 = ephemeral)")
    void metricsPort(String port) {
        set("metrics-port", port);
    }

    @Option(order = 54, names = "--health", description = "serve /health/live (200 while the gateway answers) "
            + "and /health/ready (200 while every port accepts and every attachment is attached, else 503) on the "
            + "HTTP ports and the metrics port, without credentials")
    void health(boolean on) {
        o.health = on;
    }

    @Option(order = 55, names = "--request-log", paramLabel = "FILE", description = "log every request, AMQP and "
            + "HTTP, to FILE in Jetty's extended NCSA format (yyyy_mm_dd in the name rolls it over daily)")
    void requestLog(String file) {
        set("request-log", file);
    }

    @Option(order = 56, names = "--bench-floor", description = "benchmarks only: run the floor at "
            + "/.amqp-servlet/floor for loopback clients (load-tests/bench gateway)")
    void benchFloor(boolean on) {
        o.benchFloor = on;
    }

    @Option(order = 58, names = "--attach", paramLabel = "URI", description = "attach mode: consume requests from a "
            + "broker queue, amqp[s]://[user:password@]host[:port][,host[:port]...]/queue (repeatable; the hosts are a "
            + "failover list); responses go to each request's reply-to through the broker")
    void attach(String uri) {
        set("attach", uri);
    }

    @Option(order = 59, names = "--attach-credit", paramLabel = "N", description = "requests each attached queue may have "
            + "in flight here, being served or awaiting the broker's outcome for their response (default: half the "
            + "thread pool, 100)")
    void attachCredit(String n) {
        set("attach-credit", n);
    }

    @Option(order = 60, names = "--attach-request-user", paramLabel = "NAME", description = "the user servlets see on "
            + "attached requests (default: none)")
    void attachRequestUser(String name) {
        set("attach-request-user", name);
    }

    @Option(order = 61, names = "--attach-trust-user-id", description = "the user servlets see on an attached "
            + "request is its message's user-id (none without one); only for brokers that check every producer's "
            + "user-id against its login (docs/attach.md), else anyone can claim to be anyone")
    void attachTrustUserId(boolean on) {
        o.attachTrustUserId = on;
    }

    @Option(order = 62, names = "--attach-at-most-once", description = "attached requests and their responses are "
            + "pre-settled: never served twice, but a request this gateway holds when it, its connection or the broker fails is "
            + "lost, not delivered again (docs/attach.md)")
    void attachAtMostOnce(boolean on) {
        o.attachAtMostOnce = on;
    }

    @Option(order = 63, names = "--attach-keystore", paramLabel = "FILE", description = "PKCS12 key store with the "
            + "client certificate the gateway presents to amqps:// brokers")
    void attachKeyStore(String file) {
        set("attach-keystore", file);
    }

    @Option(order = 64, names = "--attach-keystore-password", paramLabel = "PW", description = "its password")
    void attachKeyStorePassword(String password) {
        set("attach-keystore-password", password);
    }

    @Option(order = 65, names = "--attach-truststore", paramLabel = "FILE", description = "trust store for the "
            + "brokers' certificates (default: --tls-truststore, else the JDK's)")
    void attachTrustStore(String file) {
        set("attach-truststore", file);
    }

    @Option(order = 66, names = "--attach-truststore-password", paramLabel = "PW", description = "its password "
            + "(default: the attach key store's)")
    void attachTrustStorePassword(String password) {
        set("attach-truststore-password", password);
    }

    @Option(order = 67, names = "--attach-sasl-external", description = "log in to the brokers with SASL EXTERNAL: "
            + "the --attach-keystore certificate is the identity (amqps:// URIs without a user)")
    void attachSaslExternal(boolean on) {
        o.attachSaslExternal = on;
    }

    @Option(order = 68, names = "--attach-idle-timeout", paramLabel = "MS", description = "how long an attached "
            + "broker may send nothing before the gateway connects again; half is announced, so the broker "
            + "heartbeats (default 60000; 0 = never)")
    void attachIdleTimeout(String millis) {
        set("attach-idle-timeout", millis);
    }

    @Option(order = 69, names = "--attach-min-reconnect-delay", paramLabel = "MS", description = "the first wait "
            + "before connecting to a broker again after a failure; it doubles with each failure (default 100)")
    void attachMinReconnectDelay(String millis) {
        set("attach-min-reconnect-delay", millis);
    }

    @Option(order = 70, names = "--attach-max-reconnect-delay", paramLabel = "MS", description = "the longest wait "
            + "before connecting to a broker again (default 30000)")
    void attachMaxReconnectDelay(String millis) {
        set("attach-max-reconnect-delay", millis);
    }

    @Option(order = 71, names = "--attach-timeout", paramLabel = "MS", description = "how long the broker has to "
            + "answer the connection's handshake and each attach before the gateway connects again (default 10000)")
    void attachTimeout(String millis) {
        set("attach-timeout", millis);
    }

    @Option(order = 57, names = "--config", paramLabel = "FILE", description = "read options from a properties file, where it "
            + "appears: later options override its values")
    void config(String file) {
        try {
            o.load(Path.of(file));
        } catch (GatewayOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
