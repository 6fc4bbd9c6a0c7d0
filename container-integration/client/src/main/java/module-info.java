/**
 * A request/response AMQP 1.0 client on the engine (docs/gateway.md, the {@code request} command):
 * {@code AmqpRequestClient} and its response and error types (docs/design.md §8).
 */
module io.amqpservlet.client {
    requires transitive io.amqpservlet.connector;
    // ClientTls: Jetty's SslContextFactory.Client (TLS defaults, host name check, PEM keys).
    requires org.eclipse.jetty.util;

    exports io.amqpservlet.client;
}
