package io.amqpservlet.gateway;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The command-line options of the AMQP engine's limits per connection ({@link EngineLimits}), mixed into
 * {@link GatewayCommand}'s: like its own, each setter hands its value to {@link GatewayOptions#set}, in the order
 * given. The defaults in the descriptions are the engine's ({@code GatewayEngineLimitsTest} checks them).
 */
final class EngineLimitOptions {
    private final GatewayOptions o;
    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    EngineLimitOptions(GatewayOptions options) {
        this.o = options;
    }

    private void set(String name, String value) {
        try {
            o.set(name, value);
        } catch (GatewayOptions.UsageException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    @Option(order = 30, names = "--max-frame-size", paramLabel = "SIZE", description = "the largest frame a client may "
            + "send, announced in the open (default 64k; at least 512)")
    void maxFrameSize(String size) {
        set("max-frame-size", size);
    }

    @Option(order = 31, names = "--max-message-size", paramLabel = "SIZE", description = "the largest request "
            + "message, across its frames; a larger one detaches its link with amqp:link:message-size-exceeded "
            + "(default 16m)")
    void maxMessageSize(String size) {
        set("max-message-size", size);
    }

    @Option(order = 32, names = "--channel-max", paramLabel = "N", description = "the highest channel a client may "
            + "use: sessions per connection, less one (default 255; at most 65535)")
    void channelMax(String n) {
        set("channel-max", n);
    }

    @Option(order = 33, names = "--handle-max", paramLabel = "N", description = "the highest link handle a client "
            + "may use in a session: links per session, less one (default 1023)")
    void handleMax(String n) {
        set("handle-max", n);
    }

    @Option(order = 34, names = "--max-links-per-connection", paramLabel = "N", description = "links one "
            + "connection may have, all its sessions together; an attach past it ends its session with "
            + "amqp:resource-limit-exceeded (default 1024)")
    void maxLinksPerConnection(String n) {
        set("max-links-per-connection", n);
    }

    @Option(order = 35, names = "--max-link-bytes-per-connection", paramLabel = "SIZE", description = "names and "
            + "termini a client's attaches may leave on one connection's links; an attach past it ends its "
            + "session with amqp:resource-limit-exceeded (default 32k)")
    void maxLinkBytesPerConnection(String size) {
        set("max-link-bytes-per-connection", size);
    }

    @Option(order = 36, names = "--max-deliveries-in-flight", paramLabel = "N", description = "requests one "
            + "connection may have unsettled at once; more are released (default 1024)")
    void maxDeliveriesInFlight(String n) {
        set("max-deliveries-in-flight", n);
    }

    @Option(order = 37, names = "--session-incoming-window", paramLabel = "N", description = "a session's incoming "
            + "window in frames: with the frame size, what a request body its servlet does not read may buffer "
            + "per session (default 16)")
    void sessionIncomingWindow(String n) {
        set("session-incoming-window", n);
    }

    @Option(order = 38, names = "--max-unsettled-sent-deliveries", paramLabel = "N", description = "responses one "
            + "connection may have sent and its client not yet settled; a request past it is released unserved "
            + "(default 16384)")
    void maxUnsettledSentDeliveries(String n) {
        set("max-unsettled-sent-deliveries", n);
    }

    @Option(order = 39, names = "--max-buffered-messages-per-link", paramLabel = "N", description = "responses held "
            + "for one reply link whose client grants no credit; a request past it is released unserved "
            + "(default 1024)")
    void maxBufferedMessagesPerLink(String n) {
        set("max-buffered-messages-per-link", n);
    }

    @Option(order = 40, names = "--max-buffered-bytes-per-connection", paramLabel = "SIZE", description = "response "
            + "bytes held across one connection's reply links while their client grants no credit; a request past "
            + "it is released unserved (default 8m)")
    void maxBufferedBytesPerConnection(String size) {
        set("max-buffered-bytes-per-connection", size);
    }

    @Option(order = 41, names = "--max-pending-output-bytes", paramLabel = "SIZE", description = "encoded bytes "
            + "one connection keeps ahead of its socket; past it responses wait and the connection stops reading "
            + "(default 256k)")
    void maxPendingOutputBytes(String size) {
        set("max-pending-output-bytes", size);
    }

    @Option(order = 42, names = "--idle-timeout", paramLabel = "MS", description = "how long an AMQP client may "
            + "send nothing before its connection is closed; half is announced in the open (default 60000; "
            + "0: never)")
    void idleTimeout(String millis) {
        set("idle-timeout", millis);
    }

    @Option(order = 43, names = "--min-peer-idle-timeout", paramLabel = "MS", description = "the shortest "
            + "idle-time-out a client may announce; one that announces less gets our open, then a close with "
            + "amqp:resource-limit-exceeded (default 100)")
    void minPeerIdleTimeout(String millis) {
        set("min-peer-idle-timeout", millis);
    }

    @Option(order = 44, names = "--partial-frame-timeout", paramLabel = "MS", description = "how long a frame may "
            + "stay incomplete after its first byte; past it the connection is closed with "
            + "amqp:resource-limit-exceeded (default 30000; 0: no limit)")
    void partialFrameTimeout(String millis) {
        set("partial-frame-timeout", millis);
    }

    @Option(order = 45, names = "--sasl-timeout", paramLabel = "MS", description = "how long a client has from "
            + "connect until its open, SASL included, before the connection is dropped (default 10000)")
    void saslTimeout(String millis) {
        set("sasl-timeout", millis);
    }

    @Option(order = 48, names = "--max-decode-depth", paramLabel = "N", description = "the most lists, maps, "
            + "arrays and described values a client's frames and typed bodies may nest at once; a frame deeper "
            + "closes the connection, a request body deeper is rejected, with amqp:decode-error (default 64)")
    void maxDecodeDepth(String n) {
        set("max-decode-depth", n);
    }

    @Option(order = 49, names = "--max-decode-elements", paramLabel = "N", description = "the most elements one "
            + "list, map or array a client sends may declare; past it, as past --max-decode-depth "
            + "(default 1048576)")
    void maxDecodeElements(String n) {
        set("max-decode-elements", n);
    }
}
