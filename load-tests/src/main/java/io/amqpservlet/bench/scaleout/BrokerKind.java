package io.amqpservlet.bench.scaleout;

import io.amqpservlet.bench.broker.ArtemisBroker;
import io.amqpservlet.bench.gateway.BrokerProcess;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** The brokers the gateways attach to, each started in its own control group with a queue {@code echo}. */
enum BrokerKind {
    /** ActiveMQ Artemis embedded in its own JVM ({@link ArtemisBroker}, in memory, no responder). */
    ARTEMIS("artemis", "ActiveMQ Artemis " + BrokerProcess.VERSION) {
        @Override
        QueueBroker start(QuotaGroup group, Path workDir, ScaleOutSettings s) throws IOException,
                InterruptedException {
            List<String> cmd = new ArrayList<>(List.of(java(), "-Xms512m", "-Xmx512m",
                    "-XX:ActiveProcessorCount=" + s.jvmProcessors(), "-cp", System.getProperty("java.class.path"),
                    ArtemisBroker.class.getName(), "--queue", QUEUE, "--no-responder"));
            GroupedProcess p = GroupedProcess.start("broker", group, cmd, workDir, ARTEMIS_READY, 120);
            int port = Integer.parseInt(p.ready().group(1));
            return new QueueBroker(label, p, "amqp://127.0.0.1:" + port + "/" + QUEUE);
        }
    };

    /** The request queue the gateways consume and the generator sends to. */
    static final String QUEUE = "echo";
    private static final Pattern ARTEMIS_READY = Pattern.compile("artemis listening amqp=(\\d+)");

    /** The name on the command line ({@code --brokers artemis}). */
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
        throw new ScaleOutSettings.UsageException("unknown broker " + name + " (artemis)");
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A started broker: its process (in its group) and the URL of its request queue. */
    record QueueBroker(String label, GroupedProcess process, String queueUrl) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            process.close();
        }
    }
}
