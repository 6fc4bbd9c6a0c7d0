package io.amqpservlet.gateway;

import io.amqpservlet.jetty.LogCapture;
import org.eclipse.jetty.logging.JettyLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator reads of a running gateway (docs/gateway.md, "Logs"): a failed login at INFO with the client's
 * address, connections opening and closing at DEBUG, and {@code --request-log FILE} with a line for every request,
 * AMQP and HTTP alike.
 */
@Timeout(60)
class GatewayLogTest {
    private static final String LISTENER = "io.amqpservlet.jetty.internal.exchange.ListenerHandler";

    @TempDir
    Path dir;

    @Test
    void aWrongPasswordIsOneInfoLineAndConnectionsOpenAndCloseAtDebug() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "-1",
            "--user", "alice:secret"}));
        try (LogCapture log = LogCapture.of(JettyLevel.DEBUG, LISTENER)) {
            g.start();
            Cli wrong = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo", "-u", "alice:wrong");
            assertEquals(67, wrong.exit, wrong.toString());
            String failed = log.await("AMQP login from 127.0.0.1:");
            assertTrue(failed.contains(":INFO :") && failed.endsWith("failed: invalid credentials for alice (PLAIN)"),
                    failed);

            Cli right = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo", "-u", "alice:secret", "-d", "x");
            assertEquals(0, right.exit, right.toString());
            String open = log.await(line -> line.contains(" open: container-id amqp-servlet-request"), "of the open");
            assertTrue(open.contains(":DEBUG:") && open.contains("user alice"), open);
            String closed = log.await(line -> line.contains(" closed: container-id amqp-servlet-request, requests: 1"),
                    "of the close");
            assertTrue(closed.contains(":DEBUG:"), closed);
        } finally {
            g.stop();
        }
    }

    private static String only(List<String> lines, String text) {
        List<String> matching = lines.stream().filter(line -> line.contains(text)).toList();
        assertEquals(1, matching.size(), "one line with " + text + " in " + lines);
        return matching.get(0);
    }

    @Test
    void theRequestLogHasALineForEveryRequestAmqpAndHttp() throws Exception {
        Path file = dir.resolve("requests.log");
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--request-log", file.toString()}));
        try {
            g.start();
            Cli amqp = Cli.request("amqp://127.0.0.1:" + g.amqpPort() + "/echo?via=amqp", "-d", "hello");
            assertEquals(0, amqp.exit, amqp.toString());
            HttpClient http11 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> http = http11.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + g.httpPort() + "/status/404")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, http.statusCode());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            List<String> lines = List.of();
            while (lines.size() < 2) {
                assertTrue(System.nanoTime() < deadline, "request log: " + lines);
                Thread.sleep(20);
                lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
            }
            // A line is written as its request ends, which for the AMQP one can be after its client has the answer.
            String amqpLine = only(lines, "\"POST /echo?via=amqp amqp\" 200 5 ");
            assertTrue(amqpLine.startsWith("127.0.0.1 - - ["), amqpLine);
            only(lines, "\"GET /status/404 HTTP/1.1\" 404 ");
        } finally {
            g.stop();
        }
    }
}
