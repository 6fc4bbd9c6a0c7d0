package io.amqpservlet.gateway;

import io.amqpservlet.jetty.EmbeddedArtemis;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * At-least-once across a gateway crash, with the shaded jar as users run it: two gateway processes attach to one
 * queue of a real ActiveMQ Artemis broker ({@code --attach}); one is killed with SIGKILL while it holds requests.
 * Every request still gets a response (the broker delivers what the dead gateway held to the other), and the
 * duplicates are bounded by what the dead one held: its credit.
 */
@Timeout(180)
class AttachKillIT {
    private static final Path JAR = Path.of("target", "amqp-servlet-gateway.jar");
    private static final int CREDIT = 4;
    private static final int REQUESTS = 60;

    @TempDir
    Path dir;

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private Process gateway(String name, int brokerPort) throws Exception {
        return new ProcessBuilder(java(), "-Xmx128m", "-jar", JAR.toString(), "--amqp-port", "-1", "--http-port", "-1",
                "--attach", "amqp://127.0.0.1:" + brokerPort + "/orders", "--attach-credit", String.valueOf(CREDIT))
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile()).start();
    }

    @Test
    void killingAGatewayLosesNoRequestAndDuplicatesAtMostWhatItHeld() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath() + " (run mvn package first)");
        try (EmbeddedArtemis broker = EmbeddedArtemis.start("orders"); Client client = Client.create()) {
            Process victim = gateway("victim", broker.port());
            Process survivor = gateway("survivor", broker.port());
            try {
                Connection connection = client.connect("127.0.0.1", broker.port(), new ConnectionOptions());
                Receiver replies = connection.openDynamicReceiver();
                String replyTo = replies.address();
                Sender sender = connection.openSender("orders");
                sender.openFuture().get(20, TimeUnit.SECONDS);
                // The demo's /slow answers after 300 ms: each gateway holds its whole credit most of the time.
                for (int i = 0; i < REQUESTS; i++) {
                    sender.send(Message.create("r" + i).to("/slow?ms=300").subject("GET").messageId("req-" + i)
                            .replyTo(replyTo));
                }
                Map<String, Integer> answers = new HashMap<>();
                int received = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                boolean killed = false;
                while (answers.size() < REQUESTS) {
                    assertTrue(System.nanoTime() < deadline, "only " + answers.size() + " of " + REQUESTS
                            + " requests answered; victim: " + Files.readString(dir.resolve("victim.err"))
                            + " survivor: " + Files.readString(dir.resolve("survivor.err")));
                    Delivery d = replies.receive(1, TimeUnit.SECONDS);
                    if (d == null) {
                        continue;
                    }
                    Message<Object> response = d.message();
                    d.accept();
                    assertEquals("200", response.subject());
                    answers.merge(String.valueOf(response.correlationId()), 1, Integer::sum);
                    received++;
                    if (!killed && received >= 10) {
                        victim.destroyForcibly(); // SIGKILL, with requests in flight
                        assertTrue(victim.waitFor(20, TimeUnit.SECONDS));
                        killed = true;
                    }
                }
                assertTrue(killed, "the victim was killed mid-run");
                int duplicates = received - answers.size();
                System.out.println("AttachKillIT: " + REQUESTS + " requests, " + received + " responses, " + duplicates
                        + " duplicates (bound " + CREDIT + ")");
                assertTrue(duplicates <= CREDIT, duplicates + " duplicates: more than the victim held (" + CREDIT + ")");
                long settleDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (broker.messageCount("orders") != 0) {
                    assertTrue(System.nanoTime() < settleDeadline, "requests left in the queue: "
                            + broker.messageCount("orders"));
                    Thread.sleep(20);
                }
            } finally {
                victim.destroyForcibly();
                survivor.destroyForcibly();
            }
        }
    }
}
