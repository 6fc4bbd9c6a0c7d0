package io.amqpservlet.gateway;

import io.amqpservlet.client.AmqpAddress;
import io.amqpservlet.client.AmqpClientException;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.client.ClientTls;
import io.amqpservlet.connector.engine.EngineConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

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
 * {@code amqp-servlet request [options] amqp[s]://host[:port]/node}: one HTTP request over AMQP 1.0 (over TLS for
 * {@code amqps}, {@link ClientTls}), with curl's options and exit statuses. The URL's path names the node the
 * request is sent to and, unless {@code --to} gives another, its request-target ({@link AmqpAddress}). The body is streamed to standard output
 * (or to {@code -o FILE}) as its frames arrive, so a large one is never held in memory; with {@code -i} the status
 * line and headers come first. Any HTTP status exits 0; transport and SASL failures exit with curl's codes (see
 * {@link AmqpClientException}), a bad command line with 2, a bad URL with 3, an unreadable data file with 26, an
 * unwritable output file with 23.
 */
@Command(name = "amqp-servlet request", mixinStandardHelpOptions = true, versionProvider = GatewayVersion.class,
        sortOptions = false, usageHelpWidth = 110,
        description = "Makes one HTTP request over AMQP 1.0 (amqp://) or AMQP over TLS (amqps://), as curl does "
                + "over HTTP.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:any HTTP status", "1:unsupported protocol (not amqp or amqps)", "2:bad options",
            "3:bad URL", "6:could not resolve the host", "7:connect failed",
            "8:not an AMQP 1.0 server (an HTTP or TLS port, AMQP 0-9-1)", "23:cannot write the output file",
            "26:cannot read a --data-binary file", "28:timeout", "35:TLS handshake failed",
            "56:connection closed or request refused by the server", "58:bad --cert or --key",
            "60:server certificate not trusted", "67:login denied (wrong user or password)", "77:bad --cacert"})
public final class RequestCommand {
    /** curl 1: unsupported protocol (neither amqp nor amqps). */
    static final int UNSUPPORTED_PROTOCOL = 1;
    /** Bad command line (picocli's and curl's 2). */
    static final int USAGE = 2;
    /** curl 3: URL malformed. */
    static final int BAD_URL = 3;
    /** curl 23: write error (the -o file or standard output). */
    static final int WRITE_ERROR = 23;
    /** curl 26: read error (the --data-binary file). */
    static final int READ_ERROR = 26;

    private static final int DEFAULT_PORT = 5672;
    /** IANA's port for AMQP over TLS. */
    private static final int DEFAULT_TLS_PORT = 5671;
    /** Room for the largest demo body (/bytes, 100 MiB) plus the message's own sections. */
    private static final long MAX_MESSAGE_BYTES = 128L * 1024 * 1024;

    @Spec
    private CommandSpec spec;
    private String method;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private byte[] data;
    private String dataFileError;
    private String user;
    @Option(order = 7, names = {"-i", "--include"}, description = "print the status line and headers before the body")
    private boolean include;
    @Option(order = 8, names = {"-v", "--verbose"}, description = "trace AMQP frames to standard error")
    private boolean verbose;
    private long maxTimeMillis = 30_000;
    @Parameters(paramLabel = "URL", description = "amqp[s]://host[:port]/node[?query]: the node the request is sent to "
            + "(a queue, or the server's address: orders, or //orders for /orders); the request-target is "
            + "/node?query unless --to gives one")
    private String url;
    @Option(order = 9, names = "--to", paramLabel = "TARGET", description = "the request-target (to), such as "
            + "/orders/42?x=1, apart from the URL's node: a resource under a queue's servlets")
    private String to;
    @Option(order = 13, names = "--cacert", paramLabel = "FILE",
            description = "amqps: trust the certificates in FILE (PEM or DER), not the JDK's")
    private String caCertificates;
    @Option(order = 14, names = {"-k", "--insecure"}, description = "amqps: accept any server certificate and host name")
    private boolean insecure;
    private String clientCertificate;
    @Option(order = 16, names = "--key", paramLabel = "FILE", description = "amqps: the PEM private key (unencrypted PKCS #8 or "
            + "PKCS #1) of a PEM --cert")
    private String clientKey;
    @Option(order = 6, names = {"-o", "--output"}, paramLabel = "FILE",
            description = "write the body (and with -i the head) to FILE instead of standard output")
    private String outputFile;

    private RequestCommand() {
    }

    @Option(order = 1, names = {"-X", "--request"}, paramLabel = "METHOD",
            description = "HTTP method (default GET, or POST with data)")
    void method(String m) {
        method = m;
    }

