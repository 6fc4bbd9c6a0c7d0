package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.budget.ServerBudget;
import org.eclipse.jetty.util.annotation.ManagedAttribute;
import org.eclipse.jetty.util.annotation.ManagedObject;

/**
 * The limits every connection of one {@link AmqpConnectionFactory} shares, so that many peers together cannot take
 * the server past its heap, and their counts now: open connections, connections still in their handshake (before
 * the peer's open), and bytes buffered across all connections (request bodies received and not yet read by their
 * servlets, response bytes encoded or queued and not yet written to the socket).
 *
 * <p>When a limit is reached the server degrades the AMQP way (docs/jetty.md, "Server-wide limits"): a connection
 * over the connection limit is opened and at once closed with {@code amqp:resource-limit-exceeded}; one over the
 * handshake limit is closed before any AMQP frame; while the byte budget is used up, no credit is granted, no
 * session window is reopened and new requests are released. Every connection gives back what it counted when it
 * closes, whichever way.
 *
 * <p>A bean of its factory, so Jetty's {@code MBeanContainer} shows it. Thread-safe; limits may be changed while the
 * server runs.
 */
@ManagedObject("The server-wide limits of the AMQP connections of one factory, and their counts")
public final class AmqpServerBudget {
    /** Default {@link #setMaxConnections max connections}: 4,096. */
    public static final int DEFAULT_MAX_CONNECTIONS = ServerBudget.DEFAULT_MAX_CONNECTIONS;
    /** Default {@link #setMaxHandshakingConnections max connections in handshake}: 256. */
    public static final int DEFAULT_MAX_HANDSHAKING_CONNECTIONS = ServerBudget.DEFAULT_MAX_HANDSHAKING_CONNECTIONS;
    /** Default {@link #setMaxBufferedBytes byte budget}: 64 MiB, a quarter of a 256 MiB heap. */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = ServerBudget.DEFAULT_MAX_BUFFERED_BYTES;

    private final ServerBudget budget;

    /** The view of {@code budget}: made by its factory. */
    AmqpServerBudget(ServerBudget budget) {
        this.budget = budget;
    }

    /** The ledger the factory's connections count into. */
    ServerBudget ledger() {
        return budget;
    }

    /**
     * Whether the byte budget is used up: no credit, no session window, new requests released.
     *
     * @return true while the bytes buffered reach {@link #getMaxBufferedBytes()}
     */
    @ManagedAttribute("Whether the byte budget is used up (new requests are released)")
    public boolean isExhausted() {
        return budget.isExhausted();
    }

    /**
     * Open AMQP connections counted against {@link #getMaxConnections()}.
     *
     * @return the number of open connections counted now
     */
    @ManagedAttribute("AMQP connections open now")
    public int getConnections() {
        return budget.getConnections();
    }

    /**
     * Connections between accept and the peer's open.
     *
     * @return the number of connections in the handshake now
     */
    @ManagedAttribute("Connections between accept and the client's open now")
    public int getHandshakingConnections() {
        return budget.getHandshakingConnections();
    }

    /**
     * Bytes buffered now across all connections (request bodies unread, responses unwritten).
     *
     * @return the bytes buffered now
     */
    @ManagedAttribute("Bytes buffered now across all connections (request bodies unread, responses unwritten)")
    public long getBufferedBytes() {
        return budget.getBufferedBytes();
    }

    /**
     * Bytes the byte budget has left before it is used up.
     *
     * @return {@link #getMaxBufferedBytes()} minus {@link #getBufferedBytes()}, 0 when used up
     */
    @ManagedAttribute("Bytes the byte budget has left")
    public long getFreeBytes() {
        return Math.max(0, budget.getMaxBufferedBytes() - budget.getBufferedBytes());
    }

    /**
     * The most bytes ever buffered at once across all connections (a statistic).
     *
     * @return the highest count of buffered bytes since this budget was made
     */
    @ManagedAttribute("The most bytes buffered at once since the start")
    public long getMaxBufferedBytesSeen() {
        return budget.getMaxBufferedBytesSeen();
    }

    /**
     * Connections refused by the connection or handshake limit since the start (a statistic).
     *
     * @return the number of connections refused since this budget was made
     */
    @ManagedAttribute("Connections refused by the connection or handshake limit since the start")
    public long getRefusedConnections() {
        return budget.getRefusedConnections();
    }

    /**
     * The most AMQP connections open at once; see {@link #setMaxConnections}.
     *
     * @return the connection limit, {@value #DEFAULT_MAX_CONNECTIONS} unless set
     */
    @ManagedAttribute("The most AMQP connections open at once")
    public int getMaxConnections() {
        return budget.getMaxConnections();
    }

    /**
     * The most AMQP connections open at once; one more is opened and closed with
     * {@code amqp:resource-limit-exceeded} (after SASL, as AMQP 1.0 §2.4.2 has a refused open answered).
     *
     * @param max the most open connections, at least 1; connections open beyond a lowered limit stay open
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxConnections(int max) {
        budget.setMaxConnections(max);
    }

    /**
     * The most connections between accept and the peer's open at once; see {@link #setMaxHandshakingConnections}.
     *
     * @return the handshake limit, {@value #DEFAULT_MAX_HANDSHAKING_CONNECTIONS} unless set
     */
    @ManagedAttribute("The most connections between accept and the client's open at once")
    public int getMaxHandshakingConnections() {
        return budget.getMaxHandshakingConnections();
    }

    /**
     * The most connections between accept and the peer's open (protocol header, SASL, open); one more is closed
     * at once, before any frame, as no AMQP connection exists yet to refuse.
     *
     * @param max the most connections in the handshake at once, at least 1
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxHandshakingConnections(int max) {
        budget.setMaxHandshakingConnections(max);
    }

    /**
     * The bytes all connections together may buffer; see {@link #setMaxBufferedBytes}.
     *
     * @return the byte limit, {@value #DEFAULT_MAX_BUFFERED_BYTES} unless set
     */
    @ManagedAttribute("The bytes all connections together may buffer")
    public long getMaxBufferedBytes() {
        return budget.getMaxBufferedBytes();
    }

    /**
     * The bytes all connections together may buffer: request bodies received and not read by their servlets, and
     * responses encoded or queued and not yet written to the socket.
     *
     * @param bytes the byte limit, at least 1
     * @throws IllegalArgumentException when {@code bytes} is less than 1
     */
    public void setMaxBufferedBytes(long bytes) {
        budget.setMaxBufferedBytes(bytes);
    }

    @Override
    public String toString() {
        return "AmqpServerBudget[connections " + getConnections() + "/" + getMaxConnections() + ", handshaking "
                + getHandshakingConnections() + "/" + getMaxHandshakingConnections() + ", bytes "
                + getBufferedBytes() + "/" + getMaxBufferedBytes() + "]";
    }
}
