package io.amqpservlet.jetty.internal.budget;

import java.net.InetAddress;

/**
 * One connection's part of its factory's {@link ServerBudget}: whether it counts as a handshake or as an open
 * connection, server-wide and for its source address, and the bytes it buffers (request bodies unread, output
 * unwritten, a frame that has not all arrived, requests being served, sessions, links, deliveries kept unsettled).
 * {@link #close()} gives all of it back, once, whichever way the connection ended, but what its requests still being
 * served count, which their exchanges give back ({@link #addServedBytes}); anything else counted after the close is
 * ignored, so nothing leaks and no counter goes negative.
 *
 * <p>What it is counted as ({@link Counted}), guarded by the budget's lock:
 * <pre>
 *          startHandshake                 opened (within the limits)
 *   NEW ───────────────────▶ HANDSHAKE ─────────────────────────────▶ OPEN
 *    │ refused                 │   ▲ opened, refused: still counted      │
 *    │                         │   └── as a handshake until it closes    │
 *    │                         │ close, or evicted (stalled, to make     │ close
 *    ▼                         ▼   room for a newer handshake)           ▼
 *  ENDED ◀─────────────────────────────────────────────────────────────ENDED
 * </pre>
 * A connection refused at its open stays a handshake until it closes: it costs what a handshake costs until the peer
 * answers our close, so a flood of refused connections is bounded by the handshake limits (and the oldest of them
 * goes first when those are full), not only by the close timeout.
 *
 * <p>Request bytes are added on the engine thread and taken away on servlet threads; output, unsettled deliveries and
 * partial-frame bytes are set on the engine thread; close runs on Jetty's. A monitor guards the byte counts
 * (uncontended in practice: a small critical section per request served, per frame of a streamed body and per engine
 * pass).
 */
public final class BudgetShare {
    /** What a share is counted as; see the diagram above. */
    enum Counted {
        /** Nothing yet: the connection has not started. */
        NEW,
        /** Between accept and the peer's open (or refused at its open and not closed yet). */
        HANDSHAKE,
        /** An open AMQP connection. */
        OPEN,
        /** Nothing any more: closed, refused before its handshake, or its stalled handshake ended. */
        ENDED
    }

    /** The connection a share belongs to: told when the budget ends its stalled handshake to make room. */
    public interface Owner {
        /** Any thread, no lock held: end the connection now, as a handshake timeout would. */
        void evicted();
    }

    /**
     * What a request being served costs in memory beside its body, counted in the byte budget from the moment it is
     * handed to Jetty until its exchange is complete: the connector's exchange and Jetty's channel, request and
     * response, with a servlet's asynchronous context (about 3.5 KB measured by {@code HeldRequestMemoryTest}, which
     * checks this figure). So requests held by servlets, asynchronous or waiting for a thread, count even when their
     * bodies are empty.
     */
    public static final int EXCHANGE_BYTES = 3 * 1024;

    /**
     * What a delivery the engine keeps unsettled costs in memory (a message received and not settled yet, or sent and
     * not settled by the peer): its record with its tag and state, in the session's table; about 600 bytes measured
     * by {@code UnsettledResponseMemoryTest}, which checks this figure. Counted as each engine pass ends, so a
     * client that never settles its responses (up to {@code maxUnsettledSentDeliveries}, 16,384 per connection)
     * uses the budget up rather than the heap.
     */
    public static final int DELIVERY_BYTES = 600;
    /**
     * What a link costs in memory (its record, its termini and its name, up to {@code maxLinkBytesPerConnection}
     * per connection): about 730 bytes measured by {@code LinkMemoryTest}, which checks this figure. A connection
     * may have 1,024 (about 750 KB), one address 512 connections; counted as each engine pass ends, and a link
     * attached while the budget is used up ends its session instead.
     */
    public static final int LINK_BYTES = 768;
    /**
     * What a session costs in memory: about 360 bytes measured by {@code LinkMemoryTest}; a connection may have 256
     * ({@code channelMax}). One begun while the budget is used up is refused.
     */
    public static final int SESSION_BYTES = 384;
    /**
     * Sessions a connection may have, and links, however used up the budget: what a client needs to make requests
     * (a session, a sending link, a reply link, with room to spare), so that an overloaded server still lets a new
     * client in to wait for credit, while a connection that piles sessions or links up past these stops there.
     */
    public static final int SESSIONS_ANYWAY = 2;
    /** See {@link #SESSIONS_ANYWAY}. */
    public static final int LINKS_ANYWAY = 8;