    @Option(order = 2, names = {"-H", "--header"}, paramLabel = "'N: V'",
            description = "a request header (repeatable); content-type and content-encoding go to the message "
                    + "properties")
    void header(String h) {
        int colon = h.indexOf(':');
        if (colon <= 0) {
            throw new ParameterException(spec.commandLine(), "-H wants 'name: value', got " + h);
        }
        headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
    }

    @Option(order = 3, names = {"-d", "--data"}, paramLabel = "TEXT", description = "request body (repeatable, joined with &; "
            + "content type application/x-www-form-urlencoded unless -H sets one)")
    void data(String text) {
        data = join(data, text.getBytes(StandardCharsets.UTF_8)); // as curl: several -d are joined with '&'
    }

    @Option(order = 4, names = "--data-binary", paramLabel = "@FILE", description = "request body from a file (or literal text "
            + "without @)")
    void dataBinary(String v) {
        byte[] bytes;
        if (v.startsWith("@")) {
            try {
                bytes = Files.readAllBytes(Path.of(v.substring(1)));
            } catch (IOException e) {
                dataFileError = "cannot read " + v.substring(1) + ": " + IoMessage.of(e);
                return;
            }
        } else {
            bytes = v.getBytes(StandardCharsets.UTF_8);
        }
        data = join(data, bytes);
    }

    @Option(order = 5, names = {"-u", "--user"}, paramLabel = "NAME:PASS", description = "SASL PLAIN (default: SASL ANONYMOUS)")
    void user(String u) {
        if (u.indexOf(':') <= 0) {
            throw new ParameterException(spec.commandLine(), "-u wants user:password, got " + u);
        }
        user = u;
    }

    @Option(order = 15, names = {"-E", "--cert"}, paramLabel = "FILE[:PASS]", description = "amqps: present a client certificate: "
            + "a PKCS12 file (and its password), or a PEM certificate with --key (or with its key in the same file); "
            + "without -u, log in with SASL EXTERNAL (the certificate's identity)")
    void cert(String c) {
        clientCertificate = c;
    }

