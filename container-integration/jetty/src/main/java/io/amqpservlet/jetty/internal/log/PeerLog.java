package io.amqpservlet.jetty.internal.log;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The limit on log lines that peers cause (a failed login, a refused connection, a peer's protocol error, a response
 * the client cannot take): whatever a client does, it cannot fill the server's log. Each {@link Kind} has its own
 * allowance, so a flood of one kind does not hide the others: {@value #LINES_PER_WINDOW} lines per
 * {@value #WINDOW_MILLIS} ms; a line beyond that is left out and counted, and the next line of its kind that is
 * logged says how many were ({@link #leftOut}). One per factory (or attachment), shared by its connections.
 *
 * <pre>{@code
 * long leftOut = peerLog.permit(PeerLog.Kind.FAILED_LOGIN);
 * if (leftOut >= 0) {
 *     LOG.info("AMQP login from {} failed: {}{}", PeerLog.address(peer), reason, PeerLog.leftOut(leftOut));
 * }
 * }</pre>
 *
 * <p>Thread-safe; each kind's count is guarded by its own monitor, taken once per line a peer causes (never per
 * request served).
 */
public final class PeerLog {
    /** What a line is about; each kind has its own allowance. */
    public enum Kind {
        /** SASL logins that failed. */
        FAILED_LOGIN,
        /** Connections a limit refused, and logins the limit of failed logins per address refused. */
        REFUSAL,
        /** Errors a peer caused: protocol violations, responses larger than the client takes. */
        PEER_ERROR
    }

    /** Lines of one kind logged per window at most. */
    public static final int LINES_PER_WINDOW = 10;
    /** The window, in milliseconds. */
    public static final long WINDOW_MILLIS = 10_000;

    private final int linesPerWindow;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private final Allowance[] allowances = new Allowance[Kind.values().length];

    /** One kind's count in the current window, and what was left out since its last line. */
    private static final class Allowance {
        boolean started;
        long windowStartNanos;
        int lines;
        long leftOut;
    }

    /** {@value #LINES_PER_WINDOW} lines of each kind per {@value #WINDOW_MILLIS} ms. */
    public PeerLog() {
        this(LINES_PER_WINDOW, WINDOW_MILLIS, System::nanoTime);
    }

    /**
     * @param linesPerWindow lines of each kind logged per window at most
     * @param windowMillis   the window
     * @param nanoClock      the time in nanoseconds, as {@link System#nanoTime()}
     */
    PeerLog(int linesPerWindow, long windowMillis, LongSupplier nanoClock) {
        this.linesPerWindow = linesPerWindow;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
        this.nanoClock = nanoClock;
        for (int i = 0; i < allowances.length; i++) {
            allowances[i] = new Allowance();
        }
    }

    /**
     * Asks to log one line of {@code kind}. Ask only when the logger would write the line (its level is on), so a
     * line nobody reads uses no allowance.
     *
     * @return -1 to leave the line out; otherwise it is to be logged, and the value is how many lines of its kind
     *     were left out since the last one logged (for {@link #leftOut})
     */
    public long permit(Kind kind) {
        Allowance a = allowances[kind.ordinal()];
        synchronized (a) {
            long now = nanoClock.getAsLong();
            if (!a.started || now - a.windowStartNanos >= windowNanos) {
                a.started = true;
                a.windowStartNanos = now;
                a.lines = 0;
            }
            if (a.lines >= linesPerWindow) {
                a.leftOut++;
                return -1;
            }
            a.lines++;
            long leftOut = a.leftOut;
            a.leftOut = 0;
            return leftOut;
        }
    }

    /** {@return the end of a line after {@code count} of its kind were left out: empty for none} */
    public static String leftOut(long count) {
        return count <= 0 ? "" : " (" + count + " more like this not logged)";
    }

    /**
     * {@return text a peer chose (a link name, a container-id), fit for one log line: control characters become
     * {@code ?}, and past {@code max} characters it is cut, ending in {@code ...}}
     */
    public static String text(CharSequence peerText, int max) {
        int length = Math.min(peerText.length(), max);
        StringBuilder line = new StringBuilder(length + 3);
        for (int i = 0; i < length; i++) {
            char c = peerText.charAt(i);
            line.append(Character.isISOControl(c) ? '?' : c);
        }
        if (peerText.length() > max) {
            line.append("...");
        }
        return line.toString();
    }

    /** {@return a peer's address as {@code host:port}, or {@code unknown} when there is none} */
    public static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getHostString() + ":" + inet.getPort();
        }
        return address == null ? "unknown" : address.toString();
    }
}
