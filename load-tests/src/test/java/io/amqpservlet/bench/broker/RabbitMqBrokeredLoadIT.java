package io.amqpservlet.bench.broker;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadResult;
import io.amqpservlet.bench.load.LoadRun;
import io.amqpservlet.testbrokers.RabbitMqNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RabbitMQ rows' path works end to end on a private RabbitMQ 3.10 node: the generator logs in as guest, replies
 * to a named queue per connection (RabbitMQ has no dynamic ones), and the responder answers each request on a sender
 * per reply address (RabbitMQ has no anonymous relay); every answer is matched, nothing is lost, and the node's
 * Erlang VM, whose CPU the benchmark samples, spent CPU time on the run. Fails, never skips, when RabbitMQ is not
 * installed ({@code .ci/install-peers} installs it).
 */
@Timeout(180)
class RabbitMqBrokeredLoadIT {
    private static long cpuTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    @Test
    void generatorGetsEveryAnswerThroughRabbitMqOnNamedReplyQueues() throws Exception {
        try (RabbitMqNode node = RabbitMqNode.start(null)) {
            assertTrue(node.running());
            String queue = RabbitMqNode.queueAddress("requests");
            EngineResponder responder = new EngineResponder("127.0.0.1", node.amqpPort(), queue, 64,
                    RabbitMqNode.USER, RabbitMqNode.PASSWORD);
            Thread t = new Thread(responder, "responder");
            t.setDaemon(true);
            t.start();
            try {
                responder.awaitReady(30_000);
                long before = cpuTicks(node.vmPid());
                // 3 connections: 3 reply queues, so 3 reply senders at the responder.
                LoadOptions o = new LoadOptions().endpoint("amqp://127.0.0.1:" + node.amqpPort() + "/" + queue,
                                "/echo").user(RabbitMqNode.USER, RabbitMqNode.PASSWORD)
                        .replyNodePrefix(RabbitMqNode.queueAddress("it-replies-")).connections(3).window(4)
                        .warmupMillis(500).durationMillis(2_000).progress(false);
                LoadResult r = new LoadRun(o, null).run();
                assertTrue(r.responses() > 100, r.describe());
                assertEquals(0, r.errorCount(), () -> "errors: " + r.errors());
                assertTrue(cpuTicks(node.vmPid()) > before, "the node's beam.smp (pid " + node.vmPid()
                        + ") spent no CPU time on the run");
            } finally {
                responder.stop();
            }
        }
    }
}
