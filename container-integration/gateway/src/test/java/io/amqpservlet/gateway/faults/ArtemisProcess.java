package io.amqpservlet.gateway.faults;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * An ActiveMQ Artemis broker in a JVM of its own, for the faults a broker inside the test's JVM cannot have: killed
 * with SIGKILL and started again on its journal, or run inside a network namespace. Persistent (an NIO journal in
 * the given folder, synced as Artemis syncs by default), no security, an AMQP acceptor on the given address, durable
 * anycast queues, and others created on demand.
 *
 * <p>The child is this class's {@link #main}. It prints {@code ready} once the broker runs, answers
 * {@code count QUEUE} on its standard input with {@code count QUEUE MESSAGES CONSUMERS}, and stops its broker and
 * exits when its standard input ends: when the test's JVM ends for any reason, so does the broker (unless it was
 * killed first, which is the point).
 */
public final class ArtemisProcess implements AutoCloseable {
    private static final long START_TIMEOUT_MILLIS = 90_000;

    /**
     * What the broker is.
     *
     * @param directory its journal, bindings, paging and large messages, and its log ({@code artemis-N.log})
     * @param host the address its acceptor binds ({@code 0.0.0.0} inside a namespace)
     * @param port the acceptor's port
     * @param idleTimeoutMillis the acceptor's {@code amqpIdleTimeout}: how long a silent client is kept (Artemis's
     *     connection TTL, 60 s by default); 0 for the default
     * @param launcher what runs the JVM, such as {@code ip netns exec NAME}; empty for nothing
     * @param queues the durable queues to create
     */
    public record Settings(Path directory, String host, int port, long idleTimeoutMillis, List<String> launcher,
                           List<String> queues) {
        public Settings {
            launcher = List.copyOf(launcher);
            queues = List.copyOf(queues);
        }
    }

    private final Settings settings;
    private Process process;
    private Writer commands;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private int starts;
    private Path log;

    private ArtemisProcess(Settings settings) {
        this.settings = settings;
    }

    /** Starts the broker and waits until it runs. */
    public static ArtemisProcess start(Settings settings) throws Exception {
        ArtemisProcess p = new ArtemisProcess(settings);
        p.launch();
        return p;
    }

    /** Starts the broker again after {@link #kill()}, on the same journal and port, and waits until it runs. */
    public void restart() throws Exception {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the broker runs: kill it first");
        }
        launch();
    }

    private void launch() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(settings.launcher());
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", classpath, ArtemisProcess.class.getName(), settings.directory().toString(), settings.host(),
                Integer.toString(settings.port()), Long.toString(settings.idleTimeoutMillis())));
        command.addAll(settings.queues());
        log = settings.directory().resolve("artemis-" + (++starts) + ".log");
        Files.createDirectories(settings.directory());
        lines.clear();
        process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Process reading = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(reading.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ended) {
                // the broker's process ended
            }
        }, "artemis-process-output");
        reader.setDaemon(true);
        reader.start();
        String ready = lines.poll(START_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        if (!"ready".equals(ready)) {
            process.destroyForcibly();
            fail("the Artemis process did not start within " + START_TIMEOUT_MILLIS + " ms (" + ready + "): "
                    + String.join(" ", command) + "\n" + logTail());
        }
    }

    /** The last lines the broker logged (this start's log), for a failure's message. */
    public String logTail() {
        try {
            String text = log == null || !Files.exists(log) ? "" : Files.readString(log);
            return text.length() > 4_000 ? text.substring(text.length() - 4_000) : text;
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** The process's id (the JVM's, as the launcher execs it). */
    public long pid() {
        return process.pid();
    }

    /** Kills the broker with SIGKILL, as a crash or the kernel's OOM killer would, and waits for it to be gone. */
    public void kill() throws Exception {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process.toHandle());
        process.toHandle().descendants().forEach(tree::add);
        for (ProcessHandle p : tree) {
            p.destroyForcibly();
        }
        for (ProcessHandle p : tree) {
            p.onExit().get(20, TimeUnit.SECONDS);
        }
    }

    /** Messages in {@code queue} (waiting and delivered not yet settled). */
    public long messageCount(String queue) throws Exception {
        return count(queue)[0];
    }

    /** Consumers attached to {@code queue} now: one per gateway the broker still counts as connected. */
    public long consumerCount(String queue) throws Exception {
        return count(queue)[1];
    }

    private synchronized long[] count(String queue) throws Exception {
        commands.write("count " + queue + "\n");
        commands.flush();
        String answer = lines.poll(20, TimeUnit.SECONDS);
        String[] words = answer == null ? new String[0] : answer.split(" ");
        if (words.length != 4 || !words[0].equals("count") || !words[1].equals(queue)) {
            fail("the Artemis process answered " + answer + " to count " + queue + "\n" + logTail());
        }
        return new long[] {Long.parseLong(words[2]), Long.parseLong(words[3])};
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            commands.close(); // the child's cue to stop its broker
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }

    /**
     * The child: {@code DIRECTORY HOST PORT IDLE_TIMEOUT_MS QUEUE...}.
     *
     * @param args as above
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String acceptor = "tcp://" + args[1] + ":" + args[2] + "?protocols=AMQP";
        long idleTimeoutMillis = Long.parseLong(args[3]);
        if (idleTimeoutMillis > 0) {
            acceptor += ";amqpIdleTimeout=" + idleTimeoutMillis;
        }
        Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(true)
                .setJournalType(JournalType.NIO)
                .setJournalFileSize(1024 * 1024)
                .setJournalDirectory(dir.resolve("journal").toString())
                .setBindingsDirectory(dir.resolve("bindings").toString())
                .setPagingDirectory(dir.resolve("paging").toString())
                .setLargeMessagesDirectory(dir.resolve("large").toString())
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                // A loaded test machine stalls the disk for seconds now and then: no broker halts itself for that.
                .setCriticalAnalyzer(false)
                .addAcceptorConfiguration("amqp", acceptor);
        for (int i = 4; i < args.length; i++) {
            config.addQueueConfiguration(QueueConfiguration.of(args[i]).setAddress(args[i])
                    .setRoutingType(RoutingType.ANYCAST).setDurable(true));
        }
        config.addAddressSetting("#", new AddressSettings().setDefaultAddressRoutingType(RoutingType.ANYCAST)
                .setDefaultQueueRoutingType(RoutingType.ANYCAST).setAutoCreateQueues(true)
                .setAutoCreateAddresses(true));
        EmbeddedActiveMQ broker = new EmbeddedActiveMQ();
        broker.setConfiguration(config);
        broker.start();
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("count ")) {
                String name = line.substring("count ".length());
                Queue q = broker.getActiveMQServer().locateQueue(SimpleString.of(name));
                out.println("count " + name + " " + (q == null ? 0 : q.getMessageCount()) + " "
                        + (q == null ? 0 : q.getConsumerCount()));
            }
        }
        broker.stop();
        System.exit(0);
    }
}