    private final ServerBudget budget;
    final Owner owner;
    // Guarded by the budget's lock.
    Counted counted = Counted.NEW;
    /** The limit that ended this share's handshake, when it was evicted. */
    Limit evictedBy;
    /**
     * Its source address's record while counted, or null (no IP address, or no per-address limit then). Written
     * under the budget's lock; volatile, as the byte counts read it under this share's monitor instead.
     */
    volatile SourceAddress source;
    /** Its place in the handshake queue while {@link Counted#HANDSHAKE}: an idle open connection holds none. */
    HandshakeQueue.Handshake handshake;
    /** The source address record its admitted partial frame counts in, or null. */
    SourceAddress frameSource;
    /** The peer's address given at {@link #startHandshake}, or null: what its logins count against. */
    volatile InetAddress peer;
    // Guarded by this.
    private long requestBytes;
    private long outputBytes;
    private long partialFrameBytes;
    /** What this connection's streamed requests reserved ({@link #admitStream}) and have not given back. */
    private long streamBytes;
    /** What this connection's admitted partial frame reserved ({@link #admitPartialFrame}), 0 when none. */
    private long admittedFrameBytes;
    /** What its requests being served count ({@link #addServedBytes}); given back by their exchanges. */
    private long servedBytes;
    /** Its source address's record when it closed, which its requests still being served count in; or null. */
    private SourceAddress closedSource;
    /** What its sessions, links and unsettled deliveries held as its last pass ended ({@link #stateBytes}). */
    private long stateBytes;
    private long maxOutputBytes;
    private boolean closed;

    /**
     * @param budget the budget this share counts into
     * @param owner told when the budget ends this connection's stalled handshake to make room for a newer one
     */
    public BudgetShare(ServerBudget budget, Owner owner) {
        this.budget = budget;
        this.owner = owner;
    }

    public ServerBudget budget() {
        return budget;
    }

    /**
     * The connection opened: counts it in as a handshake, for its source address too. When a handshake limit is
     * full, the oldest handshake that has stalled (of this address, or server-wide) ends to make room; when none
     * has, this connection is refused.
     *
     * @param address the peer's address (behind a PROXY protocol connection factory, the one the proxy names);
     *                null when there is none (it then counts server-wide only)
     * @param nowMillis the time now, in milliseconds of a monotonic clock
     * @return null when counted; else the limit that refuses it (the connection should end at once)
     */
    public Limit startHandshake(InetAddress address, long nowMillis) {
        this.peer = address;
        return budget.startHandshake(this, address, nowMillis);
    }

    /**
     * The peer's SASL login starts (its sasl-init arrived, before any credential is looked at): takes one from its
     * source address's allowance of failed logins ({@link FailedLogins}), given back by {@link #loginSucceeded}.
     *
     * @return null to go on; else why the login is refused (the address has failed too many logins lately)
     */
    public String loginStarting() {
        return budget.startLogin(peer);
    }

    /** The login {@link #loginStarting} let go on succeeded: its address gets the login back. */
    public void loginSucceeded() {
        budget.loginSucceeded(peer);
    }

    /**
     * The peer's open arrived: counts the connection in as open, for its source address too.
     *
     * @return null when counted; else the limit that refuses it (answer with open, then close with the reason)
     */
    public Limit opened() {
        return budget.open(this);
    }

