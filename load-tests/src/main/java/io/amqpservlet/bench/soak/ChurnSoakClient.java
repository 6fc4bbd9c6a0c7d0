package io.amqpservlet.bench.soak;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.connector.engine.EngineConfig;

import java.util.Locale;
import java.util.Map;

/**
 * Connections that come and go: our client library connects (SASL ANONYMOUS, open, session, reply link, request
 * link), sends a few requests one after the other, and closes, at a fixed rate of connections. The latency recorded
 * is each request's own (connecting is not timed); a failed connect, request or close is an error.
 */
final class ChurnSoakClient implements SoakClient {
    private static final long TIMEOUT_MILLIS = 10_000;

    private final KindStats stats = new KindStats("churn");
    private final String host;
    private final int port;
    private final double connectionsPerSecond;
    private final int requestsPerConnection;
    private final byte[] body;
    private final Thread thread;
    private volatile boolean running;
    private volatile long connectionsOpened;

    ChurnSoakClient(String host, int port, double connectionsPerSecond, int requestsPerConnection, int bodyBytes) {
        this.host = host;
        this.port = port;
        this.connectionsPerSecond = connectionsPerSecond;
        this.requestsPerConnection = requestsPerConnection;
        this.body = SoakRun.body(bodyBytes);
        this.thread = new Thread(this::loop, "soak-churn");
        thread.setDaemon(true);
    }

    @Override
    public String name() {
        return stats.name;
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "our client library: %.0f connections/s, each opened, %d POSTs of %d B to "
                + "/echo one after the other, closed", connectionsPerSecond, requestsPerConnection, body.length);
    }

    @Override
    public KindStats stats() {
        return stats;
    }

    @Override
    public void start() {
        running = true;
        thread.start();
    }

    private void loop() {
        long interval = Math.round(1e9 / connectionsPerSecond);
        long due = System.nanoTime();
        EngineConfig config = new EngineConfig().saslAnonymous();
        while (running) {
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
            due = Math.max(due + interval, System.nanoTime() - interval);
            long deadline = AmqpRequestClient.now() + TIMEOUT_MILLIS;
            try (AmqpRequestClient client = AmqpRequestClient.connect(host, port, "/echo", config, deadline)) {
                connectionsOpened++;
                for (int i = 0; i < requestsPerConnection; i++) {
                    long t0 = System.nanoTime();
                    AmqpResponse r = client.exchange("POST", "/echo", Map.of(), "application/octet-stream", body,
                            AmqpRequestClient.now() + TIMEOUT_MILLIS);
                    if (r.status() != 200) {
                        stats.error("status " + r.status());
                    } else {
                        stats.response(System.nanoTime() - t0);
                    }
                }
            } catch (Exception e) {
                if (running) {
                    stats.error(e.getClass().getSimpleName() + ": " + e.getMessage());
                }
            }
        }
    }

    long connectionsOpened() {
        return connectionsOpened;
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        thread.join(3 * TIMEOUT_MILLIS);
    }
}
