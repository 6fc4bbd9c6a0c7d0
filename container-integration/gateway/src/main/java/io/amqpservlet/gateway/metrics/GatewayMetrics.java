package io.amqpservlet.gateway.metrics;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.micrometer.AmqpBrokerAttachmentMetrics;
import io.amqpservlet.micrometer.AmqpConnectionFactoryMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jetty.JettyConnectionMetrics;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.jetty12.server.DefaultJettyCoreRequestTagsProvider;
import io.micrometer.jetty12.server.JettyCoreRequestTagsProvider;
import io.micrometer.jetty12.server.TimedHandler;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.ThreadPool;

import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * With {@code --metrics}: one Prometheus registry (Micrometer) with
 * <ul>
 *   <li>Micrometer's own Jetty binders: {@code jetty.server.requests}, a timer with a histogram of every request's
 *       duration by {@code method}, {@code status}, {@code outcome} (the status class: {@code SUCCESS},
 *       {@code CLIENT_ERROR}, ...) and {@code protocol} ({@code amqp} or {@code http}), from its Jetty 12
 *       {@link TimedHandler}, which sees AMQP requests too since they pass Jetty's handler tree;
 *       {@code jetty.server.requests.open} (in flight); the connections of every connector, AMQP ones included
 *       ({@code jetty.connections.*}); the thread pool ({@code jetty.threads.*});</li>
 *   <li>the AMQP meters of amqp-servlet-micrometer ({@code amqp.servlet.*}, docs/jetty.md "Micrometer meters"):
 *       each AMQP port's ({@link AmqpConnectionFactoryMetrics}) and each broker attachment's
 *       ({@link AmqpBrokerAttachmentMetrics}), tagged {@code connector.name} as the Jetty binders tag the same
 *       connector;</li>
 *   <li>the JVM's: memory, GC, threads, classes, CPU, uptime, file descriptors.</li>
 * </ul>
 * {@link #endpoint()} serves it as Prometheus text at {@value #PATH}. This package is loaded only with the option.
 */
public final class GatewayMetrics implements AutoCloseable {
    /** The path the metrics are served at. */
    public static final String PATH = "/metrics";
    /** Prometheus' text exposition format, version 0.0.4, which {@link PrometheusMeterRegistry#scrape()} writes. */
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String REQUESTS = "jetty.server.requests";
    private static final String CERTIFICATE_EXPIRY = "amqp.servlet.tls.certificate.expiry";
    private static final Tag AMQP = Tag.of("protocol", "amqp");
    private static final Tag HTTP = Tag.of("protocol", "http");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final JettyServerThreadPoolMetrics threadPool;

    /**
     * Binds every meter; call once the server's connectors are added (each gets Micrometer's connection binder).
     *
     * @param server      the gateway's server
     * @param threads     its thread pool
     * @param listeners   the AMQP ports' factories by port name (the name of the port's connector)
     * @param attachments the broker attachments
     * @param certificates the certificate each TLS configuration with a key serves now (null while none), by what it
     *                     serves ({@code --amqps-port}, {@code --https-port}, {@code --attach})
     */
    public GatewayMetrics(Server server, ThreadPool threads, Map<String, AmqpConnectionFactory> listeners,
                          List<AmqpBrokerAttachment> attachments,
                          Map<String, Supplier<X509Certificate>> certificates) {
        // Before any meter: the request timer is made with the first request, and gets its histogram from here.
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return REQUESTS.equals(id.getName())
                        ? DistributionStatisticConfig.builder().percentilesHistogram(true).build().merge(config)
                        : config;
            }
        });
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        threadPool = new JettyServerThreadPoolMetrics(threads, Tags.empty());
        threadPool.bindTo(registry);
        for (Connector connector : server.getConnectors()) {
            // As JettyConnectionMetrics.addToAllConnectors, counting each client connection once.
            connector.addBean(new ServedConnections(new JettyConnectionMetrics(registry, connector)));
        }
        for (Map.Entry<String, AmqpConnectionFactory> port : listeners.entrySet()) {
            new AmqpConnectionFactoryMetrics(port.getValue(), port.getKey()).bindTo(registry);
        }
        for (AmqpBrokerAttachment attachment : attachments) {
            new AmqpBrokerAttachmentMetrics(attachment).bindTo(registry);
        }
        for (Map.Entry<String, Supplier<X509Certificate>> tls : certificates.entrySet()) {
            Supplier<X509Certificate> served = tls.getValue();
            // A supplier the gauge holds (a gauge of an object holds it weakly, and nothing else holds this one).
            Gauge.builder(CERTIFICATE_EXPIRY, () -> secondsLeft(served.get()))
                    .description("Seconds until the certificate this TLS configuration serves expires (negative once "
                            + "it has)")
                    .baseUnit("seconds").tag("tls", tls.getKey()).register(registry);
        }
    }

    private static double secondsLeft(X509Certificate certificate) {
        return certificate == null ? Double.NaN
                : (certificate.getNotAfter().getTime() - System.currentTimeMillis()) / 1000.0;
    }

    /**
     * {@return {@code app} under Micrometer's request timer} Each request is tagged {@code protocol} {@code amqp} or
     * {@code http} besides Micrometer's own tags.
     */
    public Handler timed(Handler app) {
        DefaultJettyCoreRequestTagsProvider defaults = new DefaultJettyCoreRequestTagsProvider();
        JettyCoreRequestTagsProvider tags = request -> Tags.of(defaults.getTags(request))
                .and("amqp".equals(request.getConnectionMetaData().getProtocol()) ? AMQP : HTTP);
        TimedHandler timed = new TimedHandler(registry, Tags.empty(), tags);
        timed.setHandler(app);
        return timed;
    }

    /** {@return the handler that answers {@code GET /metrics} with the registry as Prometheus text} */
    public Handler endpoint() {
        return new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                if (!PATH.equals(Request.getPathInContext(request))) {
                    return false;
                }
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, CONTENT_TYPE);
                response.write(true, StandardCharsets.UTF_8.encode(registry.scrape()), callback);
                return true;
            }
        };
    }

    @Override
    public void close() throws Exception {
        gc.close();
        threadPool.close();
        registry.close();
    }
}
