package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.jetty.AmqpServerBudget;
import picocli.CommandLine;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static io.amqpservlet.gateway.OptionValues.bool;
import static io.amqpservlet.gateway.OptionValues.nonNegative;
import static io.amqpservlet.gateway.OptionValues.positive;
import static io.amqpservlet.gateway.OptionValues.sizeBytes;

/**
 * The gateway's settings, from command-line options and properties files. A {@code --config} file is read where it
 * appears, so options after it override its values; repeatable options ({@code --user}, {@code --servlet},
 * {@code --classpath}, {@code --connection-property}) add up. The command line is parsed by picocli ({@link GatewayCommand}); both it and the
 * properties file set values through {@link #set}, where each is checked.
 * In a properties file the keys are the option names without dashes; a repeatable one is written either once
 * ({@code user=alice:secret}) or as many keys with a suffix ({@code user.1=alice:secret},
 * {@code servlet.orders=/orders=com.example.Orders}).
 */
public final class GatewayOptions {
    /** Thrown for an option the gateway does not understand; the message says which and why. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    /** A user for SASL PLAIN (and HTTP logins through the same login service). */
    public record User(String name, String password) {
    }

    /** The default --accept-backlog. */
    static final int DEFAULT_ACCEPT_BACKLOG = 1024;
    /** How often the TLS stores are looked at for a change by default: a minute. */
    static final long DEFAULT_TLS_RELOAD_INTERVAL_MILLIS = 60_000;

    int amqpPort = 5672;
    int httpPort = 8080;
    String bind = "127.0.0.1";
    final Map<String, String> users = new LinkedHashMap<>();
    final Map<String, String> servlets = new LinkedHashMap<>();
    String war;
    long stopTimeoutMillis = 30_000;
    // AMQPS (TLS): off unless --amqps-port is given.
    int amqpsPort = -1;
    // HTTPS (HTTP/1.1 over TLS, the same key store): off unless --https-port is given.
    int httpsPort = -1;
    /** The HTTP port also takes AMQP: a connection that starts with "AMQP" is AMQP, any other HTTP. */
    boolean amqpOnHttpPort;
    /** The AMQPS port also takes clear-text AMQP: one that starts with a TLS handshake is AMQPS, any other AMQP. */
    boolean amqpOnAmqpsPort;
    /** The HTTPS port also takes AMQP: after TLS, a connection that starts with "AMQP" is AMQP, any other HTTP. */
    boolean amqpOnHttpsPort;
    String tlsKeyStore;
    String tlsKeyStorePassword;
    String tlsTrustStore;
    String tlsTrustStorePassword;
    String tlsClientAuth = "none";
    /** How often the TLS stores are looked at for a change; 0 for never. */
    long tlsReloadIntervalMillis = DEFAULT_TLS_RELOAD_INTERVAL_MILLIS;
    /** Jars and directories the --servlet classes (and a war's parent class loader) load from. */
    final List<String> classpath = new ArrayList<>();
    /**
     * The listen(2) backlog of every port: connections the kernel completes before Jetty accepts them. Jetty's
     * default of 50 refused hundreds of 1,000 simultaneous connects (EAGAIN); the kernel caps it at
     * {@code net.core.somaxconn}.
     */
    int acceptBacklog = DEFAULT_ACCEPT_BACKLOG;
    /** Per AMQP port: the server budget of its connection factory (see AmqpConnectionFactory). */
    int maxConnections = AmqpServerBudget.DEFAULT_MAX_CONNECTIONS;
    int maxHandshakes = AmqpServerBudget.DEFAULT_MAX_HANDSHAKING_CONNECTIONS;
    int maxConnectionsPerAddress = AmqpServerBudget.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    int maxHandshakesPerAddress = AmqpServerBudget.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;
    int maxFailedLoginsPerAddress = AmqpServerBudget.DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS;
    long failedLoginsWindowMillis = AmqpServerBudget.DEFAULT_FAILED_LOGINS_WINDOW_MILLIS;
    /** Whether every port that takes AMQP reads a PROXY protocol header (a load balancer's) before AMQP or TLS. */
    boolean proxyProtocol;
    long maxBufferedBytes = AmqpServerBudget.DEFAULT_MAX_BUFFERED_BYTES;
    long closeTimeoutMillis = AmqpConnectionFactory.DEFAULT_CLOSE_TIMEOUT_MILLIS;
    /** How long an AMQP request may take before it is answered 503; 0 for no limit. */
    long requestTimeoutMillis = AmqpConnectionFactory.DEFAULT_REQUEST_TIMEOUT_MILLIS;
    long writeCoalescingMicros = AmqpConnectionFactory.DEFAULT_WRITE_COALESCING_MICROS;
    /** The AMQP engine's limits per connection, for every AMQP port and attachment. */
    final EngineLimits engineLimits = new EngineLimits();
    /** Attach mode: the broker URIs whose queues the gateway consumes (AmqpBrokerAttachment). */
    final List<String> attach = new ArrayList<>();
    /** Requests in flight per attached queue; 0 for the attachment's default. */
    int attachCredit;
    String attachRequestUser;
    /** Each attached request's user is its message's user-id, which the broker validated. */
    boolean attachTrustUserId;
    /** Attached requests and their responses are pre-settled (at most once). */
    boolean attachAtMostOnce;
    /** The client certificate presented to amqps brokers, and the trust store for their certificates. */
    String attachKeyStore;
    String attachKeyStorePassword;
    String attachTrustStore;
    String attachTrustStorePassword;
    /** Authenticate to the brokers with SASL EXTERNAL: the client certificate is the identity. */
    boolean attachSaslExternal;
    /** How long an attachment's broker may stay silent before it connects again; -1 for the attachment's default. */
    long attachIdleTimeoutMillis = -1;
    /** The attachment's reconnect delays: the first and the longest. */
    long attachMinReconnectDelayMillis = AmqpBrokerAttachment.DEFAULT_MIN_RECONNECT_DELAY_MILLIS;
    long attachMaxReconnectDelayMillis = AmqpBrokerAttachment.DEFAULT_MAX_RECONNECT_DELAY_MILLIS;
    /** How long the broker has to answer each attach (and the connection's handshake). */
    long attachTimeoutMillis = AmqpBrokerAttachment.DEFAULT_ATTACH_TIMEOUT_MILLIS;
    /** The properties every AMQP port's open offers (symbol keys, string values), in the order given. */
    final Map<String, String> connectionProperties = new LinkedHashMap<>();
    boolean help;
    boolean version;
    boolean stats;
    /** Prometheus text at /metrics: on the HTTP ports, or only on {@link #metricsPort} when that is given. */
    boolean metrics;
    int metricsPort = -1;
    /** Jetty's request log (every request, AMQP and HTTP) to this file, or null for none. */
    String requestLog;
    /** The benchmark's floor endpoint (loopback peers only); never on unless asked for. */
    boolean benchFloor;
    /** The health paths for probes (liveness and readiness), without credentials. */
    boolean health;

