package io.amqpservlet.gateway;

import io.amqpservlet.jetty.EmbeddedArtemis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code request} command and attach mode read an {@code amqp://} URL alike (the path names the node, without
 * its first slash), so a client and a gateway given the same URL meet at one queue of a real Artemis broker;
 * {@code --to} reaches any path under the queue's servlets; and a request whose client gave up ({@code -m})
 * expires, so a gateway attached later does not run it.
 */
@Timeout(120)
class RequestThroughBrokerTest {
    /** A gateway serving the demo app from {@code uri}'s queue, once it is attached there. */
    private static Gateway attached(String uri) throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "0",
                "--attach", uri}));
        g.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!g.attachments().get(0).isAttached()) {
            assertTrue(System.nanoTime() < deadline, "not attached to " + uri + ": " + g.attachments().get(0).getState());
            Thread.sleep(10);
        }
        return g;
    }

    @Test
    void theClientAndAnAttachedGatewayMeetAtTheNodeTheUrlNames() throws Exception {
        try (EmbeddedArtemis broker = EmbeddedArtemis.start("orders")) {
            String url = "amqp://127.0.0.1:" + broker.port() + "/orders";
            Gateway gateway = attached(url);
            try {
                Cli created = Cli.request("-m", "5", "-d", "one book", "-i", url);
                assertEquals(0, created.exit, created.toString());
                assertTrue(created.text().startsWith("HTTP/1.1 201\r\n"), created.toString());
                assertTrue(created.text().contains("\r\nlocation: /orders/1\r\n"), created.toString());

                // The URL names the queue; --to names a resource under the servlets that consume it.
                Cli one = Cli.request("-m", "5", "--to", "/orders/1", url);
                assertEquals(0, one.exit, one.toString());
                assertTrue(one.text().contains("one book"), one.toString());
                // The gateway accepts a request once the broker accepted its response, so this may trail the answer.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (broker.messageCount("orders") != 0) {
                    assertTrue(System.nanoTime() < deadline, "requests left in the queue: "
                            + broker.messageCount("orders"));
                    Thread.sleep(20);
                }
            } finally {
                gateway.stop();
            }
        }
    }

    @Test
    void aNodeWhoseNameStartsWithASlashIsWrittenWithTwo() throws Exception {
        try (EmbeddedArtemis broker = EmbeddedArtemis.start("/echo")) {
            String base = "amqp://127.0.0.1:" + broker.port();
            Gateway gateway = attached(base + "//echo");
            try {
                Cli r = Cli.request("-m", "5", "-i", base + "/%2Fecho?from=escaped");
                assertEquals(0, r.exit, r.toString());
                assertTrue(r.text().contains("\r\nx-echo-path: /echo?from=escaped\r\n"), r.toString());
                r = Cli.request("-m", "5", "-i", base + "//echo");
                assertEquals(0, r.exit, r.toString());
                assertTrue(r.text().contains("\r\nx-echo-path: /echo\r\n"), r.toString());
            } finally {
                gateway.stop();
            }
        }
    }

    @Test
    void aRequestWhoseClientGaveUpIsNotRunByAGatewayAttachedLater() throws Exception {
        try (EmbeddedArtemis broker = EmbeddedArtemis.start("late-orders")) {
            String url = "amqp://127.0.0.1:" + broker.port() + "/late-orders";
            // The request is seen in the queue while its client still waits: once it has expired, whether the
            // broker still counts it depends on when its expiry scan runs.
            CompletableFuture<Cli> client = CompletableFuture.supplyAsync(
                    () -> Cli.request("-m", "5", "-d", "nobody waits for this", "--to", "/orders", url));
            long queued = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean seen;
            while (!(seen = broker.messageCount("late-orders") == 1) && !client.isDone()
                    && System.nanoTime() < queued) {
                Thread.sleep(10);
            }
            assertTrue(seen, "the request never reached the queue while its client waited: "
                    + (client.isDone() ? client.join() : "still waiting"));
            Cli gaveUp = client.get(30, TimeUnit.SECONDS);
            assertEquals(28, gaveUp.exit, gaveUp.toString());
            assertTrue(broker.messageCount("late-orders") <= 1, "the request was sent once: " + gaveUp);

            Gateway gateway = attached(url);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (broker.messageCount("late-orders") != 0) {
                    assertTrue(System.nanoTime() < deadline, "the expired request stays in the queue");
                    Thread.sleep(20);
                }
                // Whether the broker dropped it or the gateway answered 504 without a servlet, no order was made.
                HttpResponse<String> orders = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + gateway.httpPort() + "/orders")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, orders.statusCode());
                assertEquals("[]", orders.body().trim());
            } finally {
                gateway.stop();
            }
        }
    }
}
