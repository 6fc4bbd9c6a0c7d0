package io.amqpservlet.bench.gateway;

import io.amqpservlet.testbrokers.RabbitMqNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A broker the brokered rows go through, started for them and stopped after: where it listens, how its queues are
 * addressed, who may log in, whether clients need named reply queues, and which process spends its CPU time.
 * Artemis (an embedded 2.55.0 in its own JVM, in memory) offers dynamic reply queues and the anonymous relay and
 * takes ANONYMOUS; RabbitMQ 3.10 (a private node) has neither: clients log in as guest and reply to named queues.
 */
final class BrokerUnderTest implements AutoCloseable {
    /** The brokers {@code --broker} names, in the order {@code both} runs them. */
    static final List<String> NAMES = List.of("artemis", "rabbitmq");

    private final String name;
    private final String title;
    private final int port;
    private final long pid;
    private final String queuePrefix;
    private final String user;
    private final String password;
    private final String replyNodePrefix;
    private final AutoCloseable process;

    private BrokerUnderTest(String name, String title, int port, long pid, String queuePrefix, String user,
                            String password, String replyNodePrefix, AutoCloseable process) {
        this.name = name;
        this.title = title;
        this.port = port;
        this.pid = pid;
        this.queuePrefix = queuePrefix;
        this.user = user;
        this.password = password;
        this.replyNodePrefix = replyNodePrefix;
        this.process = process;
    }

    /** Starts the broker {@code name} ({@link #NAMES}); fails with what is missing when it cannot. */
    static BrokerUnderTest start(String name, Path workDir) throws IOException, InterruptedException {
        switch (name) {
            case "artemis" -> {
                BrokerProcess b = new BrokerProcess(workDir, List.of("--no-responder"));
                return new BrokerUnderTest(name, "Artemis " + BrokerProcess.VERSION + " (own JVM, in memory)", b.port,
                        b.pid(), "", null, null, null, b);
            }
            case "rabbitmq" -> {
                RabbitMqNode n = RabbitMqNode.start(workDir);
                return new BrokerUnderTest(name, "RabbitMQ " + RabbitMqNode.version() + " (AMQP 1.0 plugin)",
                        n.amqpPort(), n.vmPid(), "/queue/", RabbitMqNode.USER, RabbitMqNode.PASSWORD,
                        "/queue/bench-replies-", n);
            }
            default -> throw new IllegalArgumentException("unknown broker " + name + ": want one of " + NAMES);
        }
    }

    /** Parses {@code --broker}: {@code artemis}, {@code rabbitmq} or {@code both}. */
    static List<String> parse(String option) {
        String o = option.toLowerCase(Locale.ROOT);
        if (o.equals("both")) {
            return NAMES;
        }
        if (!NAMES.contains(o)) {
            throw new IllegalArgumentException("--broker wants artemis, rabbitmq or both, got " + option);
        }
        return List.of(o);
    }

    /** The row prefix: {@code artemis}, {@code rabbitmq}. */
    String name() {
        return name;
    }

    /** Product and version, for the report. */
    String title() {
        return title;
    }

    /** The process whose CPU time is the broker's (Artemis's JVM; RabbitMQ's Erlang VM, beam.smp). */
    long pid() {
        return pid;
    }

    int port() {
        return port;
    }

    /** The broker's address of the queue {@code queue}: the name itself (Artemis), {@code /queue/NAME} (RabbitMQ). */
    String node(String queue) {
        return queuePrefix + queue;
    }

    /** The generator's URL for {@code queue}: {@code amqp://127.0.0.1:PORT/NODE}. */
    String generatorUrl(String queue) {
        return "amqp://127.0.0.1:" + port + "/" + node(queue);
    }

    /** The gateway's {@code --attach} URI for {@code queue}, with the credentials when the broker wants them. */
    String attachUri(String queue) {
        return "amqp://" + (user == null ? "" : user + ":" + password + "@") + "127.0.0.1:" + port + "/" + node(queue);
    }

    /** {@code name:password} for SASL PLAIN, or null for ANONYMOUS. */
    String login() {
        return user == null ? null : user + ":" + password;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    /** Null when the broker makes dynamic reply queues; else the prefix of the generator's named ones. */
    String replyNodePrefix() {
        return replyNodePrefix;
    }

    @Override
    public void close() throws Exception {
        process.close();
    }
}
