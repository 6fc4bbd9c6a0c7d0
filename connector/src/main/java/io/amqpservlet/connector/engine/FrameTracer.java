package io.amqpservlet.connector.engine;

import java.io.PrintStream;

/**
 * Prints frames as they pass, in the style Proton users know from {@code PN_TRACE_FRM=1}:
 * {@code [amqp-servlet:1]:0 <- @attach(18) [name="req", handle=0, role=true, ...]}. The engine calls it only when
 * tracing is on, so it costs one branch per frame when off.
 */
final class FrameTracer {
    private final String prefix;
    private final PrintStream out;

    FrameTracer(String prefix, PrintStream out) {
        this.prefix = prefix;
        this.out = out;
    }

    void received(int channel, Object frame, int payloadBytes) {
        print(channel, " <- ", frame, payloadBytes);
    }

    void sent(int channel, Object frame, int payloadBytes) {
        print(channel, " -> ", frame, payloadBytes);
    }

    void header(boolean inbound, String header) {
        out.println("[" + prefix + "]:" + (inbound ? "  <- " : "  -> ") + header);
    }

    void heartbeat(boolean inbound) {
        out.println("[" + prefix + "]:" + (inbound ? "  <- " : "  -> ") + "(EMPTY FRAME)");
    }

    private void print(int channel, String arrow, Object frame, int payloadBytes) {
        StringBuilder sb = new StringBuilder(128).append('[').append(prefix).append("]:").append(channel)
                .append(arrow).append(frame);
        if (payloadBytes > 0) {
            sb.append(" (").append(payloadBytes).append(" payload bytes)");
        }
        out.println(sb);
    }
}
