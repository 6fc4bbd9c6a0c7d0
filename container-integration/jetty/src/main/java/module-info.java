/**
 * The AMQP 1.0 listener for Eclipse Jetty (docs/jetty.md): {@code AmqpConnectionFactory} and what its users need.
 * jetty-security is optional: only {@code AmqpAuthenticator} and {@code LoginServicePlainAuthenticator} need it, and
 * an application that uses them has it (docs/design.md §8).
 */
module io.amqpservlet.jetty {
    requires transitive io.amqpservlet.connector;
    requires transitive org.eclipse.jetty.server;
    requires static transitive org.eclipse.jetty.security;
    requires org.slf4j;

    exports io.amqpservlet.jetty;
}
