package io.amqpservlet.gateway;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.client.AmqpClientException;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.client.ClientTls;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code amqp-servlet request [options] amqp[s]://host[:port]/path}: one HTTP request over AMQP 1.0 (over TLS for
 * {@code amqps}, {@link ClientTls}), with curl's options and exit statuses. The body goes to standard output; with {@code -i} the status line and headers come
 * first. Any HTTP status exits 0; transport and SASL failures exit with curl's codes (see
 * {@link AmqpClientException}), a bad command line with 2, a bad URL with 3, an unreadable data file with 26.
 */
public final class RequestCommand {
    /** curl 1: unsupported protocol (neither amqp nor amqps). */
    static final int UNSUPPORTED_PROTOCOL = 1;
    /** Bad command line (curl uses 2 for "failed to initialize"). */
    static final int USAGE = 2;
    /** curl 3: URL malformed. */
    static final int BAD_URL = 3;
    /** curl 26: read error (the --data-binary file). */
    static final int READ_ERROR = 26;

    private static final int DEFAULT_PORT = 5672;
    /** IANA's port for AMQP over TLS. */
    private static final int DEFAULT_TLS_PORT = 5671;
    private static final long DEFAULT_MAX_TIME_MILLIS = 30_000;
    /** Room for the largest demo body (/bytes, 100 MiB) plus the message's own sections. */
    private static final long MAX_MESSAGE_BYTES = 128L * 1024 * 1024;

    private RequestCommand() {
    }

