package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.jetty.internal.budget.BudgetShare;
import io.amqpservlet.jetty.internal.exchange.EngineInbox;
import io.amqpservlet.jetty.internal.exchange.ServingHandler;
import org.eclipse.jetty.server.ConnectionMetaData;

/**
 * Makes the handler a new connection's engine reports to: a listener's for the clients that connect to a factory, an
 * attached one for a connection made to a broker. The connection's own parts (its metadata, inbox and share of the
 * server budget) exist only once it is being made, so its maker passes this rather than a handler.
 */
@FunctionalInterface
public interface ConnectionHandlers {
    /**
     * @param secure whether the connection is TLS (requests are {@code https})
     */
    ServingHandler newHandler(ConnectionMetaData connection, EngineInbox inbox, BudgetShare budget, boolean secure);
}
