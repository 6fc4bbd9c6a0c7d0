package io.amqpservlet.protocol.types.transport;

/** A link endpoint's role (AMQP 1.0 §2.8.1), encoded as a boolean: false for sender, true for receiver. */
public enum Role {
    /** Sends messages: encoded as false. */
    SENDER,
    /** Receives messages: encoded as true. */
    RECEIVER;

    /**
     * {@return the role a boolean on the wire stands for}
     *
     * @param receiver the role field as encoded
     */
    public static Role of(boolean receiver) {
        return receiver ? RECEIVER : SENDER;
    }

    /** {@return the boolean this role is encoded as} */
    public boolean encoded() {
        return this == RECEIVER;
    }
}