    /** Runs the command; returns the exit status. Only the response body is written to {@code out}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String method = null;
        Map<String, String> headers = new LinkedHashMap<>();
        byte[] data = null;
        String user = null;
        boolean include = false;
        boolean verbose = false;
        long maxTimeMillis = DEFAULT_MAX_TIME_MILLIS;
        String url = null;
        String caCertificates = null;
        boolean insecure = false;
        String clientCertificate = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "-h":
                    case "--help":
                        out.println(usage());
                        return 0;
                    case "-X":
                    case "--request":
                        method = value(args, ++i, a);
                        break;
                    case "-H":
                    case "--header": {
                        String h = value(args, ++i, a);
                        int colon = h.indexOf(':');
                        if (colon <= 0) {
                            throw new IllegalArgumentException("-H wants 'name: value', got " + h);
                        }
                        headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
                        break;
                    }
                    case "-d":
                    case "--data":
                        // As curl: several -d are joined with '&'.
                        data = join(data, value(args, ++i, a).getBytes(StandardCharsets.UTF_8));
                        break;
                    case "--data-binary": {
                        String v = value(args, ++i, a);
                        byte[] bytes;
                        if (v.startsWith("@")) {
                            try {
                                bytes = Files.readAllBytes(Path.of(v.substring(1)));
                            } catch (IOException e) {
                                err.println("amqp-servlet request: cannot read " + v.substring(1) + ": " + e);
                                return READ_ERROR;
                            }
                        } else {
                            bytes = v.getBytes(StandardCharsets.UTF_8);
                        }
                        data = join(data, bytes);
                        break;
                    }
                    case "-u":
                    case "--user":
                        user = value(args, ++i, a);
                        if (user.indexOf(':') <= 0) {
                            throw new IllegalArgumentException("-u wants user:password");
                        }
                        break;
                    case "-i":
                    case "--include":
                        include = true;
                        break;
                    case "-v":
                    case "--verbose":
                        verbose = true;
                        break;
                    case "-m":
                    case "--max-time":
                        maxTimeMillis = (long) (Double.parseDouble(value(args, ++i, a)) * 1000);
                        break;
                    case "-0":
                    case "--http1.0":
                        headers.put("http:request", "1.0"); // docs/design.md §3: the version travels in http:request
                        break;
                    case "--http2":
                        headers.put("http:request", "2");
                        break;
                    case "--cacert":
                        caCertificates = value(args, ++i, a);
                        break;
                    case "-k":
                    case "--insecure":
                        insecure = true;
                        break;
                    case "-E":
                    case "--cert":
                        clientCertificate = value(args, ++i, a);
                        break;
                    default:
                        if (a.startsWith("-") || url != null) {
                            throw new IllegalArgumentException("unexpected argument: " + a);
                        }
                        url = a;
                }
            }
            if (url == null) {
                throw new IllegalArgumentException("no URL given");
            }
        } catch (IllegalArgumentException e) { // NumberFormatException included
            err.println("amqp-servlet request: " + e.getMessage());
            err.println(usage());
            return USAGE;
        }

        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            err.println("amqp-servlet request: malformed URL: " + e.getMessage());
            return BAD_URL;
        }
        boolean amqps = "amqps".equalsIgnoreCase(uri.getScheme());
        if (!amqps && !"amqp".equalsIgnoreCase(uri.getScheme())) {
            err.println("amqp-servlet request: unsupported protocol " + uri.getScheme()
                    + " (only amqp:// and amqps://)");
            return UNSUPPORTED_PROTOCOL;
        }
        if (!amqps && (caCertificates != null || insecure || clientCertificate != null)) {
            err.println("amqp-servlet request: --cacert, -k and --cert need an amqps:// URL");
            return USAGE;
        }
        if (uri.getHost() == null) {
            err.println("amqp-servlet request: no host in " + url);
            return BAD_URL;
        }
        String host = uri.getHost();
        int port = uri.getPort() >= 0 ? uri.getPort() : amqps ? DEFAULT_TLS_PORT : DEFAULT_PORT;
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String target = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
        if (method == null) {
            method = data == null ? "GET" : "POST";
        }
        // Content type and encoding travel in the message properties (docs/design.md §3), not as headers.
        String contentType = headers.remove("content-type");
        if (contentType == null && data != null) {
            contentType = "application/x-www-form-urlencoded"; // what curl sends with -d
        }
        String contentEncoding = headers.remove("content-encoding");
        if (contentEncoding != null) {
            err.println("amqp-servlet request: content-encoding is not sent (not supported by this client)");
        }

        ClientTls tls = null;
        if (amqps) {
            try {
                tls = clientTls(caCertificates, insecure, clientCertificate);
            } catch (AmqpClientException e) {
                err.println("amqp-servlet request: " + e.getMessage());
                return e.exitCode();
            }
        }
        EngineConfig config = new EngineConfig().containerId("amqp-servlet-request").hostname(host)
                .maxMessageSizeBytes(MAX_MESSAGE_BYTES).trace(verbose);
        if (user != null) {
            int colon = user.indexOf(':');
            config.saslPlain(user.substring(0, colon), user.substring(colon + 1));
        } else if (tls != null && tls.hasClientCertificate()) {
            // RFC 4422 appendix A: the identity is the one TLS established; the server must offer EXTERNAL.
            config.saslExternal();
        } else {
            config.saslAnonymous();
        }
        long deadline = AmqpRequestClient.now() + maxTimeMillis;
        if (verbose) {
            err.println("* connecting to " + host + ":" + port + (amqps ? " over TLS" : "") + " (SASL "
                    + config.saslMechanism() + ")");
        }
        try (AmqpRequestClient client = AmqpRequestClient.connect(host, port, path, config, deadline,
                tls)) {
            if (verbose) {
                err.println("> " + method + " " + target);
            }
            AmqpResponse response = client.exchange(method, target, headers, contentType, data, deadline);
            if (verbose) {
                err.println("< " + response.status() + " (" + response.body().length + " bytes)");
            }
            if (include) {
                out.print(statusAndHeaders(response));
            }
            out.write(response.body(), 0, response.body().length);
            out.flush();
            return 0;
        } catch (AmqpClientException e) {
            err.println("amqp-servlet request: " + e.getMessage());
            return e.exitCode();
        } catch (IOException e) {
            err.println("amqp-servlet request: " + e);
            return AmqpClientException.PEER_FAILURE;
        }
    }

    /** {@code --cert FILE[:PASSWORD]}: curl's syntax, with the file a PKCS12 key store (curl's {@code P12} type). */
    private static ClientTls clientTls(String caCertificates, boolean insecure, String clientCertificate)
            throws AmqpClientException {
        Path keyStore = null;
        String password = null;
        if (clientCertificate != null) {
            int colon = clientCertificate.indexOf(':');
            // A Windows drive letter ("C:\\...") is part of the file name, as curl reads it.
            if (colon == 1 && clientCertificate.length() > 2 && clientCertificate.charAt(2) == '\\') {
                colon = clientCertificate.indexOf(':', 2);
            }
            keyStore = Path.of(colon < 0 ? clientCertificate : clientCertificate.substring(0, colon));
            password = colon < 0 ? null : clientCertificate.substring(colon + 1);
        }
        return ClientTls.create(caCertificates == null ? null : Path.of(caCertificates), insecure, keyStore,
                password);
    }

