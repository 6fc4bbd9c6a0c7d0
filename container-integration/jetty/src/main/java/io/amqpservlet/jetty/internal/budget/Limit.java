package io.amqpservlet.jetty.internal.budget;

/**
 * The connection limits of a {@link ServerBudget}: which one refused a connection (or its login) or ended a stalled
 * handshake, so the refusal can say so (the AMQP close's description, the log) and be counted per limit.
 */
public enum Limit {
    /** Open AMQP connections, server-wide. */
    CONNECTIONS("maxConnections"),
    /** Connections between accept and the peer's open, server-wide. */
    HANDSHAKES("maxHandshakingConnections"),
    /** Open AMQP connections of one source address. */
    CONNECTIONS_PER_ADDRESS("maxConnectionsPerAddress"),
    /** Connections of one source address between accept and the peer's open. */
    HANDSHAKES_PER_ADDRESS("maxHandshakesPerAddress"),
    /** Failed SASL logins of one source address in a window ({@link FailedLogins}): refuses a login, not a connection. */
    FAILED_LOGINS_PER_ADDRESS("maxFailedLoginsPerAddress");

    private final String setting;

    Limit(String setting) {
        this.setting = setting;
    }

    /** {@return the name of the setting, as the factory's JMX attribute and the docs call it} */
    public String setting() {
        return setting;
    }
}
