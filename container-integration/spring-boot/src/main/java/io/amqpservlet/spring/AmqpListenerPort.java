package io.amqpservlet.spring;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

import java.util.Map;

/**
 * Publishes the port the AMQP listener bound as the property {@value #PROPERTY} once the web server runs, as Boot
 * publishes {@code local.server.port}: with {@code amqp.servlet.port=0} it is the way to learn the port
 * ({@code @Value("${local.amqp.servlet.port}")} in a {@code @SpringBootTest}).
 */
public final class AmqpListenerPort implements ApplicationListener<WebServerInitializedEvent> {
    /** The property that holds the AMQP listener's local port. */
    public static final String PROPERTY = "local.amqp.servlet.port";

    private final AmqpServletConnectors connectors;

    /**
     * Publishes the port of {@code connectors}' listener.
     *
     * @param connectors the AMQP connectors of Boot's server
     */
    public AmqpListenerPort(AmqpServletConnectors connectors) {
        this.connectors = connectors;
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        int port = connectors.listenerPort();
        if (port > 0 && event.getApplicationContext().getEnvironment() instanceof ConfigurableEnvironment env) {
            MutablePropertySources sources = env.getPropertySources();
            sources.remove(PROPERTY);
            sources.addFirst(new MapPropertySource(PROPERTY, Map.of(PROPERTY, port)));
        }
    }
}
