package io.amqpservlet.gateway;

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

/**
 * The gateway's settings, from command-line options and properties files. A {@code --config} file is read where it
 * appears, so options after it override its values; repeatable options ({@code --user}, {@code --servlet}) add up.
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
    String tlsKeyStore;
    String tlsKeyStorePassword;
    String tlsTrustStore;
    String tlsTrustStorePassword;
    String tlsClientAuth = "none";
    boolean help;
    boolean stats;

    /** Parses the command line (without the leading {@code serve} word, if any). */
    public static GatewayOptions parse(String[] args) throws UsageException {
        GatewayOptions o = new GatewayOptions();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(2, eq);
                value = arg.substring(eq + 1);
            } else if (arg.startsWith("--")) {
                name = arg.substring(2);
            } else if ("-h".equals(arg)) {
                name = "help";
            } else {
                throw new UsageException("unexpected argument: " + arg);
            }
            if ("help".equals(name)) {
                o.help = true;
                continue;
            }
            if ("stats".equals(name) && value == null) {
                o.stats = true; // a flag: takes no value on the command line
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException("--" + name + " needs a value");
                }
                value = args[++i];
            }
            if ("config".equals(name)) {
                o.load(Path.of(value));
            } else {
                o.set(name, value);
            }
        }
        return o;
    }

    /** Reads a properties file whose keys are option names. */
    void load(Path file) throws UsageException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UsageException("cannot read config " + file + ": " + e.getMessage());
        }
        // Sorted, so suffixed keys (user.1, user.2) apply in a predictable order.
        for (Map.Entry<String, String> e : new TreeMap<>(toStrings(p)).entrySet()) {
            String key = e.getKey();
            int dot = key.indexOf('.');
            String name = dot > 0 && ("user".equals(key.substring(0, dot)) || "servlet".equals(key.substring(0, dot)))
                    ? key.substring(0, dot) : key;
            if ("config".equals(name)) {
                throw new UsageException("a config file cannot include another: " + file);
            }
            set(name, e.getValue().trim());
        }
    }

    private static Map<String, String> toStrings(Properties p) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            m.put(name, p.getProperty(name));
        }
        return m;
    }

    private void set(String name, String value) throws UsageException {
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
            case "stats":
                stats = Boolean.parseBoolean(value);
                break;
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
            case "tls-client-auth":
                if (!"none".equals(value) && !"want".equals(value) && !"need".equals(value)) {
                    throw new UsageException("--tls-client-auth wants none, want or need, got " + value);
                }
                tlsClientAuth = value;
                break;
            default:
                throw new UsageException("unknown option --" + name);
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

    /** Whether {@code --stats} was given: serve the process counters at {@code /.amqp-servlet/stats}. */
    public boolean stats() {
        return stats;
    }

    /** Whether {@code --help} was asked for. */
    public boolean help() {
        return help;
    }

    static String usage() {
        return String.join("\n",
                "usage: amqp-servlet [options]                 serve servlets over AMQP 1.0 (and HTTP)",
                "       amqp-servlet request [options] URL     one request over AMQP (see: request --help)",
                "",
                "options (a --config file takes the same names as keys, without dashes):",
                "  --amqp-port N            AMQP port (default 5672; 0 = ephemeral, -1 = off)",
                "  --http-port N            HTTP/1.1 and h2c port for the same servlets (default 8080; 0, -1 as above)",
                "  --bind ADDRESS           address to listen on (default 127.0.0.1)",
                "  --user NAME:PASSWORD     a SASL PLAIN user (repeatable); without users SASL ANONYMOUS is allowed",
                "  --servlet /PATH=CLASS    serve a servlet class from the class path at PATH (repeatable)",
                "  --war FILE               deploy a web application (war file or directory) at /",
                "  --amqps-port N           AMQP over TLS port (default -1 = off; needs --tls-keystore)",
                "  --https-port N           HTTP/1.1 over TLS port (default -1 = off; needs --tls-keystore)",
                "  --tls-keystore FILE      PKCS12 key store with the server's key and certificate",
                "  --tls-keystore-password PW  its password",
                "  --tls-truststore FILE    trust store for client certificates (default: the JDK's)",
                "  --tls-truststore-password PW  its password (default: the key store's)",
                "  --tls-client-auth MODE   none (default), want or need a client certificate; with want or need a",
                "                           certificate's subject DN is the client's SASL EXTERNAL identity",
                "  --stop-timeout MS        how long shutdown waits for in-flight requests (default 30000)",
                "  --stats                  serve CPU, allocation and GC counters at /.amqp-servlet/stats (benchmarks)",
                "  --config FILE            read options from a properties file",
                "  --help                   this text",
                "",
                "Without --servlet or --war the demo app is served: /echo, /status/{code}, /throw, /slow?ms=N,",
                "/bytes/{n}, /whoami, /orders (see docs/gateway.md).");
    }
}