    /** The status line and headers as {@code -i} prints them, ending with the empty line. */
    static String statusAndHeaders(AmqpResponse response) {
        String version = response.headers().getOrDefault("http:response", "1.1");
        StringBuilder sb = new StringBuilder().append("HTTP/").append(version).append(' ')
                .append(response.status()).append("\r\n");
        if (response.contentType() != null) {
            sb.append("content-type: ").append(response.contentType()).append("\r\n");
        }
        if (response.contentEncoding() != null) {
            sb.append("content-encoding: ").append(response.contentEncoding()).append("\r\n");
        }
        for (Map.Entry<String, String> h : response.headers().entrySet()) {
            // WD06: keys starting with http: or : carry the mapping itself, not headers.
            if (!h.getKey().startsWith("http:") && !h.getKey().startsWith(":")) {
                sb.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
            }
        }
        return sb.append("\r\n").toString();
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static byte[] join(byte[] before, byte[] more) {
        if (before == null) {
            return more;
        }
        byte[] joined = new byte[before.length + 1 + more.length];
        System.arraycopy(before, 0, joined, 0, before.length);
        joined[before.length] = '&';
        System.arraycopy(more, 0, joined, before.length + 1, more.length);
        return joined;
    }

    static String usage() {
        return String.join("\n",
                "usage: amqp-servlet request [options] amqp[s]://host[:port]/path[?query]",
                "  -X, --request METHOD     HTTP method (default GET, or POST with data)",
                "  -H, --header 'N: V'      a request header (repeatable); content-type goes to the message properties",
                "  -d, --data TEXT          request body (repeatable, joined with &; content type",
                "                           application/x-www-form-urlencoded unless -H sets one)",
                "      --data-binary @FILE  request body from a file (or literal text without @)",
                "  -u, --user NAME:PASS     SASL PLAIN (default: SASL ANONYMOUS)",
                "      --cacert FILE        amqps: trust the certificates in FILE (PEM or DER), not the JDK's",
                "  -k, --insecure           amqps: accept any server certificate and host name",
                "  -E, --cert FILE[:PASS]   amqps: present the key and certificate of a PKCS12 file; without -u,",
                "                           log in with SASL EXTERNAL (the certificate's identity)",
                "  -0, --http1.0            ask for HTTP/1.0 (http:request); --http2 for HTTP/2 (default 1.1)",
                "  -i, --include            print the status line and headers before the body",
                "  -v, --verbose            trace AMQP frames to standard error",
                "  -m, --max-time SECONDS   give up after this long (default 30; exit 28)",
                "exit: 0 for any HTTP status; 7 connect failed, 28 timeout, 56 connection closed or request",
                "refused by the server, 67 SASL login denied, 2 bad options, 3 bad URL, 26 unreadable file,",
                "35 TLS handshake failed, 60 server certificate not trusted, 58 bad --cert, 77 bad --cacert");
    }
}
