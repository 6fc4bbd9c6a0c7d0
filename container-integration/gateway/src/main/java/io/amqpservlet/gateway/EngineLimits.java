package io.amqpservlet.gateway;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import io.amqpservlet.protocol.codec.DecoderLimits;

import static io.amqpservlet.gateway.OptionValues.size;
import static io.amqpservlet.gateway.OptionValues.whole;

/**
 * The AMQP engine's limits per connection, from the gateway's options ({@link EngineLimitOptions}, or a
 * {@code --config} file's keys of the same names): what one client may send, ask for or leave waiting, and how long
 * it may take. The names are the jetty-home module's {@code amqp.*} properties in kebab case. Each value is checked
 * against what {@link EngineConfig} accepts, so a bad one is a usage error naming the option, not a failed start.
 * Every AMQP port's engine gets them, and so does every attachment's, which takes those that bound what a broker may
 * send (docs/attach.md).
 */
final class EngineLimits {
    /** The engine's own defaults, which the gateway keeps but for the session window. */
    static final EngineConfig DEFAULTS = new EngineConfig();
    /** The longest a timeout may be, the engine's: half the idle timeout goes in the open as a uint. */
    static final long MAX_MILLIS = EngineConfig.MAX_TIMEOUT_MILLIS;

    int maxFrameSize = DEFAULTS.maxFrameSizeBytes();
    long maxMessageSize = DEFAULTS.maxMessageSizeBytes();
    int channelMax = DEFAULTS.channelMax();
    int handleMax = DEFAULTS.handleMax();
    int maxLinksPerConnection = DEFAULTS.maxLinksPerConnection();
    int maxLinkBytesPerConnection = DEFAULTS.maxLinkBytesPerConnection();
    int maxDeliveriesInFlight = DEFAULTS.maxDeliveriesInFlight();
    /** The streaming window (16 frames), not the engine's 2,048: see AmqpConnectionFactory. */
    int sessionIncomingWindow = AmqpConnectionFactory.STREAMING_SESSION_WINDOW_FRAMES;
    int maxUnsettledSentDeliveries = DEFAULTS.maxUnsettledSentDeliveries();
    int maxBufferedMessagesPerLink = DEFAULTS.maxBufferedMessagesPerLink();
    long maxBufferedBytesPerConnection = DEFAULTS.maxBufferedBytesPerConnection();
    int maxPendingOutputBytes = DEFAULTS.maxPendingOutputBytes();
    long idleTimeoutMillis = DEFAULTS.idleTimeoutMillis();
    long minPeerIdleTimeoutMillis = DEFAULTS.minPeerIdleTimeoutMillis();
    long partialFrameTimeoutMillis = DEFAULTS.partialFrameTimeoutMillis();
    long saslTimeoutMillis = DEFAULTS.saslTimeoutMillis();
    int maxDecodeDepth = DEFAULTS.decoderLimits().maxDepth();
    int maxDecodeElements = DEFAULTS.decoderLimits().maxElements();

    /**
     * Sets one limit by its option name without dashes.
     *
     * @return false when {@code name} is not an engine limit
     * @throws GatewayOptions.UsageException for a value the engine does not accept
     */
    boolean set(String name, String value) throws GatewayOptions.UsageException {
        int max = Integer.MAX_VALUE;
        switch (name) {
            case "max-frame-size" -> maxFrameSize = (int) size(name, value, 512, max);
            case "max-message-size" -> maxMessageSize = size(name, value, 1, Long.MAX_VALUE);
            case "channel-max" -> channelMax = (int) whole(name, value, 0, 65_535, "a channel number");
            case "handle-max" -> handleMax = (int) whole(name, value, 0, max, "a link handle");
            case "max-links-per-connection" -> maxLinksPerConnection = (int) whole(name, value, 1, max,
                    "a number of links");
            case "max-link-bytes-per-connection" -> maxLinkBytesPerConnection = (int) size(name, value, 1, max);
            case "max-deliveries-in-flight" -> maxDeliveriesInFlight = (int) whole(name, value, 1, max,
                    "a number of requests");
            case "session-incoming-window" -> sessionIncomingWindow = (int) whole(name, value, 1, max,
                    "a number of frames");
            case "max-unsettled-sent-deliveries" -> maxUnsettledSentDeliveries = (int) whole(name, value, 1, max,
                    "a number of responses");
            case "max-buffered-messages-per-link" -> maxBufferedMessagesPerLink = (int) whole(name, value, 0, max,
                    "a number of responses");
            case "max-buffered-bytes-per-connection" -> maxBufferedBytesPerConnection = size(name, value, 0,
                    Long.MAX_VALUE);
            case "max-pending-output-bytes" -> maxPendingOutputBytes = (int) size(name, value, 1, max);
            case "idle-timeout" -> idleTimeoutMillis = whole(name, value, 0, MAX_MILLIS, "milliseconds (0: never)");
            case "min-peer-idle-timeout" -> minPeerIdleTimeoutMillis = whole(name, value, 1, MAX_MILLIS,
                    "milliseconds");
            case "partial-frame-timeout" -> partialFrameTimeoutMillis = whole(name, value, 0, MAX_MILLIS,
                    "milliseconds (0: no limit)");
            case "sasl-timeout" -> saslTimeoutMillis = whole(name, value, 1, MAX_MILLIS, "milliseconds");
            case "max-decode-depth" -> maxDecodeDepth = (int) whole(name, value, 1, EngineConfig.MAX_DECODE_DEPTH,
                    "a number of levels");
            case "max-decode-elements" -> maxDecodeElements = (int) whole(name, value, 0, max,
                    "a number of elements");
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Sets every limit of {@code config}; returns it. */
    EngineConfig applyTo(EngineConfig config) {
        return config.maxFrameSizeBytes(maxFrameSize)
                .maxMessageSizeBytes(maxMessageSize)
                .channelMax(channelMax)
                .handleMax(handleMax)
                .maxLinksPerConnection(maxLinksPerConnection)
                .maxLinkBytesPerConnection(maxLinkBytesPerConnection)
                .maxDeliveriesInFlight(maxDeliveriesInFlight)
                .sessionIncomingWindowFrames(sessionIncomingWindow)
                .maxUnsettledSentDeliveries(maxUnsettledSentDeliveries)
                .maxBufferedMessagesPerLink(maxBufferedMessagesPerLink)
                .maxBufferedBytesPerConnection(maxBufferedBytesPerConnection)
                .maxPendingOutputBytes(maxPendingOutputBytes)
                .idleTimeoutMillis(idleTimeoutMillis)
                .minPeerIdleTimeoutMillis(minPeerIdleTimeoutMillis)
                .partialFrameTimeoutMillis(partialFrameTimeoutMillis)
                .saslTimeoutMillis(saslTimeoutMillis)
                .decoderLimits(new DecoderLimits(maxDecodeDepth, maxDecodeElements));
    }
}
