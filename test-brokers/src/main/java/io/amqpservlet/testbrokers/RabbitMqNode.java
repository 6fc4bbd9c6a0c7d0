package io.amqpservlet.testbrokers;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A private RabbitMQ node (Debian's {@code rabbitmq-server} 3.10, with its {@code rabbitmq_amqp1_0} plugin) for the
 * tests and the benchmarks that need a real AMQP 1.0 broker. Each node owns a temporary folder holding its data
 * (mnesia), logs, Erlang cookie (its {@code HOME}), config and enabled-plugins file, a node name of its own and a free
 * loopback port, so parallel runs, a system node and nodes left over by a killed run do not collide; nothing global is
 * read or changed (the package's {@code /etc/rabbitmq} files are bypassed, its service is never used).
 *
 * <p>{@link #start(Path)} returns once the port answers the AMQP 1.0 SASL protocol header with the same header, which
 * RabbitMQ does only once its plugins have started (it opens its listeners at the end of its boot; without the plugin
 * the port answers with AMQP 0-9-1's header, which fails the start within seconds). {@link #stop()} shuts the node
 * down cleanly (queues and persistent messages stay on disk) and {@link #restart()} brings it back on the same port,
 * node name and data. {@link #close()} kills the whole process tree and deletes the folder. The Erlang port mapper
 * ({@code epmd}, shared by every node on the machine) is left running, as Erlang itself does.
 *
 * <p>The node runs under a small shell that ends it (cleanly) when the shell's standard input closes, which happens
 * when this JVM exits for any reason, even {@code kill -9}: a crashed run does not leave a broker running (only its
 * folder, {@code rabbitmq-*} in {@code java.io.tmpdir} or the folder given). The shell exits when the node does, so a
 * node that dies while starting (a boot failure) fails the start at once.
 *
 * <p>Credentials: RabbitMQ's {@link #USER}/{@link #PASSWORD} (SASL PLAIN), which it accepts from loopback only. A node
 * started {@link #startWithClientCertificates with client certificates} also listens with TLS on a port of its own,
 * where a client must present a certificate signed by the given client CA, and offers SASL EXTERNAL, which logs the
 * client in as the user named by the certificate's common name ({@link #CERTIFICATE_USER}, a user of the node with
 * every permission on the default virtual host).
 *
 * <p>RabbitMQ 3.10 offers neither the anonymous relay nor dynamic nodes: a client replies to named queues
 * ({@code /queue/NAME}, declared by the first link that names them) and a responder attaches a sender per reply
 * address.
 */
public final class RabbitMqNode implements AutoCloseable {
    /** The package's launcher (a link to the versioned script); {@code /usr/sbin/rabbitmq-server} would su to rabbitmq. */
    public static final Path SERVER_SCRIPT = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
    /** RabbitMQ's default user, accepted from loopback connections only. */
    public static final String USER = "guest";
    /** The default user's password. */
    public static final String PASSWORD = "guest";
    /** The user a node with client certificates knows by the client certificate's common name. */
    public static final String CERTIFICATE_USER = "alice";
    /** The package's command line tool, run against this node only. */
    private static final Path CTL_SCRIPT = Path.of("/usr/lib/rabbitmq/bin/rabbitmqctl");

    private static final long START_TIMEOUT_MILLIS = 90_000;
    private static final long STOP_TIMEOUT_MILLIS = 30_000;
    private static final int LOG_EXCERPT_CHARS = 3_000;
    private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
    private static final byte[] AMQP_091_HEADER = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};
    private static final AtomicInteger NODES = new AtomicInteger();
    private static final String INSTALL_HINT = " (run .ci/install-peers from the repository root, as .ci/run does: it"
            + " installs Debian's rabbitmq-server)";
    /**
     * Runs the launcher ({@code $0}) as a job and stops it (SIGTERM, which rabbitmq-server turns into a clean shutdown)
     * when this shell's standard input closes or this shell gets SIGTERM; exits with the launcher's status when the
     * node ends on its own. A non-interactive shell gives background jobs /dev/null as input, hence the input is
     * handed to the reader as descriptor 3.
     */
    private static final String WATCHDOG = "exec 3<&0\n"
            + "\"$0\" </dev/null & server=$!\n"
            + "(read -r _ignored <&3; kill -TERM $server 2>/dev/null) & reader=$!\n"
            + "trap 'kill -TERM $server 2>/dev/null; wait $server; kill $reader 2>/dev/null; exit 0' TERM\n"
            + "wait $server; status=$?\n"
            + "kill $reader 2>/dev/null\n"
            + "exit $status\n";

    /**
     * The PEM files of a node that needs client certificates: its own certificate and key, and the CA that signs the
     * client certificates it accepts. Erlang's TLS refuses a self-signed client certificate even when it trusts it,
     * so the client certificate must be signed by this CA.
     */
    public record ClientCertificates(Path certificate, Path key, Path clientCa) {
    }

    private final Path directory;
    private final String nodeName;
    private final int amqpPort;
    /** The TLS listener's port; -1 without client certificates. */
    private final int tlsPort;
    private final ClientCertificates certificates;
    private final Path consoleLog;
    private Process watchdog;
    private long vmPid = -1;
    private long lastStartMillis;
    /** Where this start's lines begin in the node's log, which a restart appends to. */
    private long nodeLogStart;

    private RabbitMqNode(Path directory, String nodeName, int amqpPort, ClientCertificates certificates)
            throws IOException {
        this.directory = directory;
        this.nodeName = nodeName;
        this.amqpPort = amqpPort;
        this.certificates = certificates;
        this.tlsPort = certificates == null ? -1 : freeLoopbackPort();
        this.consoleLog = directory.resolve("console.log");
    }

    /** Whether the launcher and the AMQP 1.0 plugin are installed; {@link #requireInstalled()} says what is missing. */
    public static boolean installed() {
        return missing() == null;
    }

    /**
     * Throws unless RabbitMQ and its AMQP 1.0 plugin are installed: a test that needs the node fails (never skips)
     * where it is missing.
     *
     * @throws IllegalStateException naming what is missing and how to install it
     */
    public static void requireInstalled() {
        String missing = missing();
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
    }

    private static String missing() {
        if (!Files.isExecutable(SERVER_SCRIPT)) {
            return SERVER_SCRIPT + " is missing: Debian's rabbitmq-server is not installed" + INSTALL_HINT;
        }
        // The plugin ships in rabbitmq-server's own plugins folder, next to the versioned sbin the launcher links to.
        try {
            Path plugins = SERVER_SCRIPT.toRealPath().getParent().getParent().resolve("plugins");
            try (Stream<Path> entries = Files.list(plugins)) {
                if (entries.anyMatch(p -> p.getFileName().toString().startsWith("rabbitmq_amqp1_0-"))) {
                    return null;
                }
            }
        } catch (IOException e) {
            return "cannot list RabbitMQ's plugins next to " + SERVER_SCRIPT + ": " + e;
        }
        return "RabbitMQ's rabbitmq_amqp1_0 plugin is missing next to " + SERVER_SCRIPT + INSTALL_HINT;
    }

    /** The installed RabbitMQ's version, from the launcher's versioned folder ({@code rabbitmq_server-3.10.8}). */
    public static String version() {
        try {
            String folder = SERVER_SCRIPT.toRealPath().getParent().getParent().getFileName().toString();
            return folder.substring(folder.indexOf('-') + 1);
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * Starts a node with empty data in a new folder under {@code parent} (the temporary folder when null) on a free
     * loopback port and waits until it speaks AMQP 1.0.
     *
     * @return the running node; {@link #close()} it
     * @throws IOException if RabbitMQ or its plugin is not installed, or the node does not come up within 90 s (the
     *     message holds the command and the tails of its logs)
     */
    public static RabbitMqNode start(Path parent) throws IOException, InterruptedException {
        return start(parent, null);
    }

    /**
     * Starts a node as {@link #start(Path)} does that also listens with TLS ({@link #tlsPort()}) with the certificate
     * and key of {@code certificates}, needs a client certificate signed by their client CA there and offers SASL
     * EXTERNAL (for the user {@link #CERTIFICATE_USER}, who has no password) besides PLAIN.
     */
    public static RabbitMqNode startWithClientCertificates(Path parent, ClientCertificates certificates)
            throws IOException, InterruptedException {
        return start(parent, certificates);
    }

    private static RabbitMqNode start(Path parent, ClientCertificates certificates)
            throws IOException, InterruptedException {
        String missing = missing();
        if (missing != null) {
            throw new IOException(missing);
        }
        Path directory = parent == null ? Files.createTempDirectory("rabbitmq-")
                : Files.createTempDirectory(Files.createDirectories(parent), "rabbitmq-");
        // Short node names (sname) need a host part that resolves; "localhost" always does.
        String nodeName = "amqpservlet-" + ProcessHandle.current().pid() + "-" + NODES.incrementAndGet() + "@localhost";
        RabbitMqNode node = new RabbitMqNode(directory, nodeName, freeLoopbackPort(), certificates);
        try {
            node.writeFiles();
            node.launch();
            return node;
        } catch (IOException | InterruptedException | RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /** The loopback port of the AMQP listener; the same for the node's whole life, restarts included. */
    public int amqpPort() {
        return amqpPort;
    }

    /** The loopback port of the TLS listener of a node started {@link #startWithClientCertificates with them}. */
    public int tlsPort() {
        if (tlsPort < 0) {
            throw new IllegalStateException("started without client certificates: no TLS listener");
        }
        return tlsPort;
    }

    /** The OS process id of the node's Erlang VM ({@code beam.smp}), where the broker's CPU time is spent. */
    public long vmPid() {
        return vmPid;
    }

    /** The Erlang node name, {@code name@localhost}. */
    public String nodeName() {
        return nodeName;
    }

    /** How long the last start took, from spawning the launcher to the port answering the AMQP 1.0 header. */
    public long lastStartMillis() {
        return lastStartMillis;
    }

    /**
     * A URI for a queue of this node with the default user's credentials, as attach mode takes it:
     * {@code amqp://guest:guest@127.0.0.1:PORT//queue/NAME} (the node {@code /queue/NAME}, RabbitMQ's address of a
     * queue).
     */
    public String queueUri(String queue) {
        return "amqp://" + USER + ":" + PASSWORD + "@127.0.0.1:" + amqpPort + "/" + queueAddress(queue);
    }

    /** RabbitMQ's AMQP 1.0 address of the queue {@code queue}: {@code /queue/NAME}. */
    public static String queueAddress(String queue) {
        return "/queue/" + queue;
    }

    /** Whether the node's processes are alive. */
    public boolean running() {
        return watchdog != null && watchdog.isAlive();
    }

    /**
     * Runs {@code rabbitmqctl} against this node and returns its output's lines ({@code --silent}: no banner).
     *
     * @throws IOException if it fails or takes over 60 s (with its output)
     */
    public List<String> rabbitmqctl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(CTL_SCRIPT.toString(), "--node", nodeName, "--silent"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("HOME", directory.resolve("home").toString()); // the node's Erlang cookie
        builder.environment().put("RABBITMQ_CONF_ENV_FILE", directory.resolve("rabbitmq-env.conf").toString());
        Process ctl = builder.start();
        try {
            String output = new String(ctl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ctl.waitFor(60, TimeUnit.SECONDS) || ctl.exitValue() != 0) {
                throw new IOException("rabbitmqctl " + String.join(" ", args) + " failed against " + nodeName + ":\n"
                        + output);
            }
            return output.lines().filter(line -> !line.isBlank()).toList();
        } finally {
            ctl.destroyForcibly();
        }
    }

    /**
     * Shuts the node down cleanly, keeping its data: durable queues and the persistent messages in them survive into
     * {@link #restart()}. Kills the process tree if the clean shutdown takes over 30 s.
     *
     * @throws IOException if the node's processes do not end
     */
    public void stop() throws IOException, InterruptedException {
        if (watchdog == null) {
            return;
        }
        List<ProcessHandle> tree = processTree();
        watchdog.getOutputStream().close(); // the watchdog's cue
        // The watchdog (our child, so waited for exactly) ends after the launcher, which ends after the VM.
        watchdog.waitFor(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        kill(tree);
        watchdog = null;
    }

    /**
     * Starts the node again after {@link #stop()}: same port, node name and data.
     *
     * @throws IOException if it does not come up within 90 s
     */
    public void restart() throws IOException, InterruptedException {
        if (running()) {
            throw new IllegalStateException("the node is running: stop() it first");
        }
        launch();
    }

    /** Resident memory of the Erlang VM (beam.smp), from /proc, in bytes; -1 if it is not running. */
    public long residentBytes() throws IOException {
        for (ProcessHandle process : processTree()) {
            Path status = Path.of("/proc", Long.toString(process.pid()), "status");
            if (!process.info().command().orElse("").endsWith("beam.smp") || !Files.exists(status)) {
                continue;
            }
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    String kilobytes = line.substring("VmRSS:".length()).replace("kB", "").trim();
                    return Long.parseLong(kilobytes) * 1024;
                }
            }
        }
        return -1;
    }

    /** Kills every process of the node at once and deletes its folder; the node cannot be restarted after this. */
    @Override
    public void close() throws IOException {
        if (watchdog != null) {
            kill(processTree());
            watchdog = null;
        }
        if (Files.exists(directory)) {
            try (Stream<Path> paths = Files.walk(directory)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    private void writeFiles() throws IOException {
        Files.createDirectories(directory.resolve("home"));
        Files.createDirectories(directory.resolve("log"));
        Files.writeString(directory.resolve("rabbitmq-env.conf"), ""); // keeps /etc/rabbitmq/rabbitmq-env.conf out
        // The same file rabbitmq-plugins enable --offline would write; the node adds the plugins' dependencies.
        Files.writeString(directory.resolve("enabled_plugins"), certificates == null ? "[rabbitmq_amqp1_0].\n"
                : "[rabbitmq_amqp1_0,rabbitmq_auth_mechanism_ssl].\n");
        List<String> config = new ArrayList<>(List.of(
                "listeners.tcp.1 = 127.0.0.1:" + amqpPort,
                // Only the file in log/, so the console output stays short enough to quote on failure.
                "log.console = false",
                "log.file.level = info"));
        if (certificates != null) {
            config.addAll(clientCertificateConfig());
        }
        config.add("");
        Files.writeString(directory.resolve("rabbitmq.conf"), String.join("\n", config));
    }

    /**
     * The TLS listener that needs a client certificate signed by the client CA, SASL EXTERNAL (its plugin enabled
     * with the AMQP 1.0 one) with the certificate's common name as the user, and that user: definitions loaded at
     * boot, which then make every user the node has (the default user too, with its usual password).
     */
    private List<String> clientCertificateConfig() throws IOException {
        Path definitions = directory.resolve("definitions.json");
        Files.writeString(definitions, "{\"vhosts\": [{\"name\": \"/\"}], \"users\": ["
                + user(USER, PASSWORD, "administrator") + ", " + user(CERTIFICATE_USER, null, "") + "],"
                + " \"permissions\": [" + permissions(USER) + ", " + permissions(CERTIFICATE_USER) + "]}\n");
        return List.of(
                "listeners.ssl.1 = 127.0.0.1:" + tlsPort,
                "ssl_options.cacertfile = " + certificates.clientCa(),
                "ssl_options.certfile = " + certificates.certificate(),
                "ssl_options.keyfile = " + certificates.key(),
                "ssl_options.verify = verify_peer",
                "ssl_options.fail_if_no_peer_cert = true",
                "auth_mechanisms.1 = PLAIN",
                "auth_mechanisms.2 = EXTERNAL",
                "ssl_cert_login_from = common_name",
                "load_definitions = " + definitions);
    }

    /** A user of the definitions file; {@code password} null for none (a user that logs in by certificate only). */
    private static String user(String name, String password, String tags) {
        String hash = "";
        if (password != null) {
            // RabbitMQ's rabbit_password_hashing_sha256: base64(salt ++ sha256(salt ++ password)), a 4-byte salt.
            byte[] salt = {0x1c, 0x2d, 0x3e, 0x4f};
            try {
                MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
                sha256.update(salt);
                byte[] digest = sha256.digest(password.getBytes(StandardCharsets.UTF_8));
                byte[] salted = Arrays.copyOf(salt, salt.length + digest.length);
                System.arraycopy(digest, 0, salted, salt.length, digest.length);
                hash = Base64.getEncoder().encodeToString(salted);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        return "{\"name\": \"" + name + "\", \"password_hash\": \"" + hash
                + "\", \"hashing_algorithm\": \"rabbit_password_hashing_sha256\", \"tags\": \"" + tags + "\"}";
    }

    private static String permissions(String user) {
        return "{\"user\": \"" + user + "\", \"vhost\": \"/\", \"configure\": \".*\", \"write\": \".*\","
                + " \"read\": \".*\"}";
    }

    private void launch() throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", WATCHDOG, SERVER_SCRIPT.toString());
        Map<String, String> env = builder.environment();
        env.put("HOME", directory.resolve("home").toString()); // Erlang writes its .erlang.cookie here
        env.put("RABBITMQ_CONF_ENV_FILE", directory.resolve("rabbitmq-env.conf").toString());
        env.put("RABBITMQ_CONFIG_FILE", directory.resolve("rabbitmq.conf").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", directory.resolve("enabled_plugins").toString());
        env.put("RABBITMQ_MNESIA_BASE", directory.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", directory.resolve("log").toString());
        env.put("RABBITMQ_NODENAME", nodeName);
        // The distribution port defaults to the AMQP port + 20000, which may be taken or out of range; a new free one
        // per start is fine (peers find it through epmd).
        env.put("RABBITMQ_DIST_PORT", Integer.toString(freeLoopbackPort()));
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile()));
        nodeLogStart = Files.exists(nodeLog()) ? Files.size(nodeLog()) : 0;
        long startNanos = System.nanoTime();
        watchdog = builder.start();
        awaitAmqp10(startNanos);
        vmPid = findVm();
        lastStartMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private void awaitAmqp10(long startNanos) throws IOException, InterruptedException {
        long deadline = startNanos + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        long amqp091SinceNanos = 0;
        String lastProbe = "no probe yet";
        while (System.nanoTime() < deadline) {
            if (!watchdog.isAlive()) {
                throw new IOException(failure("exited (status " + watchdog.exitValue() + ") while starting"));
            }
            byte[] answer;
            try {
                answer = probe();
            } catch (IOException e) {
                lastProbe = e.toString();
                Thread.sleep(100);
                continue;
            }
            if (Arrays.equals(answer, SASL_HEADER)) {
                return;
            }
            lastProbe = "answered " + Arrays.toString(answer);
            // RabbitMQ opens its listeners once every plugin has started, so AMQP 0-9-1's header (AMQP 0 0 9 1) in
            // answer means the AMQP 1.0 plugin is not running; a few seconds of it are proof enough.
            if (answer.length == AMQP_091_HEADER.length && answer[5] == AMQP_091_HEADER[5]
                    && answer[6] == AMQP_091_HEADER[6]) {
                amqp091SinceNanos = amqp091SinceNanos == 0 ? System.nanoTime() : amqp091SinceNanos;
                if (System.nanoTime() - amqp091SinceNanos > TimeUnit.SECONDS.toNanos(5)) {
                    deadline = 0;
                    lastProbe += ": AMQP 0-9-1 only, so the rabbitmq_amqp1_0 plugin is not running";
                }
            }
            Thread.sleep(100);
        }
        kill(processTree());
        watchdog = null;
        throw new IOException(failure("did not answer the AMQP 1.0 header (last probe: " + lastProbe + ") within "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms"));
    }

    /** The beam.smp process among the watchdog's descendants. */
    private long findVm() throws IOException {
        for (ProcessHandle p : processTree()) {
            if (p.info().command().orElse("").endsWith("beam.smp")) {
                return p.pid();
            }
        }
        throw new IOException(failure("answers AMQP 1.0, but no beam.smp process was found under its launcher"));
    }

    /** What the port answers to the AMQP 1.0 SASL header (AMQP 1.0 §5.3.1): the same header once the plugin is up. */
    private byte[] probe() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), amqpPort), 1_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write(SASL_HEADER);
            out.flush();
            return socket.getInputStream().readNBytes(SASL_HEADER.length);
        }
    }

    private String failure(String what) {
        return "RabbitMQ node " + nodeName + " on 127.0.0.1:" + amqpPort + " " + what + "\n--- command: HOME="
                + directory.resolve("home") + " RABBITMQ_CONFIG_FILE=" + directory.resolve("rabbitmq.conf")
                + " RABBITMQ_NODENAME=" + nodeName + " ... " + SERVER_SCRIPT + "\n--- " + consoleLog + "\n"
                + excerpt(consoleLog, 0) + "\n--- " + nodeLog() + " (this start)\n" + excerpt(nodeLog(), nodeLogStart);
    }

    private Path nodeLog() {
        return directory.resolve("log").resolve(nodeName + ".log");
    }

    /**
     * The file from {@code offset} on, cut in the middle when long: the head shows the boot (where a real cause is
     * logged), the tail the end, which may be only our probes being turned away.
     */
    private static String excerpt(Path file, long offset) {
        try {
            if (!Files.exists(file)) {
                return "(none)";
            }
            byte[] bytes = Files.readAllBytes(file);
            int from = (int) Math.min(offset, bytes.length);
            String text = new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
            if (text.length() <= 2 * LOG_EXCERPT_CHARS) {
                return text;
            }
            return text.substring(0, LOG_EXCERPT_CHARS) + "\n[... " + (text.length() - 2 * LOG_EXCERPT_CHARS)
                    + " chars ...]\n" + text.substring(text.length() - LOG_EXCERPT_CHARS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The watchdog and all its descendants (launcher script, erl, beam.smp, erl_child_setup, inet_gethost). */
    private List<ProcessHandle> processTree() {
        List<ProcessHandle> tree = new ArrayList<>();
        if (watchdog != null) {
            ProcessHandle root = watchdog.toHandle();
            tree.add(root);
            root.descendants().forEach(tree::add);
        }
        return tree;
    }

    /** SIGKILLs every process in {@code tree} (taken before, as orphans leave the tree) and waits for them. */
    private static void kill(List<ProcessHandle> tree) throws IOException {
        for (ProcessHandle process : tree) {
            process.destroyForcibly();
        }
        for (ProcessHandle process : tree) {
            try {
                process.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IOException("process " + process.pid() + " of the RabbitMQ node did not end", e);
            }
        }
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Runs a node until this process is ended: prints {@code rabbitmq listening amqp=PORT vm-pid=PID} once it serves.
     * For trying attach mode against RabbitMQ by hand.
     */
    public static void main(String[] args) throws Exception {
        RabbitMqNode node = start(null);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (IOException e) {
                System.err.println("rabbitmq: close failed: " + e);
            }
        }, "rabbitmq-shutdown"));
        System.out.println("rabbitmq listening amqp=" + node.amqpPort() + " vm-pid=" + node.vmPid());
        System.out.flush();
        Thread.currentThread().join();
    }
}
