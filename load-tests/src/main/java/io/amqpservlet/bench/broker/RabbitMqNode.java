package io.amqpservlet.bench.broker;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A private RabbitMQ node for the brokered benchmarks: Debian's {@code rabbitmq-server} (3.10) with its
 * {@code rabbitmq_amqp1_0} plugin, run from a folder of its own (data, logs, Erlang cookie, config, enabled plugins),
 * under a node name of its own, on a free loopback port. Nothing global is read or changed: the package's
 * {@code /etc/rabbitmq} files and its system service are bypassed, so a system node or another run's node does not
 * collide with this one.
 *
 * <p>{@link #start(Path)} returns once the port answers the AMQP 1.0 SASL header with the same header (RabbitMQ opens
 * its listeners only after its plugins have started). The node runs under a small shell that stops it when the
 * shell's standard input closes, which happens when this JVM ends for any reason: a killed benchmark leaves no broker
 * behind. {@link #close()} kills the node's processes and deletes its folder.
 *
 * <p>RabbitMQ 3.10 offers neither the anonymous relay nor dynamic nodes: a client replies to named queues
 * ({@code /queue/NAME}, declared by the first link that names them) and a responder attaches a sender per reply
 * address. Clients log in with SASL PLAIN as {@link #USER}, which RabbitMQ accepts from loopback only.
 */
public final class RabbitMqNode implements AutoCloseable {
    /** The package's launcher (a link to the versioned script); {@code /usr/sbin/rabbitmq-server} would su to rabbitmq. */
    public static final Path SERVER_SCRIPT = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
    /** RabbitMQ's default user, accepted from loopback connections only. */
    public static final String USER = "guest";
    /** The default user's password. */
    public static final String PASSWORD = "guest";

    private static final long START_TIMEOUT_MILLIS = 90_000;
    private static final int LOG_EXCERPT_CHARS = 3_000;
    private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
    private static final AtomicInteger NODES = new AtomicInteger();
    private static final String INSTALL_HINT = " (run .ci/install-peers from the repository root: it installs Debian's"
            + " rabbitmq-server)";
    /**
     * Runs the launcher ({@code $0}) as a job and stops it (SIGTERM: rabbitmq-server's clean shutdown) when this
     * shell's standard input closes or this shell gets SIGTERM; exits with the launcher's status when the node ends
     * on its own. A non-interactive shell gives its jobs /dev/null as input, so the input is kept as descriptor 3.
     */
    private static final String WATCHDOG = "exec 3<&0\n"
            + "\"$0\" </dev/null & server=$!\n"
            + "(read -r _ignored <&3; kill -TERM $server 2>/dev/null) & reader=$!\n"
            + "trap 'kill -TERM $server 2>/dev/null; wait $server; kill $reader 2>/dev/null; exit 0' TERM\n"
            + "wait $server; status=$?\n"
            + "kill $reader 2>/dev/null\n"
            + "exit $status\n";

    private final Path directory;
    private final String nodeName;
    private final int amqpPort;
    private Process watchdog;
    private long vmPid = -1;

    private RabbitMqNode(Path directory, String nodeName, int amqpPort) {
        this.directory = directory;
        this.nodeName = nodeName;
        this.amqpPort = amqpPort;
    }

    /** Whether the launcher and the AMQP 1.0 plugin are installed; {@link #start(Path)} says what is missing. */
    public static boolean installed() {
        return missing() == null;
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
     * Starts a node with empty data in a new folder under {@code parent} (the temporary folder when null) and waits
     * until it speaks AMQP 1.0.
     *
     * @return the running node; {@link #close()} it
     * @throws IOException if RabbitMQ or its plugin is not installed, or the node does not come up within 90 s (the
     *     message holds the command and the tails of its logs)
     */
    public static RabbitMqNode start(Path parent) throws IOException, InterruptedException {
        String missing = missing();
        if (missing != null) {
            throw new IOException(missing);
        }
        Path directory = parent == null ? Files.createTempDirectory("rabbitmq-bench-")
                : Files.createTempDirectory(Files.createDirectories(parent), "rabbitmq-");
        // Short node names need a host part that resolves; "localhost" always does.
        String nodeName = "amqpservlet-bench-" + ProcessHandle.current().pid() + "-" + NODES.incrementAndGet()
                + "@localhost";
        RabbitMqNode node = new RabbitMqNode(directory, nodeName, freeLoopbackPort());
        try {
            node.writeFiles();
            node.launch();
            return node;
        } catch (IOException | InterruptedException | RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /** The loopback port of the AMQP listener. */
    public int amqpPort() {
        return amqpPort;
    }

    /** The OS process id of the node's Erlang VM ({@code beam.smp}), where the broker's CPU time is spent. */
    public long vmPid() {
        return vmPid;
    }

    /** The Erlang node name, {@code name@localhost}. */
    public String nodeName() {
        return nodeName;
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

    /** Kills every process of the node and deletes its folder. */
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
        // What rabbitmq-plugins enable --offline would write; the node adds the plugin's dependencies itself.
        Files.writeString(directory.resolve("enabled_plugins"), "[rabbitmq_amqp1_0].\n");
        Files.writeString(directory.resolve("rabbitmq.conf"), String.join("\n",
                "listeners.tcp.1 = 127.0.0.1:" + amqpPort,
                "log.console = false",
                "log.file.level = warning",
                ""));
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
        // The distribution port defaults to the AMQP port + 20000, which may be taken or out of range.
        env.put("RABBITMQ_DIST_PORT", Integer.toString(freeLoopbackPort()));
        builder.redirectErrorStream(true).redirectOutput(directory.resolve("console.log").toFile());
        watchdog = builder.start();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        String lastProbe = "no probe yet";
        while (System.nanoTime() < deadline) {
            if (!watchdog.isAlive()) {
                throw new IOException(failure("exited (status " + watchdog.exitValue() + ") while starting"));
            }
            try {
                byte[] answer = probe();
                if (Arrays.equals(answer, SASL_HEADER)) {
                    vmPid = findVm();
                    return;
                }
                lastProbe = "answered " + Arrays.toString(answer)
                        + (answer.length > 5 && answer[4] == 0 ? " (AMQP 0-9-1 only: the AMQP 1.0 plugin is not running)"
                        : "");
            } catch (IOException e) {
                lastProbe = e.toString();
            }
            Thread.sleep(100);
        }
        kill(processTree());
        watchdog = null;
        throw new IOException(failure("did not answer the AMQP 1.0 header within " + START_TIMEOUT_MILLIS
                + " ms (last probe: " + lastProbe + ")"));
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
        Path nodeLog = directory.resolve("log").resolve(nodeName + ".log");
        return "RabbitMQ node " + nodeName + " on 127.0.0.1:" + amqpPort + " " + what + "\n--- command: HOME="
                + directory.resolve("home") + " RABBITMQ_CONFIG_FILE=" + directory.resolve("rabbitmq.conf")
                + " RABBITMQ_NODENAME=" + nodeName + " ... " + SERVER_SCRIPT + "\n--- console\n"
                + excerpt(directory.resolve("console.log")) + "\n--- " + nodeLog + "\n" + excerpt(nodeLog);
    }

    /** The file, cut in the middle when long: the head shows the boot, the tail the end. */
    private static String excerpt(Path file) {
        try {
            if (!Files.exists(file)) {
                return "(none)";
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            if (text.length() <= 2 * LOG_EXCERPT_CHARS) {
                return text;
            }
            return text.substring(0, LOG_EXCERPT_CHARS) + "\n[... " + (text.length() - 2 * LOG_EXCERPT_CHARS)
                    + " chars ...]\n" + text.substring(text.length() - LOG_EXCERPT_CHARS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The watchdog and all its descendants (launcher, erl, beam.smp, erl_child_setup, inet_gethost). */
    private List<ProcessHandle> processTree() {
        List<ProcessHandle> tree = new ArrayList<>();
        if (watchdog != null) {
            ProcessHandle root = watchdog.toHandle();
            tree.add(root);
            root.descendants().forEach(tree::add);
        }
        return tree;
    }

    /** SIGKILLs every process in {@code tree} (listed first, as orphans leave the tree) and waits for them. */
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