    @Option(order = 10, names = {"-m", "--max-time"}, paramLabel = "SECONDS", description = "give up after this long "
            + "(default 30; exit 28); the request expires then, so a server that gets it later does not run it")
    void maxTime(String seconds) {
        try {
            double s = Double.parseDouble(seconds);
            if (!(s > 0)) {
                throw new NumberFormatException();
            }
            maxTimeMillis = (long) (s * 1000);
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "--max-time wants a positive number of seconds, got "
                    + seconds);
        }
    }

    @Option(order = 11, names = {"-0", "--http1.0"}, description = "ask for HTTP/1.0 (http:request)")
    void http10(boolean on) {
        headers.put("http:request", "1.0"); // docs/design.md §3: the version travels in http:request
    }

    @Option(order = 12, names = "--http2", description = "ask for HTTP/2 (default 1.1)")
    void http2(boolean on) {
        headers.put("http:request", "2");
    }

    /** Runs the command; returns the exit status. Only the response (or the help text) is written to {@code out}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        RequestCommand c = new RequestCommand();
        CommandLine cmd = new CommandLine(c).setOverwrittenOptionsAllowed(true).setExpandAtFiles(false);
        try {
            cmd.parseArgs(args);
        } catch (ParameterException e) {
            err.println("amqp-servlet request: " + e.getMessage());
            err.println("Try 'amqp-servlet request --help' for more information.");
            return USAGE;
        }
        if (cmd.isUsageHelpRequested()) {
            out.print(cmd.getUsageMessage());
            return 0;
        }
        if (cmd.isVersionHelpRequested()) {
            cmd.printVersionHelp(out);
            return 0;
        }
        if (c.url == null) {
            err.println("amqp-servlet request: no URL given");
            err.println("Try 'amqp-servlet request --help' for more information.");
            return USAGE;
        }
        if (c.dataFileError != null) {
            err.println("amqp-servlet request: " + c.dataFileError);
            return READ_ERROR;
        }
        return c.execute(out, err);
    }

    private int execute(PrintStream out, PrintStream err) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            err.println("amqp-servlet request: malformed URL: " + e.getMessage());
            return BAD_URL;
        }
        boolean amqps = "amqps".equalsIgnoreCase(uri.getScheme());
        if (!amqps && !"amqp".equalsIgnoreCase(uri.getScheme())) {
            err.println("amqp-servlet request: unsupported protocol " + (uri.getScheme() == null ? "(none)"
                    : uri.getScheme()) + " in " + url + " (only amqp:// and amqps://)");
            return UNSUPPORTED_PROTOCOL;
        }
        if (!amqps && (caCertificates != null || insecure || clientCertificate != null || clientKey != null)) {
            err.println("amqp-servlet request: --cacert, -k, --cert and --key need an amqps:// URL");
            return USAGE;
        }
        if (uri.getHost() == null) {
            err.println("amqp-servlet request: " + UrlProblem.describe(uri, url));
            return BAD_URL;
        }
        String host = uri.getHost();
        int port = uri.getPort() >= 0 ? uri.getPort() : amqps ? DEFAULT_TLS_PORT : DEFAULT_PORT;
        if (to != null && !to.startsWith("/") && !to.contains("://") && !to.equals("*")) {
            err.println("amqp-servlet request: --to wants a path such as /orders/42 (or an absolute URL), got " + to);
            return USAGE;
        }
        AmqpAddress address = to == null ? AmqpAddress.of(uri) : AmqpAddress.of(uri, to);
        String target = address.target();
        String requestMethod = method != null ? method : data == null ? "GET" : "POST";
        // Content type and encoding travel in the message properties (docs/design.md §3), not as headers: the
        // encoder sends a content-encoding header as its property.
        String contentType = headers.remove("content-type");
        if (contentType == null && data != null) {
            contentType = "application/x-www-form-urlencoded"; // what curl sends with -d
        }
        for (String[] property : new String[][] {{"Content-Type", contentType},
                {"Content-Encoding", headers.get("content-encoding")}}) {
            if (property[1] != null && !isAscii(property[1])) {
                // The properties are AMQP symbols (AMQP 1.0 §3.2.4), which hold ASCII only.
                err.println("amqp-servlet request: the " + property[0] + " header must be ASCII, got " + property[1]);
                return USAGE;
            }
        }

        ClientTls tls = null;
        if (amqps) {
            try {
                tls = clientTls();
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
        ResponseOutput output = new ResponseOutput(out, outputFile, include, verbose ? err : null);
        if (verbose) {
            err.println("* node " + (address.node() == null ? "(none: the anonymous relay)" : address.node()));
        }
        try (AmqpRequestClient client = AmqpRequestClient.connect(host, port, address.node(), config, deadline,
                tls)) {
            if (verbose) {
                err.println("> " + requestMethod + " " + target);
            }
            client.exchange(requestMethod, target, headers, contentType, data, output, deadline);
            output.finish();
            return 0;
        } catch (ResponseOutput.WriteFailure e) {
            err.println("amqp-servlet request: " + e.getMessage());
            return WRITE_ERROR;
        } catch (AmqpClientException e) {
            err.println("amqp-servlet request: " + e.getMessage());
            return e.exitCode();
        } catch (IOException e) {
            err.println("amqp-servlet request: " + IoMessage.of(e));
            return AmqpClientException.PEER_FAILURE;
        } finally {
            output.close();
        }
    }

    /**
     * {@code --cert FILE[:PASSWORD]} (curl's syntax; the file PKCS12, or PEM with {@code --key} or with its key
     * inside) and {@code --key FILE}.
     */
    private ClientTls clientTls() throws AmqpClientException {
        Path certificate = null;
        String password = null;
        if (clientCertificate != null) {
            int colon = clientCertificate.indexOf(':');
            // A Windows drive letter ("C:\\...") is part of the file name, as curl reads it.
            if (colon == 1 && clientCertificate.length() > 2 && clientCertificate.charAt(2) == '\\') {
                colon = clientCertificate.indexOf(':', 2);
            }
            certificate = Path.of(colon < 0 ? clientCertificate : clientCertificate.substring(0, colon));
            password = colon < 0 ? null : clientCertificate.substring(colon + 1);
        }
        if (clientKey != null && certificate == null) {
            throw new AmqpClientException(AmqpClientException.LOCAL_CERTIFICATE, "--key needs --cert");
        }
        return ClientTls.create(caCertificates == null ? null : Path.of(caCertificates), insecure, certificate,
                clientKey == null ? null : Path.of(clientKey), password);
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
            // docs/design.md §3: keys starting with http: or : carry the mapping itself, not headers.
            if (!h.getKey().startsWith("http:") && !h.getKey().startsWith(":")) {
                sb.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
            }
        }
        return sb.append("\r\n").toString();
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

    /** The usage text, as {@code --help} prints it. */
    static String usage() {
        return new CommandLine(new RequestCommand()).getUsageMessage();
    }

    private static boolean isAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }
}
