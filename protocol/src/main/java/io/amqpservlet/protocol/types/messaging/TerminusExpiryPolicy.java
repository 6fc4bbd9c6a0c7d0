package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.types.Symbol;

/**
 * When a terminus's expiry timer starts (AMQP 1.0 §3.5.6). Encoded as a symbol, held as one of the int constants
 * here so that reading it allocates nothing; the default is {@link #SESSION_END}.
 */
public final class TerminusExpiryPolicy {
    private TerminusExpiryPolicy() {
    }

    /** The timer starts when the link is detached. */
    public static final int LINK_DETACH = 0;
    /** The timer starts when the session ends (the default). */
    public static final int SESSION_END = 1;
    /** The timer starts when the connection closes. */
    public static final int CONNECTION_CLOSE = 2;
    /** The terminus never expires. */
    public static final int NEVER = 3;

    private static final Symbol[] SYMBOLS = {
        Symbol.of("link-detach"), Symbol.of("session-end"), Symbol.of("connection-close"), Symbol.of("never"),
    };

    /**
     * {@return the symbol for a policy constant}
     *
     * @param policy one of the policy constants
     */
    public static Symbol symbol(int policy) {
        return SYMBOLS[policy];
    }

    /**
     * {@return the policy constant for the symbol under the reader's cursor; {@link #SESSION_END} (the default) for
     * a symbol the spec does not define}
     *
     * <p>AMQP 1.0 §3.5.6 defines four symbols, but clients in use send others (RabbitMQ's .NET client sends
     * {@code LINK_DETACH} and {@code SESSION_END}); refusing their attach would refuse the client. A node that
     * attaches no meaning to expiry loses nothing by reading them as the default.
     *
     * @param reader the reader to decode from
     * @throws io.amqpservlet.protocol.codec.DecodeException when the value is not a symbol (or string), or not valid text
     */
    public static int read(AmqpReader reader) {
        for (int i = 0; i < SYMBOLS.length; i++) {
            if (reader.contentEquals(SYMBOLS[i])) {
                return i;
            }
        }
        reader.validateText(); // a wrong type becomes the reader's UnexpectedTypeException
        return SESSION_END;
    }
}
