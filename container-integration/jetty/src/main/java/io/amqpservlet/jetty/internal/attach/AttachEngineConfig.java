package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.connector.engine.EngineConfig;

import java.util.UUID;

/**
 * The engine settings of a connection a broker attachment makes: the initiator role, the limits of the attachment's
 * connection factory, credit as the capacity, and the SASL mechanism the attachment was given. One place, so that
 * the attachment and the tests that stand in for a broker build the same engine.
 *
 * <p>A broker is a peer like any client, so the factory's limits on what a peer may send or ask for apply to it:
 * frame and message size, the shortest idle-time-out it may announce, the links it may attach of its own. Three
 * limits are not taken from the factory, as they are sized for the listener's clients and would here bound what
 * the attachment itself does: {@code channelMax} and {@code handleMax} bound the channel and the handles the broker
 * answers our begin and our attaches with (one session, a link per address and per reply address, however many
 * sessions and links the factory lets a client have), and {@code maxUnsettledSentDeliveries} would refuse a
 * response, and so have the broker deliver an answered request again, while the capacity already bounds them: a
 * request stays unsettled until the broker settles its response. Those keep the engine's defaults.
 */
public final class AttachEngineConfig {
    private AttachEngineConfig() {
    }

    /**
     * @param base the attachment's factory's engine configuration, whose limits apply
     * @param idleTimeoutMillis how long the broker may send nothing before the connection is closed (0: never)
     * @param capacity the most requests in flight on the connection: credit per address × addresses
     * @param saslExternal SASL EXTERNAL (a TLS client certificate); else PLAIN when {@code username} is set, else
     *                     ANONYMOUS
     * @param username the SASL PLAIN user, or null
     * @param password the SASL PLAIN password (null for none)
     */
    public static EngineConfig of(EngineConfig base, long idleTimeoutMillis, int capacity, boolean saslExternal,
                                  String username, String password) {
        EngineConfig config = new EngineConfig().role(EngineConfig.Role.INITIATOR)
                .containerId("amqp-servlet-" + UUID.randomUUID())
                .maxFrameSizeBytes(base.maxFrameSizeBytes())
                .maxMessageSizeBytes(base.maxMessageSizeBytes())
                .maxPendingOutputBytes(base.maxPendingOutputBytes())
                .maxBufferedBytesPerConnection(base.maxBufferedBytesPerConnection())
                .maxBufferedMessagesPerLink(base.maxBufferedMessagesPerLink())
                .maxLinksPerConnection(base.maxLinksPerConnection())
                .maxLinkBytesPerConnection(base.maxLinkBytesPerConnection())
                // A broker announcing an idle-time-out of 1 ms would have us write 2,000 frames a second (§2.4.5).
                .minPeerIdleTimeoutMillis(base.minPeerIdleTimeoutMillis())
                .partialFrameTimeoutMillis(base.partialFrameTimeoutMillis())
                // Room for a frame per request the credit lets the broker send, so the session window, not reopened
                // until half is used, never holds back what the credit allows.
                .sessionIncomingWindowFrames((int) Math.min(1 << 20,
                        Math.max((long) base.sessionIncomingWindowFrames(), 2L * capacity)))
                .idleTimeoutMillis(idleTimeoutMillis)
                .decoderLimits(base.decoderLimits())
                // Credit is the capacity: credit plus unsettled requests never pass it (AMQP 1.0 §2.6.7).
                .maxDeliveriesInFlight(capacity)
                // A broker that overruns credit (RabbitMQ 3) gets the extra message back, released, rather than the
                // link detached, which would return every unsettled request, answered ones too.
                .releaseBeyondCredit(true);
        if (saslExternal) {
            config.saslExternal();
        } else if (username != null) {
            config.saslPlain(username, password == null ? "" : password);
        } else {
            config.saslAnonymous();
        }
        return config;
    }
}
