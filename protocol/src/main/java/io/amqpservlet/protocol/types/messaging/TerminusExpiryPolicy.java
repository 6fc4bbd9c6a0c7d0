package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
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
     * {@return the policy constant for the symbol under the reader's cursor}
     *
     * @param reader the reader to decode from
     * @throws InvalidEncodingException for a symbol the spec does not define
     */
    public static int read(AmqpReader reader) {
        for (int i = 0; i < SYMBOLS.length; i++) {
            if (reader.contentEquals(SYMBOLS[i])) {
                return i;
            }
        }
        reader.validateText(); // a wrong type becomes the reader's UnexpectedTypeException
        throw new InvalidEncodingException("terminus-expiry-policy " + reader.getString() + " is not defined",
                reader.valueStart());
    }
}
