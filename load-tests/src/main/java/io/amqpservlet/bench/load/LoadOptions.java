package io.amqpservlet.bench.load;

import picocli.CommandLine;

import io.amqpservlet.client.AmqpAddress;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a load run does: where to ({@code amqp://host:port/path}, one or more endpoints), how many client event
 * loops and connections, how many requests in flight per connection, the request itself, how long, and at what
 * rate. Parsed from {@code bench load} options; a named {@link Scenario} sets the topology first and options given
 * after it override it.
 */
public final class LoadOptions {
    /** Thrown for an option the generator does not understand. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        /** A usage error described by {@code message}. */
        public UsageException(String message) {
            super(message);
        }
    }

    /**
     * One endpoint: a listener, the node AMQP requests are sent to and the request-target ({@code to}, or HTTP's
     * path) they name; {@code scheme} is the protocol, {@code amqp} (AMQP 1.0), {@code http} (HTTP/1.1, one request
     * per connection at a time unless the window pipelines more) or {@code h2c} (HTTP/2 without TLS, prior
     * knowledge; the window is the streams in flight). An {@code amqp://} URL's path names the node as the
     * {@code request} command and attach mode read it ({@link AmqpAddress}): {@code amqp://host/echo} is the node
     * {@code echo} and the target {@code /echo}; the node is null for HTTP, and for an AMQP URL without a path
     * (the anonymous relay).
     */
    public record Endpoint(String scheme, String host, int port, String node, String path) {
        @Override
        public String toString() {
            return scheme + "://" + host + ":" + port + path;
        }
    }

    final List<Endpoint> endpoints = new ArrayList<>();
    /** The URLs given on the command line, turned into {@link #endpoints} once the whole line is parsed. */
    final List<String> endpointUrls = new ArrayList<>();
    /** Client event loops (selector threads); each one is a separate "client" of the topology. */
    int clients = 1;
    /** Connections each client opens to each endpoint. */
    int connectionsPerEndpoint = 1;
    int window = 16;
    int bodyBytes = 100;
    String method = "POST";
    String contentType = "application/octet-stream";
    final Map<String, String> headers = new LinkedHashMap<>();
    long warmupMillis = 2_000;
    long durationMillis = 10_000;
    /** Requests per second over all connections; 0 means closed loop (as fast as the window allows). */
    double ratePerSecond;
    long timeoutMillis = 10_000;
    String user;
    String password;
    /**
     * Null: each AMQP connection receives its responses on a dynamic node the peer makes. Else the prefix of a named
     * reply node per connection (the prefix, then a unique suffix), for a peer without dynamic nodes: RabbitMQ 3.10
     * declares {@code /queue/NAME} when a receiver attaches to it.
     */
    String replyNodePrefix;
    String scenario = "custom";
    /** Endpoints the scenario wants; when fewer URLs are given, the last one is used again to make up the count. */
    int wantedEndpoints = 1;
    boolean progress = true;
    String jsonOut;
    String hgrmOut;

    /** A fresh set of options with the defaults (one client, one connection, window 16, 100-byte POST, 10 s). */
    public LoadOptions() {
    }

    /**
     * Parses {@code bench load} arguments into a fresh set of options.
     *
     * @throws UsageException for a bad command line (its message names the option), or "help" / "version" when
     *                        those were asked for
     */
    public static LoadOptions parse(String[] args) throws UsageException {
        LoadOptions o = new LoadOptions();
        CommandLine cmd = commandLine(o);
        try {
            cmd.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(e.getMessage());
        }
        if (cmd.isUsageHelpRequested()) {
            throw new UsageException("help");
        }
        if (cmd.isVersionHelpRequested()) {
            throw new UsageException("version");
        }
        for (String url : o.endpointUrls) {
            o.endpoint(url);
        }
        if (o.endpoints.isEmpty()) {
            throw new UsageException("no endpoint: give amqp://host:port/path");
        }
        while (o.endpoints.size() < o.wantedEndpoints) {
            o.endpoints.add(o.endpoints.get(o.endpoints.size() - 1));
        }
        return o;
    }

    /**
     * The picocli command line over {@code o}: options are applied in the order given (a {@code --scenario} first,
     * later options override it), so a repeated option overwrites or (for {@code --header}) adds.
     */
    static CommandLine commandLine(LoadOptions o) {
        return new CommandLine(new LoadCommand(o)).setOverwrittenOptionsAllowed(true).setExpandAtFiles(false);
    }

    /**
     * Adds an endpoint, {@code amqp://host[:port]/path}, {@code http://host[:port]/path} (HTTP/1.1) or
     * {@code h2c://host[:port]/path} (HTTP/2 without TLS).
     */
    public LoadOptions endpoint(String url) throws UsageException {
        return endpoint(url, null);
    }

    /**
     * As {@link #endpoint(String)}, for an AMQP URL whose node is not the request-target: requests go to the URL's
     * node and carry {@code target} in {@code to} (a gateway behind a RabbitMQ queue {@code /queue/echo} serves
     * {@code /echo}). A null {@code target} is the URL's own.
     */
    public LoadOptions endpoint(String url, String target) throws UsageException {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new UsageException("malformed URL " + url + ": " + e.getMessage());
        }
        boolean http = "http".equals(uri.getScheme()) || "h2c".equals(uri.getScheme());
        if (!(http || "amqp".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new UsageException("want amqp://, http:// or h2c://host:port/path, got " + url);
        }
        String node = null;
        String path;
        if (http) {
            path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            if (uri.getRawQuery() != null) {
                path += "?" + uri.getRawQuery();
            }
        } else {
            AmqpAddress address = target == null ? AmqpAddress.of(uri) : AmqpAddress.of(uri, target);
            node = address.node();
            path = address.target();
        }
        endpoints.add(new Endpoint(uri.getScheme(), uri.getHost(), uri.getPort() < 0 ? http ? 80 : 5672
                : uri.getPort(), node, path));
        return this;
    }

    static int positive(String name, String value) throws UsageException {
        return (int) number(name, value, 1, 1_000_000);
    }

    static double number(String name, String value, double min, double max) throws UsageException {
        double d;
        try {
            d = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " wants a number, got " + value);
        }
        if (d < min || d > max) {
            throw new UsageException("--" + name + " out of range [" + min + ", " + max + "]: " + value);
        }
        return d;
    }

    /** {@code 500ms}, {@code 10s}, {@code 2m}, or a bare number of seconds. */
    static long millis(String name, String value) throws UsageException {
        try {
            if (value.endsWith("ms")) {
                return Long.parseLong(value.substring(0, value.length() - 2));
            }
            if (value.endsWith("s")) {
                return Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1000);
            }
            if (value.endsWith("m")) {
                return Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 60_000);
            }
            return Math.round(Double.parseDouble(value) * 1000);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " wants a duration (500ms, 10s, 2m), got " + value);
        }
    }

    /** Client event loops (threads). */
    public LoadOptions clients(int n) {
        clients = n;
        return this;
    }

    /** Connections each client opens to each endpoint. */
    public LoadOptions connections(int perEndpoint) {
        connectionsPerEndpoint = perEndpoint;
        return this;
    }

    /** Requests in flight per connection. */
    public LoadOptions window(int requests) {
        window = requests;
        return this;
    }

    /** Request body size in bytes (0: no body section). */
    public LoadOptions body(int bytes) {
        bodyBytes = bytes;
        return this;
    }

    /** The request method ({@code subject}). */
    public LoadOptions method(String m) {
        method = m;
        return this;
    }

    /** The discarded warm-up. */
    public LoadOptions warmupMillis(long ms) {
        warmupMillis = ms;
        return this;
    }

    /** The measured phase. */
    public LoadOptions durationMillis(long ms) {
        durationMillis = ms;
        return this;
    }

    /** Requests per second over all connections; 0 for closed loop. */
    public LoadOptions rate(double perSecond) {
        ratePerSecond = perSecond;
        return this;
    }

    /** How long a request may wait for its response before it counts as a timeout. */
    public LoadOptions timeoutMillis(long ms) {
        timeoutMillis = ms;
        return this;
    }

    /** SASL PLAIN as {@code name} (default: ANONYMOUS). */
    public LoadOptions user(String name, String pass) {
        user = name;
        password = pass;
        return this;
    }

    /**
     * Named reply nodes, {@code prefix} and a unique suffix per connection, instead of dynamic ones (for RabbitMQ
     * 3.10: {@code /queue/bench-replies-}).
     */
    public LoadOptions replyNodePrefix(String prefix) {
        replyNodePrefix = prefix;
        return this;
    }

    /** Whether to print the live progress line. */
    public LoadOptions progress(boolean on) {
        progress = on;
        return this;
    }

    /** Total connections: clients × endpoints × connections per endpoint. */
    public int totalConnections() {
        return clients * endpoints.size() * connectionsPerEndpoint;
    }

    /** The request body: {@code bodyBytes} printable bytes, the same for every request. */
    byte[] body() {
        byte[] b = new byte[bodyBytes];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    /** One line describing the run, for the report. */
    String describe() {
        return String.format("%s: %d client(s) x %d endpoint(s) x %d connection(s) = %d connections, window %d, "
                        + "%s %d-byte bodies, %s, warm-up %d ms, measured %d ms", scenario, clients, endpoints.size(),
                connectionsPerEndpoint, totalConnections(), window, method, bodyBytes,
                ratePerSecond > 0 ? "open loop at " + Math.round(ratePerSecond) + " req/s" : "closed loop",
                warmupMillis, durationMillis);
    }

    /** The usage text, as {@code --help} prints it. */
    static String usage() {
        return commandLine(new LoadOptions()).getUsageMessage();
    }
}
