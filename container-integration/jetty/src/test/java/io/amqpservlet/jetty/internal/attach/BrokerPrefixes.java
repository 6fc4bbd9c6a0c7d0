package io.amqpservlet.jetty.internal.attach;

/**
 * Valid beginnings of a broker's byte stream to an attachment, for fuzz inputs that start after them: what a
 * {@link BrokerConversation} broker sends up to a given point. The fuzzer then spends its bytes on transfers, flows
 * and dispositions instead of rediscovering the handshake. Recorded once per JVM, so they always match what the
 * attachment expects.
 */
final class BrokerPrefixes {
    /** SASL PLAIN, open with the anonymous relay, begin, both request links and the relay attached, credit granted. */
    static final int ATTACHED = 0;
    /** As {@link #ATTACHED} with SASL ANONYMOUS and no relay: responses go on a sender per reply address. */
    static final int ATTACHED_WITHOUT_RELAY = 1;
    /** As {@link #ATTACHED}, then a request with a reply-to delivered and answered: its response awaits an outcome. */
    static final int RESPONSE_AWAITS_OUTCOME = 2;
    /** As {@link #ATTACHED_WITHOUT_RELAY}, then two requests to two reply addresses: both reply senders attached. */
    static final int REPLY_SENDERS_ATTACHED = 3;
    static final int COUNT = 4;

    private static final byte[][] PREFIXES = new byte[COUNT][];

    static {
        for (int i = 0; i < COUNT; i++) {
            PREFIXES[i] = conversation(i).recorded();
        }
    }

    private BrokerPrefixes() {
    }

    /** The bytes of prefix {@code which} (one of the constants); a shared array, not to be modified. */
    static byte[] get(int which) {
        return PREFIXES[which];
    }

    /** Whether the attachment of prefix {@code which} logs in with SASL PLAIN (else ANONYMOUS). */
    static boolean plain(int which) {
        return which == ATTACHED || which == RESPONSE_AWAITS_OUTCOME;
    }

    /** The conversation that leads to prefix {@code which}, left where the prefix ends. */
    static BrokerConversation conversation(int which) {
        BrokerConversation c = new BrokerConversation(plain(which),
                which == ATTACHED || which == RESPONSE_AWAITS_OUTCOME);
        c.acceptResponses = false;
        if (which == RESPONSE_AWAITS_OUTCOME) {
            c.request(0, "POST", "/echo", "/replies/a", "hello");
        } else if (which == REPLY_SENDERS_ATTACHED) {
            c.request(0, "POST", "/echo", "/replies/a", "hello");
            c.request(1, "GET", null, "/replies/b", "");
        }
        return c;
    }
}
