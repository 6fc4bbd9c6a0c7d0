package io.amqpservlet.bench.scaleout;

import io.amqpservlet.bench.broker.ArtemisBroker;
import io.amqpservlet.bench.gateway.BrokerProcess;
import io.amqpservlet.testbrokers.RabbitMqNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** The brokers the gateways attach to, each started in its own control group with a request queue {@code echo}. */
enum BrokerKind {
    /**
     * ActiveMQ Artemis embedded in its own JVM ({@link ArtemisBroker}, in memory, no responder), started inside its
     * group; the generator replies to dynamic queues and logs in anonymously.
     */
    ARTEMIS("artemis", "ActiveMQ Artemis " + BrokerProcess.VERSION) {
        @Override
        QueueBroker start(QuotaGroup group, Path workDir, ScaleOutSettings s) throws IOException,
                InterruptedException {
            List<String> cmd = new ArrayList<>(List.of(java(), "-Xms512m", "-Xmx512m",
                    "-XX:ActiveProcessorCount=" + s.jvmProcessors(), "-cp", System.getProperty("java.class.path"),
                    ArtemisBroker.class.getName(), "--queue", QUEUE, "--no-responder"));
            GroupedProcess p = GroupedProcess.start("broker", group, cmd, workDir, ARTEMIS_READY, 120);
            String url = "amqp://127.0.0.1:" + p.ready().group(1) + "/" + QUEUE;
            return new QueueBroker(url, url, null, null, null, p::checkAlive, p::close);
        }
    },
    /**
     * A private RabbitMQ node ({@link RabbitMqNode}: Debian's rabbitmq-server with its AMQP 1.0 plugin). Its Erlang
     * VM is moved into the group once it serves (the launcher starts it through scripts and an {@code erl} process);
     * the quota and the accounting hold from then on, which covers every measured phase. RabbitMQ 3.10 has neither
     * dynamic nodes nor an anonymous relay: the generator logs in as guest and replies to a named queue per
     * connection, and each gateway keeps a sender per reply queue.
     */
    RABBITMQ("rabbitmq", "RabbitMQ " + RabbitMqNode.version()) {
        @Override
        QueueBroker start(QuotaGroup group, Path workDir, ScaleOutSettings s) throws IOException,
                InterruptedException {
            RabbitMqNode node = RabbitMqNode.start(workDir);
            try {
                group.join(node.vmPid());
            } catch (IOException e) {
                node.close();
                throw e;
            }
            String generatorUrl = "amqp://127.0.0.1:" + node.amqpPort() + "/" + RabbitMqNode.queueAddress(QUEUE);
            return new QueueBroker(node.queueUri(QUEUE), generatorUrl, RabbitMqNode.USER, RabbitMqNode.PASSWORD,
                    "/queue/scaleout-replies-", () -> {
                        if (!node.running()) {
                            throw new IOException("the RabbitMQ node " + node.nodeName() + " ended");
                        }
                    }, node::close);
        }
    };

    /** The request queue the gateways consume and the generator sends to. */
    static final String QUEUE = "echo";
    /** The request-target of every request: the gateway's echo servlet. */
    static final String TARGET = "/echo";
    private static final Pattern ARTEMIS_READY = Pattern.compile("artemis listening amqp=(\\d+)");

    /** The name on the command line ({@code --brokers artemis,rabbitmq}). */
    final String id;
    /** The broker and its version, for the report. */
    final String label;

    BrokerKind(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /** Starts the broker in {@code group}; returns once its queue takes connections. */
    abstract QueueBroker start(QuotaGroup group, Path workDir, ScaleOutSettings s) throws IOException,
            InterruptedException;

    static BrokerKind byName(String name) throws ScaleOutSettings.UsageException {
        for (BrokerKind k : values()) {
            if (k.id.equals(name)) {
                return k;
            }
        }
        throw new ScaleOutSettings.UsageException("unknown broker " + name + " (artemis, rabbitmq)");
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Fails when the broker's process has ended. */
    interface AliveCheck {
        void check() throws IOException;
    }

    /** Stops the broker. */
    interface Stopper {
        void stop() throws IOException, InterruptedException;
    }

    /**
     * A started broker.
     *
     * @param attachUri        the gateways' {@code --attach} URI of the queue (with the login, when one is needed)
     * @param generatorUrl     the generator's URL of the queue
     * @param user             the generator's SASL PLAIN user, or null for ANONYMOUS
     * @param password         its password
     * @param replyNodePrefix  the prefix of the generator's named reply queues, or null for dynamic ones
     */
    record QueueBroker(String attachUri, String generatorUrl, String user, String password, String replyNodePrefix,
                       AliveCheck alive, Stopper stopper) implements AutoCloseable {
        void checkAlive() throws IOException {
            alive.check();
        }

        @Override
        public void close() throws IOException, InterruptedException {
            stopper.stop();
        }
    }
}
