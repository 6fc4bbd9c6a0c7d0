package io.amqpservlet.connector.sasl;

/** The sasl-outcome codes of AMQP 1.0 §5.3.3.6. */
public enum SaslOutcomeCode {
    /** Authentication succeeded. */
    OK(0),
    /** Bad credentials, or a mechanism the server does not allow. */
    AUTH(1),
    /** A system error prevented authentication; not worth retrying. */
    SYS(2),
    /** A permanent system error; the client should not retry. */
    SYS_PERM(3),
    /** A transient system error; the client may retry. */
    SYS_TEMP(4);

    private final int code;

    SaslOutcomeCode(int code) {
        this.code = code;
    }

    /** {@return the ubyte sent in sasl-outcome} */
    public int code() {
        return code;
    }
}