    /**
     * Parses the command line (picocli, {@link GatewayCommand}): options apply in the order given.
     *
     * @throws UsageException for a bad command line; the message names the option and says what is wrong
     */
    public static GatewayOptions parse(String[] args) throws UsageException {
        GatewayOptions o = new GatewayOptions();
        CommandLine cmd = commandLine(o);
        try {
            cmd.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(e.getMessage());
        }
        o.help = cmd.isUsageHelpRequested();
        o.version = cmd.isVersionHelpRequested();
        return o;
    }

    /**
     * The picocli command line writing into {@code o}. A repeated option overwrites (or, for {@code --user},
     * {@code --servlet} and {@code --classpath}, adds to) what came before it, as a later key of a config file does.
     */
    static CommandLine commandLine(GatewayOptions o) {
        return new CommandLine(new GatewayCommand(o)).setOverwrittenOptionsAllowed(true).setExpandAtFiles(false);
    }

    /** Reads a properties file whose keys are option names. */
    void load(Path file) throws UsageException {
        Properties p = new Properties();
        if (Files.isDirectory(file)) {
            throw new UsageException("cannot read config " + file + ": is a directory");
        }
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UsageException("cannot read config " + file + ": " + IoMessage.of(e));
        } catch (IllegalArgumentException e) {
            throw new UsageException("cannot read config " + file + ": " + e.getMessage()); // a malformed unicode escape
        }
        CommandLine.Model.CommandSpec options = commandLine(new GatewayOptions()).getCommandSpec();
        // Sorted, so suffixed keys (user.1, user.2) apply in a predictable order.
        for (Map.Entry<String, String> e : new TreeMap<>(toStrings(p)).entrySet()) {
            String key = e.getKey();
            int dot = key.indexOf('.');
            String prefix = dot > 0 ? key.substring(0, dot) : key;
            String name = "user".equals(prefix) || "servlet".equals(prefix) || "classpath".equals(prefix)
                    || "connection-property".equals(prefix) ? prefix : key;
            if ("config".equals(name)) {
                throw new UsageException("a config file cannot include another: " + file);
            }
            if (name.startsWith("-") || options.findOption("--" + name) == null) {
                throw new UsageException("config " + file + ": unknown key " + key
                        + " (keys are the options' names without the leading --, such as amqp-port)");
            }
            try {
                set(name, e.getValue().trim());
            } catch (UsageException bad) {
                throw new UsageException("config " + file + ": " + bad.getMessage());
            }
        }
    }

    private static Map<String, String> toStrings(Properties p) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            m.put(name, p.getProperty(name));
        }
        return m;
    }

    /**
     * Sets one option by its name without dashes, from the command line or a config file; the one place values are
     * checked (an engine limit by {@link EngineLimits}). To add an option: a case here, a setter in
     * {@link GatewayCommand}, a getter below.
     */
    void set(String name, String value) throws UsageException {
        switch (name) {
            case "amqp-port":
                amqpPort = port(name, value);
                break;
            case "http-port":
                httpPort = port(name, value);
                break;
            case "bind":
                bind = value;
                break;
            case "user": {
                int colon = value.indexOf(':');
                if (colon <= 0) {
                    throw new UsageException("--user wants name:password, got " + value);
                }
                users.put(value.substring(0, colon), value.substring(colon + 1));
                break;
            }
            case "servlet": {
                int eq = value.indexOf('=');
                if (eq <= 0 || !value.startsWith("/") || eq == value.length() - 1) {
                    throw new UsageException("--servlet wants /path=fully.qualified.Class, got " + value);
                }
                servlets.put(value.substring(0, eq), value.substring(eq + 1));
                break;
            }
            case "war":
                war = value;
                break;
            case "classpath":
                for (String entry : value.split(java.io.File.pathSeparator)) {
                    if (!entry.isBlank()) {
                        classpath.add(entry.trim());
                    }
                }
                break;
            case "accept-backlog":
                try {
                    acceptBacklog = Integer.parseInt(value);
                } catch (NumberFormatException e) {
                    throw new UsageException("--accept-backlog wants a number of connections, got " + value);
                }
                if (acceptBacklog < 1) {
                    throw new UsageException("--accept-backlog must be at least 1, got " + value);
                }
                break;
            case "stats":
                stats = Boolean.parseBoolean(value);
                break;
            case "metrics":
                metrics = Boolean.parseBoolean(value);
                break;
            case "metrics-port":
                metricsPort = port(name, value);
                metrics |= metricsPort >= 0;
                break;
            case "request-log":
                requestLog = value.isBlank() ? null : value;
                break;
            case "bench-floor":
                benchFloor = Boolean.parseBoolean(value);
                break;
            case "max-connections":
                maxConnections = (int) positive(name, value, Integer.MAX_VALUE, "a number of connections");
                break;
            case "max-handshakes":
                maxHandshakes = (int) positive(name, value, Integer.MAX_VALUE, "a number of connections");
                break;
            case "max-connections-per-address":
                maxConnectionsPerAddress = (int) nonNegative(name, value, "a number of connections (0: no limit)");
                break;
            case "max-handshakes-per-address":
                maxHandshakesPerAddress = (int) nonNegative(name, value, "a number of connections (0: no limit)");
                break;
            case "max-failed-logins-per-address":
                maxFailedLoginsPerAddress = (int) nonNegative(name, value, "a number of logins (0: no limit)");
                break;
            case "failed-logins-window":
                failedLoginsWindowMillis = positive(name, value, AmqpServerBudget.MAX_FAILED_LOGINS_WINDOW_MILLIS,
                        "milliseconds");
                break;
            case "proxy-protocol":
                proxyProtocol = bool(name, value);
                break;
            case "max-buffered-bytes":
                maxBufferedBytes = positive(name, sizeBytes(name, value), Long.MAX_VALUE, "a size");
                break;
            case "close-timeout":
                closeTimeoutMillis = positive(name, value, Long.MAX_VALUE, "milliseconds");
                break;
            case "request-timeout":
                requestTimeoutMillis = nonNegative(name, value, "milliseconds (0: no limit)");
                break;
            case "write-coalescing":
                writeCoalescingMicros = nonNegative(name, value, "microseconds (0: never)");
                if (writeCoalescingMicros > AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS) {
                    throw new UsageException("--write-coalescing must be from 0 to "
                            + AmqpConnectionFactory.MAX_WRITE_COALESCING_MICROS + ", got " + value);
                }
                break;
            case "connection-property": {
                int eq = value.indexOf('=');
                String key = eq < 0 ? "" : value.substring(0, eq).trim();
                if (key.isEmpty() || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                    throw new UsageException("--connection-property wants KEY=VALUE with a printable ASCII key, got "
                            + value);
                }
                connectionProperties.put(key, value.substring(eq + 1));
                break;
            }
            case "stop-timeout":
                try {
                    stopTimeoutMillis = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new UsageException("--stop-timeout wants milliseconds, got " + value);
                }
                break;
            case "amqps-port":
                amqpsPort = port(name, value);
                break;
            case "https-port":
                httpsPort = port(name, value);
                break;
            case "amqp-on-http-port":
                amqpOnHttpPort = bool(name, value);
                break;
            case "amqp-on-amqps-port":
                amqpOnAmqpsPort = bool(name, value);
                break;
            case "amqp-on-https-port":
                amqpOnHttpsPort = bool(name, value);
                break;
            case "tls-keystore":
                tlsKeyStore = value;
                break;
            case "tls-keystore-password":
                tlsKeyStorePassword = value;
                break;
            case "tls-truststore":
                tlsTrustStore = value;
                break;
            case "tls-truststore-password":
                tlsTrustStorePassword = value;
                break;
            case "tls-reload-interval":
                tlsReloadIntervalMillis = nonNegative(name, value, "milliseconds (0: never)");
                break;
            case "health":
                health = bool(name, value);
                break;
            case "tls-client-auth":
                if (!"none".equals(value) && !"want".equals(value) && !"need".equals(value)) {
                    throw new UsageException("--tls-client-auth wants none, want or need, got " + value);
                }
                tlsClientAuth = value;
                break;
            case "attach":
                if (!value.regionMatches(true, 0, "amqp://", 0, 7) && !value.regionMatches(true, 0, "amqps://", 0, 8)) {
                    throw new UsageException("--attach wants amqp://[user:password@]host[:port]/queue, got " + value);
                }
                attach.add(value);
                break;
            case "attach-credit":
                attachCredit = (int) positive(name, value, Integer.MAX_VALUE, "a number of requests");
                break;
            case "attach-request-user":
                attachRequestUser = value;
                break;
            case "attach-trust-user-id":
                attachTrustUserId = bool(name, value);
                break;
            case "attach-at-most-once":
                attachAtMostOnce = bool(name, value);
                break;
            case "attach-keystore":
                attachKeyStore = value;
                break;
            case "attach-keystore-password":
                attachKeyStorePassword = value;
                break;
            case "attach-truststore":
                attachTrustStore = value;
                break;
            case "attach-truststore-password":
                attachTrustStorePassword = value;
                break;
            case "attach-sasl-external":
                attachSaslExternal = bool(name, value);
                break;
            case "attach-idle-timeout":
                attachIdleTimeoutMillis = nonNegative(name, value, "milliseconds");
                break;
            case "attach-timeout":
                attachTimeoutMillis = positive(name, value, Long.MAX_VALUE, "milliseconds");
                break;
            case "attach-min-reconnect-delay":
                attachMinReconnectDelayMillis = positive(name, value, Long.MAX_VALUE, "milliseconds");
                break;
            case "attach-max-reconnect-delay":
                attachMaxReconnectDelayMillis = positive(name, value, Long.MAX_VALUE, "milliseconds");
                break;
            default:
                if (!engineLimits.set(name, value)) {
                    throw new UsageException("unknown option --" + name);
                }
        }
    }

    /** A port number; 0 asks for an ephemeral port, a negative one turns the listener off. */
    private static int port(String name, String value) throws UsageException {
        try {
            int port = Integer.parseInt(value);
            if (port > 65535) {
                throw new UsageException("--" + name + " out of range: " + value);
            }
            return Math.max(port, -1);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " wants a port number, got " + value);
        }
    }

    /** The broker URIs of attach mode, in the order given; empty when the gateway attaches to no broker. */
    public List<String> attach() {
        return List.copyOf(attach);
    }

    /** Requests in flight per attached queue; 0 for the default (half the thread pool). */
    public int attachCredit() {
        return attachCredit;
    }

    /** The user servlets see on attached requests, or null. */
    public String attachRequestUser() {
        return attachRequestUser;
    }

    /** Whether each attached request's user is its message's user-id (which the broker must validate). */
    public boolean attachTrustUserId() {
        return attachTrustUserId;
    }

    /** Whether attached requests and their responses are pre-settled (at most once). */
    public boolean attachAtMostOnce() {
        return attachAtMostOnce;
    }

    /** The PKCS12 key store with the client certificate presented to amqps brokers, or null for none. */
    public String attachKeyStore() {
        return attachKeyStore;
    }

    /** The password of {@link #attachKeyStore()}. */
    public String attachKeyStorePassword() {
        return attachKeyStorePassword;
    }

    /** The trust store for the brokers' certificates: --attach-truststore, else --tls-truststore, else null. */
    public String attachTrustStore() {
        return attachTrustStore != null ? attachTrustStore : tlsTrustStore;
    }

    /**
     * The password of {@link #attachTrustStore()}: its own, else (for --attach-truststore) the attach key store's,
     * as --tls-truststore-password defaults to the key store's.
     */
    public String attachTrustStorePassword() {
        if (attachTrustStore == null) {
            return tlsTrustStorePassword();
        }
        return attachTrustStorePassword != null ? attachTrustStorePassword : attachKeyStorePassword;
    }

    /** Whether the attachments authenticate with SASL EXTERNAL (their client certificate). */
    public boolean attachSaslExternal() {
        return attachSaslExternal;
    }

    /** The first wait before connecting to a broker again after a failure, in milliseconds. */
    public long attachMinReconnectDelayMillis() {
        return attachMinReconnectDelayMillis;
    }

    /** The longest wait before connecting to a broker again, in milliseconds. */
    public long attachMaxReconnectDelayMillis() {
        return attachMaxReconnectDelayMillis;
    }

    /** How long an attached broker may send nothing before the connection is made again; -1 for the default. */
    public long attachIdleTimeoutMillis() {
        return attachIdleTimeoutMillis;
    }

    /** How long the broker has to answer each attach and the connection's handshake. */
    public long attachTimeoutMillis() {
        return attachTimeoutMillis;
    }

    /** The AMQP port; 0 for an ephemeral one, -1 for none. */
    public int amqpPort() {
        return amqpPort;
    }

    /** The HTTP/1.1 and h2c port; 0 for an ephemeral one, -1 for none. */
    public int httpPort() {
        return httpPort;
    }

    /** The address both listeners bind to. */
    public String bind() {
        return bind;
    }

    /** Users for SASL PLAIN; none means clients log in with ANONYMOUS. */
    public List<User> users() {
        List<User> list = new ArrayList<>();
        for (Map.Entry<String, String> e : users.entrySet()) {
            list.add(new User(e.getKey(), e.getValue()));
        }
        return list;
    }

    /** Servlet classes by path spec, in the order given. */
    public Map<String, String> servlets() {
        return servlets;
    }

    /** The web application archive (or directory) to deploy at {@code /}, or null. */
    public String war() {
        return war;
    }

    /** The most AMQP connections each AMQP port keeps open at once. */
    public int maxConnections() {
        return maxConnections;
    }

    /** The most connections each AMQP port holds between accept and the client's open. */
    public int maxHandshakes() {
        return maxHandshakes;
    }

    /** {@return the most AMQP connections one source address keeps open per AMQP port; 0 for no limit} */
    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** {@return the most connections of one source address in their handshake per AMQP port; 0 for no limit} */
    public int maxHandshakesPerAddress() {
        return maxHandshakesPerAddress;
    }

    /** {@return the failed SASL logins one source address may have per window, per AMQP port; 0 for no limit} */
    public int maxFailedLoginsPerAddress() {
        return maxFailedLoginsPerAddress;
    }

    /** {@return the time in which an address's allowance of failed logins refills whole, in milliseconds} */
    public long failedLoginsWindowMillis() {
        return failedLoginsWindowMillis;
    }

    /** {@return whether every port that takes AMQP reads a PROXY protocol header (v1 or v2) before AMQP or TLS} */
    public boolean proxyProtocol() {
        return proxyProtocol;
    }

    /** The bytes each AMQP port's connections together may buffer (unread request bodies, unwritten responses). */
    public long maxBufferedBytes() {
        return maxBufferedBytes;
    }

    /** How long a client has to answer our close before the connection is dropped. */
    public long closeTimeoutMillis() {
        return closeTimeoutMillis;
    }

    /** How long an AMQP request may take before its client is answered 503; 0 for no limit. */
    public long requestTimeoutMillis() {
        return requestTimeoutMillis;
    }

    /** How long an AMQP connection holds a ready response back while it serves others, in µs; 0 for never. */
    public long writeCoalescingMicros() {
        return writeCoalescingMicros;
    }

    /** The AMQP engine's limits per connection, which every AMQP port's and attachment's engine gets. */
    EngineLimits engineLimits() {
        return engineLimits;
    }

    /** The connection properties the AMQP ports' open offers, in the order given; empty by default. */
    public Map<String, String> connectionProperties() {
        return connectionProperties;
    }

    /** How long a stop waits for in-flight requests. */
    public long stopTimeoutMillis() {
        return stopTimeoutMillis;
    }

    /** The AMQPS (AMQP over TLS) port; 0 for an ephemeral one, -1 (the default) for none. */
    public int amqpsPort() {
        return amqpsPort;
    }

    /** The HTTPS (HTTP/1.1 over TLS) port; 0 for an ephemeral one, -1 (the default) for none. */
    public int httpsPort() {
        return httpsPort;
    }

    /** {@return whether the HTTP port also takes AMQP (connections that start with the AMQP protocol header)} */
    public boolean amqpOnHttpPort() {
        return amqpOnHttpPort;
    }

    /** {@return how often the TLS key and trust stores are looked at for a change, in milliseconds; 0 for never} */
    public long tlsReloadIntervalMillis() {
        return tlsReloadIntervalMillis;
    }

    /** {@return whether the health paths are served} */
    public boolean health() {
        return health;
    }

    /** {@return whether the AMQPS port also takes clear-text AMQP (connections that start with no TLS handshake)} */
    public boolean amqpOnAmqpsPort() {
        return amqpOnAmqpsPort;
    }

    /** {@return whether the HTTPS port also takes AMQP (after TLS, connections that start with the AMQP header)} */
    public boolean amqpOnHttpsPort() {
        return amqpOnHttpsPort;
    }

    /** The PKCS12 (or JKS) key store with the server's key and certificate for AMQPS, or null. */
    public String tlsKeyStore() {
        return tlsKeyStore;
    }

    /** The key store's password, or null. */
    public String tlsKeyStorePassword() {
        return tlsKeyStorePassword;
    }

    /** The trust store for client certificates, or null (the JDK's default trust store). */
    public String tlsTrustStore() {
        return tlsTrustStore;
    }

    /** The trust store's password; the key store's when not given. */
    public String tlsTrustStorePassword() {
        return tlsTrustStorePassword != null ? tlsTrustStorePassword : tlsKeyStorePassword;
    }

    /**
     * Whether AMQPS asks clients for a certificate: {@code none}, {@code want} (optional) or {@code need}
     * (required). With want or need, a client's certificate subject is its SASL EXTERNAL identity.
     */
    public String tlsClientAuth() {
        return tlsClientAuth;
    }

    /** Whether the demo app is served: neither servlets nor a war were given. */
    public boolean demo() {
        return servlets.isEmpty() && war == null;
    }

    /** Whether {@code --stats} was given: serve the process and AMQP counters at {@code /.amqp-servlet/stats}. */
    public boolean stats() {
        return stats;
    }

    /** Whether {@code --metrics} (or {@code --metrics-port}) was given: serve Prometheus text at {@code /metrics}. */
    public boolean metrics() {
        return metrics;
    }

    /** The port of its own {@code /metrics} is served on, 0 for an ephemeral one, -1 (the default) for the HTTP ports. */
    public int metricsPort() {
        return metricsPort;
    }

    /** The file Jetty's request log writes to, or null for no request log. */
    public String requestLog() {
        return requestLog;
    }

    /** Whether {@code --bench-floor} was given: run the benchmark's floor for loopback peers. */
    public boolean benchFloor() {
        return benchFloor;
    }

    /** Whether {@code --help} was asked for. */
    public boolean help() {
        return help;
    }

    /** Whether {@code --version} was asked for. */
    public boolean version() {
        return version;
    }

    /** Jars and directories to load {@code --servlet} classes from (beside the gateway's own), in order. */
    public List<String> classpath() {
        return classpath;
    }

    /** The accept queue (listen backlog) of every listener, in connections. */
    public int acceptBacklog() {
        return acceptBacklog;
    }

    /** The usage text, as {@code --help} prints it. */
    static String usage() {
        return commandLine(new GatewayOptions()).getUsageMessage();
    }
}
