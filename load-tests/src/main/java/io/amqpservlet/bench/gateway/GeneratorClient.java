package io.amqpservlet.bench.gateway;

import io.amqpservlet.bench.load.LoadOptions;
import io.amqpservlet.bench.load.LoadRun;
import io.amqpservlet.bench.load.MeasuredPhase;

/**
 * Our generator ({@code bench load}), in the suite's JVM, against an AMQP endpoint (the gateway, or the broker's
 * request queue), an HTTP/1.1 one ({@code http://}) or an h2c one ({@code h2c://}): the same event loops, the same open-loop schedule and the
 * same latency count (from the time each request was due) whatever the protocol.
 */
final class GeneratorClient implements LoadClient {
    /** An observed run first settles for this long on its new connections, outside the measured phase. */
    private static final long SETTLE_MILLIS = 500;

    private final String url;
    private final int clients;
    private final int connections;
    private final int window;
    private final int bodyBytes;
    /** The request-target when it is not the URL's node (a queue of a broker), else null. */
    private String target;
    private String user;
    private String password;
    private String replyNodePrefix;

    GeneratorClient(String url, int clients, int connections, int window, int bodyBytes) {
        this.url = url;
        this.clients = clients;
        this.connections = connections;
        this.window = window;
        this.bodyBytes = bodyBytes;
    }

    /**
     * The same generator into the queue {@code queue} of {@code broker}: its login, and named reply queues when the
     * broker makes no dynamic ones; {@code target} (null: the queue's address) in each request's {@code to}.
     */
    static GeneratorClient through(BrokerUnderTest broker, String queue, String target, int clients, int connections,
                                   int window, int bodyBytes) {
        GeneratorClient c = new GeneratorClient(broker.generatorUrl(queue), clients, connections, window, bodyBytes);
        c.target = target;
        c.user = broker.user();
        c.password = broker.password();
        c.replyNodePrefix = broker.replyNodePrefix();
        return c;
    }

    @Override
    public ClientFigures run(double ratePerSecond, double seconds, MeasuredPhase phase) throws Exception {
        LoadOptions o;
        try {
            o = new LoadOptions().endpoint(url, target);
        } catch (LoadOptions.UsageException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        // Connections are split over the client threads; the total stays as asked.
        int threads = Math.min(clients, connections);
        o.clients(threads).connections(Math.max(1, connections / threads)).window(window).body(bodyBytes)
                .warmupMillis(phase == MeasuredPhase.NONE ? 0 : SETTLE_MILLIS).durationMillis(Math.round(seconds * 1000))
                .rate(ratePerSecond).progress(false).replyNodePrefix(replyNodePrefix);
        if (user != null) {
            o.user(user, password);
        }
        return ClientFigures.of(new LoadRun(o, null).run(phase));
    }

    @Override
    public String describe() {
        String protocol = url.startsWith("http:") ? "HTTP/1.1" : url.startsWith("h2c:") ? "h2c" : "AMQP, our engine";
        return "bench load (" + protocol + "): " + connections
                + " connections x " + window + " in flight, POST " + bodyBytes + " B, latency from the due time"
                + (replyNodePrefix == null ? "" : ", a named reply queue per connection (" + replyNodePrefix + "...)");
    }
}