    /**
     * What a refused connection is told (the description of its close's {@code amqp:resource-limit-exceeded}):
     * which limit, its value, and for a per-address limit the address.
     *
     * @param limit what {@link #opened()} returned
     * @return the description
     */
    public String refusal(Limit limit) {
        return budget.describe(limit, this);
    }

    /** Why {@link #startHandshake} refused this connection (with {@code limit}) from {@code address}. */
    public String handshakeRefusal(Limit limit, InetAddress address) {
        return budget.describeHandshakeRefusal(limit, address);
    }

    /**
     * What requests being served count ({@code delta > 0} when one is handed to Jetty: {@link #EXCHANGE_BYTES} and a
     * whole body; {@code delta < 0} when its exchange is done). Unlike the other counts these outlive the connection:
     * a servlet may hold its requests (and their bodies) after the client has gone, so they are given back by their
     * exchanges, not by {@link #close()}; otherwise a client that closed its connections and opened new ones would
     * have the servlet hold more than the budget.
     */
    public synchronized void addServedBytes(long delta) {
        if (closed) {
            if (delta < 0) {
                servedBytes += delta;
                budget.add(closedSource, delta);
            }
            return;
        }
        servedBytes += delta;
        budget.add(source, delta);
    }

    /** Request body bytes received ({@code delta > 0}) or read or dropped ({@code delta < 0}). */
    public synchronized void addRequestBytes(long delta) {
        if (closed) {
            return; // given back already
        }
        requestBytes += delta;
        budget.add(source, delta);
    }

    /** The connection's output now: encoded and queued bytes not yet written. */
    public void outputBytes(long bytes) {
        passEnded(bytes, stateBytes);
    }

    /**
     * What a connection's protocol state holds in memory, as counted: its sessions, its links and the deliveries it
     * keeps unsettled (received and sent).
     */
    public static long stateBytes(int sessions, int links, int deliveries) {
        return (long) sessions * SESSION_BYTES + (long) links * LINK_BYTES + (long) deliveries * DELIVERY_BYTES;
    }

    /**
     * An engine pass ended: the connection's output now (encoded and queued bytes not yet written), and what its
     * protocol state holds ({@code stateBytes}: {@link #stateBytes}).
     */
    public synchronized void passEnded(long outputBytes, long stateBytes) {
        if (closed || outputBytes == this.outputBytes && stateBytes == this.stateBytes) {
            return;
        }
        budget.add(source, outputBytes - this.outputBytes + stateBytes - this.stateBytes);
        if (stateBytes != this.stateBytes) {
            budget.addState(stateBytes - this.stateBytes);
        }
        this.outputBytes = outputBytes;
        this.stateBytes = stateBytes;
        if (outputBytes > maxOutputBytes) {
            maxOutputBytes = outputBytes;
        }
    }

    /**
     * The memory the connection's frame that has not all arrived holds now ({@code Engine.partialFrameBytes()}): its
     * bytes, and the engine's working buffers while they keep them.
     */
    public synchronized void partialFrameBytes(long bytes) {
        if (closed || bytes == partialFrameBytes) {
            return;
        }
        budget.add(source, bytes - partialFrameBytes);
        partialFrameBytes = bytes;
    }

    /**
     * Whether this connection's frame that has not all arrived may grow (be read further): it may once admitted,
     * until {@link #partialFrameDone()}. Admission reserves {@code bytes} (a whole frame and the engine's working
     * buffers) of the half of the byte budget partial frames may take, of which one source address takes at most
     * half; when there is no room, the connection should ask again once {@link #whenFrameRoom} says some was given
     * back.
     */
    public synchronized boolean admitPartialFrame(long bytes) {
        if (admittedFrameBytes > 0 || closed) {
            return true; // admitted already; or closed, and nothing is counted any more
        }
        if (budget.admitPartialFrame(this, bytes)) {
            admittedFrameBytes = bytes;
            return true;
        }
        return false;
    }

