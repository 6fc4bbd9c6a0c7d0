/**
 * The AMQP 1.0 engine for any transport (docs/connector.md): {@code Engine}, its configuration and handler, and
 * the sessions, links and deliveries an application drives through it; SASL authenticator interfaces. Credit and
 * session windows change only through the engine (docs/design.md §8).
 */
module io.amqpservlet.connector {
    requires transitive io.amqpservlet.protocol;

    exports io.amqpservlet.connector.engine;
    exports io.amqpservlet.connector.sasl;
}
