package io.amqpservlet.bench.soak;

import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The protonj2 client (1.1.0), another AMQP implementation as a user would write it: per connection an anonymous
 * sender and a dynamic receiver as reply-to, one request at a time at a fixed rate, latency counted from the time
 * each request was due (a late send still counts its wait). A failed connection is an error and is opened anew.
 */
final class ProtonJ2SoakClient implements SoakClient {
    private static final int TIMEOUT_SECONDS = 10;

    private final KindStats stats = new KindStats("protonj2");
    private final String host;
    private final int port;
    private final int connections;
    private final double ratePerSecond;
    private final byte[] body;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    ProtonJ2SoakClient(String host, int port, int connections, double ratePerSecond, int bodyBytes) {
        this.host = host;
        this.port = port;
        this.connections = connections;
        this.ratePerSecond = ratePerSecond;
        this.body = SoakRun.body(bodyBytes);
    }

    @Override
    public String name() {
        return stats.name;
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "protonj2 1.1.0: %d connections x 1 in flight, POST %d B to /echo, %,.0f "
                + "req/s", connections, body.length, ratePerSecond);
    }

    @Override
    public KindStats stats() {
        return stats;
    }

    @Override
    public void start() {
        running = true;
        long intervalNanos = Math.round(1e9 * connections / ratePerSecond);
        for (int i = 0; i < connections; i++) {
            long offset = intervalNanos * i / connections;
            Thread t = new Thread(() -> loop(intervalNanos, offset), "soak-protonj2-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void loop(long intervalNanos, long offsetNanos) {
        long due = System.nanoTime() + offsetNanos;
        long id = 0;
        while (running) {
            try (Client client = Client.create();
                 Connection connection = client.connect(host, port)) {
                Receiver replies = connection.openDynamicReceiver();
                Sender sender = connection.openAnonymousSender();
                String replyTo = replies.address();
                due = Math.max(due, System.nanoTime());
                while (running) {
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    Message<byte[]> request = Message.create(body);
                    request.to("/echo").subject("POST").replyTo(replyTo).messageId("p-" + id++)
                            .contentType("application/octet-stream");
                    sender.send(request);
                    Delivery d = replies.receive(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    long latency = System.nanoTime() - due;
                    due += intervalNanos;
                    if (d == null) {
                        stats.error("timeout");
                        break; // the late response would answer the next request: start over
                    }
                    Message<Object> response = d.message();
                    if (!"200".equals(response.subject())) {
                        stats.error("status " + response.subject());
                    } else if (!(response.body() instanceof byte[] b) || b.length != body.length) {
                        stats.error("wrong body");
                    } else {
                        stats.response(latency);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (running) {
                    stats.error("connection: " + e.getClass().getSimpleName());
                    try {
                        Thread.sleep(1_000);
                    } catch (InterruptedException stop) {
                        return;
                    }
                    due = System.nanoTime();
                }
            }
        }
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS + 10));
        }
    }
}
