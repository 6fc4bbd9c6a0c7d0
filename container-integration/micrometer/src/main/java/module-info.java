/**
 * Micrometer meters for the AMQP connector's counters (docs/jetty.md, "Micrometer meters"):
 * {@code AmqpConnectionFactoryMetrics} and {@code AmqpBrokerAttachmentMetrics}. Both modules it reads are transitive:
 * its constructors take the connector's types and its binders are Micrometer's {@code MeterBinder}s.
 */
module io.amqpservlet.micrometer {
    requires transitive io.amqpservlet.jetty;
    requires transitive micrometer.core;

    exports io.amqpservlet.micrometer;
}
