package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.budget.FailedLogins;
import io.amqpservlet.jetty.internal.budget.Limit;
import io.amqpservlet.jetty.internal.budget.ServerBudget;
import org.eclipse.jetty.util.annotation.ManagedAttribute;
import org.eclipse.jetty.util.annotation.ManagedObject;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The limits every connection of one {@link AmqpConnectionFactory} shares, so that many peers together cannot take
 * the server past its heap and one source address cannot take what everyone shares, and their counts now: open
 * connections and connections still in their handshake (before the peer's open), server-wide and per source address
 * (an IPv4 address, or an IPv6 /64), and bytes buffered across all connections (request bodies received and not yet
 * read by their servlets, response bytes encoded or queued and not yet written to the socket, frames that have not all
 * arrived, and a fixed cost per request being served and per delivery kept unsettled), half of them at most per
 * source address.
 *
 * <p>When a limit is reached the server degrades the AMQP way (docs/jetty.md, "Server-wide limits" and "Limits per
 * source address"): a connection over a connection limit is opened and at once closed with
 * {@code amqp:resource-limit-exceeded}, its description naming the limit; when a handshake limit is full, the oldest
 * handshake that has stalled ({@value #HANDSHAKE_STALLED_MILLIS} ms or more; of the address, else server-wide)
 * ends to make room, and only when none has is the new connection closed before any AMQP frame; while the byte
 * budget is used up, no credit is granted, no session window is reopened and new requests are released. Every
 * connection gives back what it counted when it closes, whichever way. Each refusal and each ended handshake is
 * counted by its limit, and logged at INFO with the peer's address (one line a second at most). A source address
 * also has an allowance of failed SASL logins ({@link #setMaxFailedLoginsPerAddress}); a login beyond it is refused
 * before its credentials are looked at.
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
    /**
     * Default {@link #setMaxConnectionsPerAddress max connections per source address}: 512, an eighth of the
     * server-wide default.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = ServerBudget.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    /**
     * Default {@link #setMaxHandshakesPerAddress max handshakes per source address}: 32, an eighth of the
     * server-wide default.
     */
    public static final int DEFAULT_MAX_HANDSHAKES_PER_ADDRESS = ServerBudget.DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;
    /** Default {@link #setMaxBufferedBytes byte budget}: 64 MiB, a quarter of a 256 MiB heap. */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = ServerBudget.DEFAULT_MAX_BUFFERED_BYTES;
    /** Default {@link #setMaxFailedLoginsPerAddress failed logins per source address}: 10 per window. */
    public static final int DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS = FailedLogins.DEFAULT_MAX_PER_ADDRESS;
    /** Default {@link #setFailedLoginsWindowMillis window of failed logins}: 60 seconds. */
    public static final long DEFAULT_FAILED_LOGINS_WINDOW_MILLIS = FailedLogins.DEFAULT_WINDOW_MILLIS;
    /** The longest {@link #setFailedLoginsWindowMillis window of failed logins}: a day. */
    public static final long MAX_FAILED_LOGINS_WINDOW_MILLIS = FailedLogins.MAX_WINDOW_MILLIS;
    /**
     * The most source addresses whose failed logins are remembered at once: 10,000, about 100 bytes each. When
     * that many are, the one whose last login is the oldest is forgotten to make room.
     */
    public static final int MAX_FAILED_LOGIN_ADDRESSES = FailedLogins.DEFAULT_MAX_ADDRESSES;
    /**
     * How long a handshake lasts before it counts as stalled: when a handshake limit is full, the oldest stalled
     * handshake ends to make room for a new connection. 2 seconds.
     */
    public static final long HANDSHAKE_STALLED_MILLIS = ServerBudget.HANDSHAKE_STALLED_MILLIS;

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
     * Connections between accept and the peer's open, and connections refused at their open that have not closed
     * yet.
     *
     * @return the number of connections in the handshake now
     */
    @ManagedAttribute("Connections between accept and the client's open now (refused ones until they close too)")
    public int getHandshakingConnections() {
        return budget.getHandshakingConnections();
    }

    /**
     * Source addresses with a connection counted now (IPv4 addresses, IPv6 /64s).
     *
     * @return the number of source addresses the per-address limits count now
     */
    @ManagedAttribute("Source addresses with a connection now (IPv4 addresses, IPv6 /64s)")
    public int getSourceAddresses() {
        return budget.getSourceAddresses();
    }

    /**
     * The source address with the most connections now (open ones, then handshakes).
     *
     * @return {@code address: N open, M in handshake}, or an empty string when no address is counted
     */
    @ManagedAttribute("The source address with the most connections now")
    public String getBusiestSourceAddress() {
        return budget.getBusiestSourceAddress();
    }

    /**
     * Bytes buffered now across all connections (request bodies unread, responses unwritten, frames that have not all
     * arrived, requests being served, deliveries kept unsettled).
     *
     * @return the bytes buffered now
     */
    @ManagedAttribute("Bytes buffered now across all connections (request bodies unread, responses unwritten, "
            + "partial frames, requests being served, unsettled deliveries)")
    public long getBufferedBytes() {
        return budget.getBufferedBytes();
    }

    /**
     * The part of {@link #getBufferedBytes()} that the connections' protocol state counts: their sessions, links and
     * the deliveries they keep unsettled, at a fixed cost each (docs/jetty.md, "Server-wide limits").
     *
     * @return the bytes counted for them now
     */
    @ManagedAttribute("Bytes the connections' sessions, links and unsettled deliveries count now")
    public long getProtocolStateBytes() {
        return budget.stateBytes();
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
     * What the frames admitted to grow reserve now: a whole frame and the engine's working buffers each, out of half
     * of {@link #getMaxBufferedBytes()}; a frame that has not all arrived and finds no room waits in its socket.
     *
     * @return the bytes reserved now, 0 when no connection is receiving a frame over several reads
     */
    @ManagedAttribute("Bytes partial frames admitted to grow reserve now (of half the byte budget)")
    public long getPartialFrameBytesReserved() {
        return budget.partialFrameReserved();
    }

    /**
     * Times a partial frame waited in its socket because its source address's frames held their share of the room
     * (half of what partial frames may reserve, while the per-address limits are on), though the server had room: one
     * machine's connections cannot take it all. A frame counts once each time it starts waiting.
     *
     * @return how many since the start
     */
    @ManagedAttribute("Times a partial frame waited because its source address held its share of the room")
    public long getPartialFramesHeldPerAddress() {
        return budget.framesHeldPerAddress();
    }

    /**
     * Requests released because the connections of their source address buffered half of
     * {@link #getMaxBufferedBytes()} or more (while the per-address limits are on): one machine's requests held by
     * servlets, or responses its clients do not take, cannot use the whole budget up for everyone.
     *
     * @return how many since the start
     */
    @ManagedAttribute("Requests released because their source address buffered half the byte budget")
    public long getRequestsReleasedPerAddress() {
        return budget.requestsReleasedPerAddress();
    }

    /**
     * What the requests whose bodies stream in (several transfer frames) reserve now while they arrive: what each
     * one's session window may still bring once the budget is used up, together at most
     * {@link #getMaxBufferedBytes()}; a streamed request that finds no room is released.
     *
     * @return the bytes reserved now, 0 when no streamed request is arriving
     */
    @ManagedAttribute("Bytes streamed requests being received reserve now for their session windows (at most the "
            + "byte budget)")
    public long getStreamWindowBytesReserved() {
        return budget.streamReserved();
    }

    /**
     * Streamed requests released because their source address's streams held half of what the byte budget lets them
     * reserve (while the per-address limits are on): one machine's uploads cannot take every reservation.
     *
     * @return how many since the start
     */
    @ManagedAttribute("Streamed requests released because their source address held half the stream reservations")
    public long getStreamsRefusedPerAddress() {
        return budget.streamsRefusedPerAddress();
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
     * Connections refused by a connection or handshake limit, or at their login by
     * {@link #getMaxFailedLoginsPerAddress()}, since the start (a statistic).
     *
     * @return the number of connections refused since this budget was made
     */
    @ManagedAttribute("Connections refused by any connection, handshake or failed-login limit since the start")
    public long getRefusedConnections() {
        return budget.getRefusedConnections();
    }

    /**
     * Connections refused at their open because {@link #getMaxConnections()} were open (a statistic).
     *
     * @return the number of such refusals since this budget was made
     */
    @ManagedAttribute("Connections refused at their open by maxConnections since the start")
    public long getRefusedByMaxConnections() {
        return budget.getRefusedConnections(Limit.CONNECTIONS);
    }

    /**
     * Connections closed before any frame because {@link #getMaxHandshakingConnections()} were in their handshake and
     * none had stalled (a statistic).
     *
     * @return the number of such refusals since this budget was made
     */
    @ManagedAttribute("Connections closed before any frame by maxHandshakingConnections since the start")
    public long getRefusedByMaxHandshakingConnections() {
        return budget.getRefusedConnections(Limit.HANDSHAKES);
    }

    /**
     * Connections refused at their open because their source address had {@link #getMaxConnectionsPerAddress()}
     * open (a statistic).
     *
     * @return the number of such refusals since this budget was made
     */
    @ManagedAttribute("Connections refused at their open by maxConnectionsPerAddress since the start")
    public long getRefusedByMaxConnectionsPerAddress() {
        return budget.getRefusedConnections(Limit.CONNECTIONS_PER_ADDRESS);
    }

    /**
     * Connections closed before any frame because their source address had {@link #getMaxHandshakesPerAddress()}
     * in their handshake and none had stalled (a statistic).
     *
     * @return the number of such refusals since this budget was made
     */
    @ManagedAttribute("Connections closed before any frame by maxHandshakesPerAddress since the start")
    public long getRefusedByMaxHandshakesPerAddress() {
        return budget.getRefusedConnections(Limit.HANDSHAKES_PER_ADDRESS);
    }

    /**
     * Logins refused before their credentials were looked at (outcome {@code sys-temp}, the connection then ends)
     * because their source address had no failed login left ({@link #getMaxFailedLoginsPerAddress()}); counted in
     * {@link #getRefusedConnections()} too (a statistic).
     *
     * @return the number of such refusals since this budget was made
     */
    @ManagedAttribute("Logins refused by maxFailedLoginsPerAddress since the start")
    public long getRefusedByMaxFailedLoginsPerAddress() {
        return budget.getRefusedConnections(Limit.FAILED_LOGINS_PER_ADDRESS);
    }

    /**
     * Connections (or logins) refused by each limit since the start, by the limit's setting name
     * ({@code maxConnections}, {@code maxHandshakingConnections}, {@code maxConnectionsPerAddress},
     * {@code maxHandshakesPerAddress}, {@code maxFailedLoginsPerAddress}): the getters above in one map, every limit
     * present, for what shows them all (the gateway's stats, meters).
     *
     * @return a new map, in that order
     */
    @ManagedAttribute("Connections and logins refused since the start, by the limit that refused them")
    public Map<String, Long> getRefusedByLimit() {
        Map<String, Long> all = new LinkedHashMap<>();
        for (Limit limit : Limit.values()) {
            all.put(limit.setting(), budget.getRefusedConnections(limit));
        }
        return all;
    }

    /**
     * Connections (or logins) refused by one limit since the start, as {@link #getRefusedByLimit()} counts them.
     *
     * @param limit the limit's setting name, such as {@code maxConnectionsPerAddress}
     * @return the number refused since this budget was made
     * @throws IllegalArgumentException for a name that is no limit's
     */
    public long getRefusedBy(String limit) {
        for (Limit l : Limit.values()) {
            if (l.setting().equals(limit)) {
                return budget.getRefusedConnections(l);
            }
        }
        throw new IllegalArgumentException("no limit " + limit + ": " + getRefusedByLimit().keySet());
    }

    /**
     * Source addresses whose failed logins are remembered now: those whose allowance is not whole, at most
     * {@value #MAX_FAILED_LOGIN_ADDRESSES}.
     *
     * @return the number of such addresses now
     */
    @ManagedAttribute("Source addresses with failed logins remembered now (allowance not whole)")
    public int getFailedLoginAddresses() {
        return budget.failedLogins().getAddresses();
    }

    /**
     * Source addresses forgotten before their allowance of failed logins was whole again, to make room when
     * {@value #MAX_FAILED_LOGIN_ADDRESSES} were remembered (a statistic): more than a few say logins are being guessed
     * from more addresses than the table holds, each of which then starts again from a whole allowance.
     *
     * @return the number of such addresses since this budget was made
     */
    @ManagedAttribute("Source addresses with failed logins forgotten early to make room in the full table")
    public long getFailedLoginAddressesEvicted() {
        return budget.failedLogins().getEvicted();
    }

    /**
     * Stalled handshakes ended to make room for a new connection when {@link #getMaxHandshakingConnections()} were
     * in their handshake (a statistic).
     *
     * @return the number of handshakes so ended since this budget was made
     */
    @ManagedAttribute("Stalled handshakes ended to make room by maxHandshakingConnections since the start")
    public long getEvictedByMaxHandshakingConnections() {
        return budget.getEvictedHandshakes(Limit.HANDSHAKES);
    }

    /**
     * Stalled handshakes ended to make room for a new connection of the same source address when it had
     * {@link #getMaxHandshakesPerAddress()} in their handshake (a statistic).
     *
     * @return the number of handshakes so ended since this budget was made
     */
    @ManagedAttribute("Stalled handshakes ended to make room by maxHandshakesPerAddress since the start")
    public long getEvictedByMaxHandshakesPerAddress() {
        return budget.getEvictedHandshakes(Limit.HANDSHAKES_PER_ADDRESS);
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
     * The most connections between accept and the peer's open (protocol header, SASL, open) at once. When there
     * are this many, the oldest handshake that has stalled ({@value #HANDSHAKE_STALLED_MILLIS} ms or more) ends to
     * make room for the new connection; when none has, the new one is closed at once, before any frame, as no AMQP
     * connection exists yet to refuse.
     *
     * @param max the most connections in the handshake at once, at least 1
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxHandshakingConnections(int max) {
        budget.setMaxHandshakingConnections(max);
    }

    /**
     * The most AMQP connections one source address keeps open at once; see {@link #setMaxConnectionsPerAddress}.
     *
     * @return the limit, {@value #DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} unless set; 0 for none
     */
    @ManagedAttribute("The most AMQP connections one source address keeps open at once (0: no limit)")
    public int getMaxConnectionsPerAddress() {
        return budget.getMaxConnectionsPerAddress();
    }

    /**
     * The most AMQP connections one source address (an IPv4 address, or an IPv6 /64) keeps open at once; one more
     * from it is opened and closed with {@code amqp:resource-limit-exceeded}, whatever room the server has. Behind
     * a load balancer every client has the balancer's address unless the PROXY protocol gives the real one
     * (docs/jetty.md, "Limits per source address").
     *
     * @param max the most open connections per address, or 0 for no limit per address
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxConnectionsPerAddress(int max) {
        budget.setMaxConnectionsPerAddress(max);
    }

    /**
     * The most connections of one source address between accept and the peer's open at once; see
     * {@link #setMaxHandshakesPerAddress}.
     *
     * @return the limit, {@value #DEFAULT_MAX_HANDSHAKES_PER_ADDRESS} unless set; 0 for none
     */
    @ManagedAttribute("The most connections of one source address between accept and open at once (0: no limit)")
    public int getMaxHandshakesPerAddress() {
        return budget.getMaxHandshakesPerAddress();
    }

    /**
     * The most connections of one source address between accept and the peer's open at once. When an address has
     * this many, its oldest handshake that has stalled ({@value #HANDSHAKE_STALLED_MILLIS} ms or more) ends to make
     * room for its new connection; when none has, the new connection is closed before any frame.
     *
     * @param max the most handshakes per address, or 0 for no limit per address
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxHandshakesPerAddress(int max) {
        budget.setMaxHandshakesPerAddress(max);
    }

    /**
     * The failed SASL logins one source address may have in a burst; see {@link #setMaxFailedLoginsPerAddress}.
     *
     * @return the limit, {@value #DEFAULT_MAX_FAILED_LOGINS_PER_ADDRESS} unless set; 0 for none
     */
    @ManagedAttribute("The failed SASL logins one source address may have per failedLoginsWindowMillis (0: no limit)")
    public int getMaxFailedLoginsPerAddress() {
        return budget.failedLogins().getMaxPerAddress();
    }

    /**
     * The failed SASL logins one source address (an IPv4 address, or an IPv6 /64) may have in a burst, and again
     * per {@link #getFailedLoginsWindowMillis() window} (one comes back every window / max): a token bucket, so
     * that an address cannot guess passwords as fast as it can open connections. Each login takes one when its
     * sasl-init arrives, whatever its mechanism, and gets it back when it succeeds; a login of an address with none
     * left is refused before its credentials are looked at, with outcome {@code sys-temp}, and its connection ends
     * as a failed login's does. Other addresses are not affected.
     *
     * @param max the failed logins per address and window, or 0 for no limit
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxFailedLoginsPerAddress(int max) {
        budget.failedLogins().setMaxPerAddress(max);
    }

    /**
     * The time in which a source address's allowance of failed logins refills whole; see
     * {@link #setFailedLoginsWindowMillis}.
     *
     * @return the window in milliseconds, {@value #DEFAULT_FAILED_LOGINS_WINDOW_MILLIS} unless set
     */
    @ManagedAttribute("The time in which an address's allowance of failed logins refills whole, in milliseconds")
    public long getFailedLoginsWindowMillis() {
        return budget.failedLogins().getWindowMillis();
    }

    /**
     * The time in which a source address's allowance of {@link #getMaxFailedLoginsPerAddress() failed logins}
     * refills whole.
     *
     * @param millis the window, 1 ms to {@value #MAX_FAILED_LOGINS_WINDOW_MILLIS} ms
     * @throws IllegalArgumentException when {@code millis} is out of that range
     */
    public void setFailedLoginsWindowMillis(long millis) {
        budget.failedLogins().setWindowMillis(millis);
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
     * The bytes all connections together may buffer: request bodies received and not read by their servlets,
     * responses encoded or queued and not yet written to the socket, frames that have not all arrived, and a fixed
     * cost per request being served and per delivery kept unsettled; one source address's connections half of it.
     *
     * @param bytes the byte limit, at least 1
     * @throws IllegalArgumentException when {@code bytes} is less than 1
     */
    public void setMaxBufferedBytes(long bytes) {
        budget.setMaxBufferedBytes(bytes);
    }

    @Override
    public String toString() {
        return "AmqpServerBudget[connections " + getConnections() + "/" + getMaxConnections() + " ("
                + getMaxConnectionsPerAddress() + " per address), handshaking " + getHandshakingConnections() + "/"
                + getMaxHandshakingConnections() + " (" + getMaxHandshakesPerAddress() + " per address), addresses "
                + getSourceAddresses() + ", failed logins " + getMaxFailedLoginsPerAddress() + " per "
                + getFailedLoginsWindowMillis() + " ms per address, bytes " + getBufferedBytes() + "/"
                + getMaxBufferedBytes() + "]";
    }
}
