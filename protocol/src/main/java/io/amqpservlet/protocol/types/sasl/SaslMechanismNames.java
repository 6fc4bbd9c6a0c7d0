package io.amqpservlet.protocol.types.sasl;

import io.amqpservlet.protocol.types.Symbol;

/** SASL mechanism names (IANA SASL registry) that AMQP peers of this project use. */
public final class SaslMechanismNames {
    private SaslMechanismNames() {
    }

    /** RFC 4505. */
    public static final Symbol ANONYMOUS = Symbol.of("ANONYMOUS");
    /** RFC 4616. */
    public static final Symbol PLAIN = Symbol.of("PLAIN");
    /** RFC 4422 appendix A: the identity comes from the TLS client certificate. */
    public static final Symbol EXTERNAL = Symbol.of("EXTERNAL");
}
