package io.amqpservlet.protocol.types.messaging;

/** What state of a terminus is retained durably (AMQP 1.0 §3.5.5), a uint; the default is {@link #NONE}. */
public final class TerminusDurability {
    private TerminusDurability() {
    }

    /** 0: no state is retained durably. */
    public static final int NONE = 0;
    /** 1: only the existence and configuration of the terminus is retained. */
    public static final int CONFIGURATION = 1;
    /** 2: the terminus state and its unsettled deliveries are retained. */
    public static final int UNSETTLED_STATE = 2;
}
