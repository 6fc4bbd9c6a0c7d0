package io.amqpservlet.jetty;

import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.ActiveMQSecurityException;
import org.apache.activemq.artemis.api.core.Message;
import org.apache.activemq.artemis.core.server.ServerSession;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerMessagePlugin;
import org.apache.activemq.artemis.core.transaction.Transaction;

import java.util.Objects;

/**
 * The Artemis broker plugin of docs/attach.md ("Who sent it"): refuses every message whose user-id (AMQP 1.0
 * §3.2.4; Artemis reads an AMQP message's user-id as {@code JMSXUserID}) is not the user its sender logged in as.
 * Artemis 2.55 itself does not look at an AMQP message's user-id. Tests run it as the docs tell operators to.
 */
public final class UserIdCheckPlugin implements ActiveMQServerMessagePlugin {
    @Override
    public void beforeSend(ServerSession session, Transaction tx, Message message, boolean direct,
                           boolean noAutoCreateQueue) throws ActiveMQException {
        Object claimed = message.getObjectProperty("JMSXUserID");
        if (claimed != null && !Objects.equals(claimed.toString(), session == null ? null : session.getValidatedUser())) {
            throw new ActiveMQSecurityException("user-id " + claimed + " is not the sender's user");
        }
    }
}
