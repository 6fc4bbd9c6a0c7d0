package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.internal.budget.ServerBudget;
import io.amqpservlet.jetty.internal.exchange.ServingSettings;
import org.eclipse.jetty.server.HttpConfiguration;

/**
 * Everything a connection needs from the factory (or broker attachment) that made it, built once from the factory's
 * settings and shared, never changed, by every connection made with them: a setter called on the factory makes the
 * next connection get new settings, and no connection is told anything after it is made.
 *
 * @param engineConfig the engine configuration (read once, when a connection makes its engine)
 * @param httpConfiguration what every request sees: the factory's, with the AMQP attributes customizer first
 * @param saslExternal offer SASL EXTERNAL to TLS clients with a certificate (the engine is made after the handshake)
 * @param closeTimeoutMillis how long the peer has to answer our close before the transport ends
 * @param writeCoalescingNanos how long output may be held back while other requests are being served (0: never)
 * @param budget the server-wide limits connections count into
 * @param serving how requests are served
 */
public record ConnectionSettings(EngineConfig engineConfig, HttpConfiguration httpConfiguration, boolean saslExternal,
                                 long closeTimeoutMillis, long writeCoalescingNanos, ServerBudget budget,
                                 ServingSettings serving) {
}