    /**
     * Runs {@code task} (any thread, quickly: it should hand off) once {@link #admitPartialFrame} may admit a frame
     * of {@code bytes}, or now if it may already.
     */
    public void whenFrameRoom(Runnable task, long bytes) {
        budget.whenFrameRoom(this, task, bytes);
    }

    /** The connection holds no partial frame now: an admission it had is given back. */
    public void partialFrameDone() {
        long bytes;
        synchronized (this) {
            bytes = admittedFrameBytes;
            admittedFrameBytes = 0;
        }
        if (bytes > 0) {
            budget.releasePartialFrame(this, bytes);
        }
    }

    /**
     * Whether a request whose body streams in may be served: admission reserves {@code bytes} (what its session's
     * window may still bring) within the byte budget's size ({@link ServerBudget#admitStream});
     * when there is no room, the request is released. Given back by {@link #streamDone}, or when the connection
     * closes.
     */
    public synchronized boolean admitStream(long bytes) {
        if (closed || !budget.admitStream(this, bytes)) {
            return false;
        }
        streamBytes += bytes;
        return true;
    }

    /** A streamed request admitted with {@code bytes} has all arrived, or will not be read further. */
    public synchronized void streamDone(long bytes) {
        if (closed) {
            return; // given back at the close
        }
        streamBytes -= bytes;
        // Under this share's monitor, so that the close cannot give back the same bytes or forget the address first.
        budget.releaseStream(this, bytes);
    }

    /**
     * Whether the byte budget is used up for this connection: server-wide, or by its source address, whose
     * connections together may buffer half of it (while the per-address limits are on). Then it gets no credit, no
     * session window is reopened and its new requests are released.
     */
    public boolean isExhausted() {
        if (budget.isExhausted()) {
            return true;
        }
        SourceAddress s = source;
        return s != null && budget.holdsItsShare(s);
    }

    /**
     * Whether the byte budget is used up for this connection once its protocol state is counted as
     * {@code stateBytes} ({@link #stateBytes}) rather than as its last pass ended: a link or a session the peer
     * begins in the middle of a pass (with many others in the same read) is judged on the count with those before it.
     *
     * @return null when not; else what is used up: {@code "server"}, or {@code "address"} for its source address's half
     */
    public String exhaustedWithState(long stateBytes) {
        long extra;
        synchronized (this) {
            extra = closed ? 0 : stateBytes - this.stateBytes;
        }
        long max = budget.getMaxBufferedBytes();
        if (budget.getBufferedBytes() + extra >= max) {
            return "server";
        }
        SourceAddress s = source;
        return s != null && s.bytes() + extra >= max / 2 ? "address" : null;
    }

    /**
     * Whether a new request may be read: false while {@link #isExhausted()} (a request released because its
     * address holds its share is counted).
     */
    public boolean takesRequests() {
        if (budget.isExhausted()) {
            return false;
        }
        SourceAddress s = source;
        if (s != null && budget.holdsItsShare(s)) {
            budget.releasedPerAddress(s);
            return false;
        }
        return true;
    }

    /**
     * Runs {@code task} once, when {@link #isExhausted()} may be false again (at once if it is now), on the thread
     * that gave bytes back: the task should only hand work over.
     */
    public void whenRoom(Runnable task) {
        budget.whenRoom(source, task);
    }

    /** The most output bytes (encoded and queued, unwritten) this connection has held at once. */
    public synchronized long maxOutputBytes() {
        return maxOutputBytes;
    }

    /**
     * Gives back everything this connection counted but its requests still being served ({@link #addServedBytes});
     * later counts are ignored.
     */
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            closedSource = source; // what its requests still being served count stays there until they are done
            budget.add(source, -(requestBytes + outputBytes + partialFrameBytes + stateBytes));
            budget.addState(-stateBytes);
            budget.releaseStream(this, streamBytes);
            requestBytes = 0;
            outputBytes = 0;
            stateBytes = 0;
            partialFrameBytes = 0;
            streamBytes = 0;
        }
        partialFrameDone();
        budget.close(this);
    }
}
