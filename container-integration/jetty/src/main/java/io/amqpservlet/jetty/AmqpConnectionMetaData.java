package io.amqpservlet.jetty;

import org.eclipse.jetty.server.ConnectionMetaData;

/**
 * The {@link ConnectionMetaData} of a request that arrived over AMQP: what the connection knows of its peer beyond
 * what Jetty's own metadata says. A handler or filter tells an AMQP request by it:
 *
 * <pre>{@code
 * if (request.getConnectionMetaData() instanceof AmqpConnectionMetaData amqp) {
 *     String user = amqp.getSaslIdentity();
 * }
 * }</pre>
 */
public interface AmqpConnectionMetaData extends ConnectionMetaData {
    /**
     * The identity the client established with SASL: the PLAIN authentication identity, the subject DN of its
     * certificate for EXTERNAL, {@code anonymous} for ANONYMOUS or a client that skipped SASL. Set once, before the
     * connection's first request, so any request thread may read it.
     *
     * @return the client's SASL identity, or null while the SASL handshake has not ended (never for a request)
     */
    String getSaslIdentity();
}
