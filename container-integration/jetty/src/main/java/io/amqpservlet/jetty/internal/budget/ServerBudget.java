package io.amqpservlet.jetty.internal.budget;

import io.amqpservlet.jetty.internal.log.PeerLog;
import org.eclipse.jetty.util.thread.AutoLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The limits every connection of one factory shares, and their counts (the factory's {@code AmqpServerBudget} is the
 * view of it that users configure and read), so that many peers together cannot take the server past its heap, and
 * one source address cannot take what everyone shares: open connections and connections still in their handshake
 * (before the peer's open), server-wide and per source address, and bytes buffered across all connections (request
 * bodies received and not yet read by their servlets, or held with their requests, response bytes encoded or queued
 * and not yet written, frames that have not all arrived, a fixed cost per request being served and per delivery kept
 * unsettled), server-wide and per source address.
 *
 * <p>When a limit is reached the server degrades the AMQP way (docs/jetty.md, "Server-wide limits" and "Limits per
 * source address"): a connection over a connection limit is opened and at once closed with
 * {@code amqp:resource-limit-exceeded}, the description naming the limit; when a handshake limit is full, the oldest
 * handshake that has stalled (of the address, or server-wide) ends to make room ({@link HandshakeQueue}), and only
 * when none has is the newcomer closed before any AMQP frame; while the byte budget is used up, no credit is
 * granted, no session window is reopened and new requests are released, and so for one source address's connections
 * while they buffer half of it ({@link #holdsItsShare}). Two reservations bound what arrives anyway:
 * frames that have not all arrived grow only once admitted ({@link #admitPartialFrame}), and a streamed request is
 * served only once it has reserved what its session window may still bring ({@link #admitStream}); one source
 * address takes at most half of either. Counts are reserved and released by each connection's {@link BudgetShare}, which gives
 * everything back when the connection closes, whichever way.
 *
 * <p>Each source address also has an allowance of failed SASL logins ({@link FailedLogins}, a table of its own):
 * a login past it is refused before its credentials are looked at, counted as a refusal by
 * {@link Limit#FAILED_LOGINS_PER_ADDRESS}.
 *
 * <p>Source addresses are kept in a table only while they have a connection counted, so it holds at most as many
 * addresses as there are connections counted (each limited), and forgets an address with its last connection.
 *
 * <p>Thread-safe: the connection counts, the table, the handshake queue and the reservations per address are guarded
 * by one lock (taken once per accept, open and close, once per streamed request and twice per frame that takes more
 * than one read); bytes are atomic. Limits are read on every check and may be changed while the server
 * runs; a connection accepted while both per-address limits were 0 is not counted per address.
 */
public final class ServerBudget {
    private static final Logger LOG = LoggerFactory.getLogger(ServerBudget.class);
    /** Default {@link #setMaxConnections max connections}: 4,096. */
    public static final int DEFAULT_MAX_CONNECTIONS = 4_096;
    /** Default {@link #setMaxHandshakingConnections max connections in handshake}: 256. */
    public static final int DEFAULT_MAX_HANDSHAKING_CONNECTIONS = 256;
    /**
     * Default {@link #setMaxConnectionsPerAddress max connections per source address}: 512, an eighth of the
     * server-wide default, so that eight addresses are needed to fill the server, where one laptop would do.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 512;
    /**
     * Default {@link #setMaxHandshakesPerAddress max handshakes per source address}: 32, an eighth of the
     * server-wide default.
     */
    public static final int DEFAULT_MAX_HANDSHAKES_PER_ADDRESS = 32;
    /** Default {@link #setMaxBufferedBytes byte budget}: 64 MiB, a quarter of a 256 MiB heap. */
    public static final long DEFAULT_MAX_BUFFERED_BYTES = 64L * 1024 * 1024;
    /**
     * How long a handshake lasts before it counts as stalled and may end to make room for a newer one when a
     * handshake limit is full: 2 seconds, many round trips of any network (a handshake takes three round trips or
     * fewer, and a login service's answer), well within the handshake timeout (10 s by default).
     */
    public static final long HANDSHAKE_STALLED_MILLIS = 2_000;
    /** At most one log line about refusals and ended handshakes per this many nanoseconds, whatever a flood does. */

    private final AutoLock lock = new AutoLock();
    // Guarded by lock (volatile for readers of the counts that do not take it).
    private volatile int connections;
    private volatile int handshakes;
    private final HashMap<SourceAddress, SourceAddress> sources = new HashMap<>();
    private final SourceAddress probe = new SourceAddress();
    private final HandshakeQueue handshakeQueue = new HandshakeQueue();
    /** Failed logins per source address: a table of its own, with its own lock (taken per login, not per accept). */
    private final FailedLogins failedLogins = new FailedLogins(FailedLogins.DEFAULT_MAX_ADDRESSES);
    private volatile int sourceCount;

    private final AtomicLong bufferedBytes = new AtomicLong();
    /** The part of {@link #bufferedBytes} that sessions, links and unsettled deliveries count. */
    private final AtomicLong stateBytes = new AtomicLong();
    private final AtomicLong maxBufferedBytesSeen = new AtomicLong();
    private final AtomicLong refusedConnections = new AtomicLong();
    private final AtomicLongArray refusedBy = new AtomicLongArray(Limit.values().length);
    private final AtomicLongArray evictedBy = new AtomicLongArray(Limit.values().length);
    /** The allowance of log lines the factory's peers may cause; refusals and ended handshakes use it. */
    private final PeerLog peerLog;
    private volatile int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private volatile int maxHandshakingConnections = DEFAULT_MAX_HANDSHAKING_CONNECTIONS;
    private volatile int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    private volatile int maxHandshakesPerAddress = DEFAULT_MAX_HANDSHAKES_PER_ADDRESS;
    private volatile long maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;
    /** Tasks to run (each once) when the byte budget has room again: connections that paused credit or windows. */
    private final ConcurrentLinkedQueue<Runnable> waitingForRoom = new ConcurrentLinkedQueue<>();
    /** What the frames admitted to grow have reserved ({@link #admitPartialFrame}). */
    private final AtomicLong partialFrameReserved = new AtomicLong();
    /** What the session windows of streamed requests being received may still bring, reserved ({@link #admitStream}). */
    private final AtomicLong streamReserved = new AtomicLong();
    private final AtomicLong streamsRefusedPerAddress = new AtomicLong();
    private final AtomicLong framesHeldPerAddress = new AtomicLong();
    private final AtomicLong requestsReleasedPerAddress = new AtomicLong();
    /** Connections waiting to be admitted to grow a partial frame. */
    private final ConcurrentLinkedQueue<Runnable> waitingForFrameRoom = new ConcurrentLinkedQueue<>();

    /** @param peerLog the allowance of log lines of the factory whose connections count here */
    public ServerBudget(PeerLog peerLog) {
        this.peerLog = peerLog;
    }

    /**
     * A budget that counts connections server-wide only: a broker attachment's, whose only peer is its broker.
     *
     * @return a budget with no per-address limits
     */
    public static ServerBudget withoutAddressLimits() {
        ServerBudget budget = new ServerBudget(new PeerLog());
        budget.setMaxConnectionsPerAddress(0);
        budget.setMaxHandshakesPerAddress(0);
        budget.failedLogins.setMaxPerAddress(0);
        return budget;
    }

    // ------------------------------------------------------------------------------------------ connections

    /**
     * Counts {@code share} in as a handshake (see {@link BudgetShare#startHandshake}); ends the oldest stalled
     * handshake of its address, then server-wide, when a handshake limit is full.
     */
    Limit startHandshake(BudgetShare share, InetAddress address, long nowMillis) {
        HandshakeQueue.Handshake evictedHere = null;
        HandshakeQueue.Handshake evictedAnywhere = null;
        Limit refused = null;
        SourceAddress source = null;
        try (AutoLock l = lock.lock()) {
            if (share.counted != BudgetShare.Counted.NEW) {
                return null; // closed before it started: nothing to count
            }
            boolean perAddress = address != null && (maxConnectionsPerAddress > 0 || maxHandshakesPerAddress > 0)
                    && probe.set(address);
            if (perAddress) {
                source = sources.get(probe);
            }
            int maxHere = maxHandshakesPerAddress;
            if (source != null && maxHere > 0 && source.handshakes >= maxHere) {
                evictedHere = HandshakeQueue.oldestStalledOf(source, nowMillis);
                if (evictedHere == null) {
                    refused = Limit.HANDSHAKES_PER_ADDRESS;
                } else {
                    evict(evictedHere, Limit.HANDSHAKES_PER_ADDRESS);
                }
            }
            if (refused == null && handshakes >= maxHandshakingConnections) {
                evictedAnywhere = handshakeQueue.oldestStalled(nowMillis);
                if (evictedAnywhere == null) {
                    refused = Limit.HANDSHAKES;
                } else {
                    evict(evictedAnywhere, Limit.HANDSHAKES);
                }
            }
            if (refused != null) {
                share.counted = BudgetShare.Counted.ENDED;
                if (source != null) {
                    forgetIfEmpty(source); // an eviction above may have left it empty
                }
            } else {
                if (perAddress) {
                    if (source == null) {
                        source = new SourceAddress(probe);
                    }
                    if (source.isEmpty()) {
                        // New, or forgotten when the eviction above took its last handshake: the table holds only
                        // addresses with a connection counted, so it is not there now.
                        sources.put(source, source);
                        sourceCount = sources.size();
                    }
                }
                share.source = source;
                share.handshake = new HandshakeQueue.Handshake(share, source, nowMillis);
                share.counted = BudgetShare.Counted.HANDSHAKE;
                handshakeQueue.add(share.handshake);
                handshakes++;
                if (source != null) {
                    source.handshakes++;
                }
            }
        }
        if (evictedHere != null) {
            evicted(evictedHere, Limit.HANDSHAKES_PER_ADDRESS, nowMillis);
        }
        if (evictedAnywhere != null) {
            evicted(evictedAnywhere, Limit.HANDSHAKES, nowMillis);
        }
        if (refused != null) {
            refused(refused);
        }
        return refused;
    }

    /** Counts {@code share} in as open, unless a connection limit is reached (see {@link BudgetShare#opened}). */
    Limit open(BudgetShare share) {
        Limit refused;
        SourceAddress source;
        try (AutoLock l = lock.lock()) {
            if (share.counted == BudgetShare.Counted.ENDED) {
                return share.evictedBy != null ? share.evictedBy : Limit.CONNECTIONS; // it is closing anyway
            }
            if (share.counted == BudgetShare.Counted.OPEN) {
                return null;
            }
            // HANDSHAKE, or NEW for a connection that counted no handshake: the connection limits alone decide.
            source = share.source;
            int maxHere = maxConnectionsPerAddress;
            if (source != null && maxHere > 0 && source.connections >= maxHere) {
                refused = Limit.CONNECTIONS_PER_ADDRESS;
            } else if (connections >= maxConnections) {
                refused = Limit.CONNECTIONS;
            } else {
                // Out of the handshake queue, into the open connections.
                if (share.counted == BudgetShare.Counted.HANDSHAKE) {
                    endHandshake(share);
                }
                share.counted = BudgetShare.Counted.OPEN;
                connections++;
                if (source != null) {
                    source.connections++;
                }
                return null;
            }
            // Refused: a handshake stays one until it closes (BudgetShare), evictable once stalled.
            if (share.counted == BudgetShare.Counted.NEW) {
                share.counted = BudgetShare.Counted.ENDED;
            }
        }
        refused(refused);
        return refused;
    }

    /** Gives back what {@code share} counted (see {@link BudgetShare#close}). */
    void close(BudgetShare share) {
        try (AutoLock l = lock.lock()) {
            switch (share.counted) {
                case HANDSHAKE -> endHandshake(share);
                case OPEN -> {
                    connections--;
                    if (share.source != null) {
                        share.source.connections--;
                    }
                }
                default -> {
                }
            }
            share.counted = BudgetShare.Counted.ENDED;
            if (share.source != null) {
                forgetIfEmpty(share.source);
                share.source = null;
            }
            if (connections < 0 || handshakes < 0) {
                throw new IllegalStateException("server budget released more connections than it counted");
            }
        }
    }

    /** Under the lock: {@code share} leaves the handshake queue and counts (not its source: see forgetIfEmpty). */
    private void endHandshake(BudgetShare share) {
        handshakeQueue.remove(share.handshake);
        share.handshake = null;
        handshakes--;
        if (share.source != null) {
            share.source.handshakes--;
        }
    }

    /** Under the lock: a stalled handshake ends to make room; its connection is told after. */
    private void evict(HandshakeQueue.Handshake handshake, Limit limit) {
        BudgetShare victim = handshake.share;
        endHandshake(victim);
        victim.counted = BudgetShare.Counted.ENDED;
        victim.evictedBy = limit;
        SourceAddress source = victim.source;
        if (source != null) {
            forgetIfEmpty(source);
        }
        evictedBy.incrementAndGet(limit.ordinal());
    }

    /** Under the lock: the table keeps an address only while it has a connection counted. */
    private void forgetIfEmpty(SourceAddress source) {
        if (source.isEmpty() && sources.get(source) == source) {
            sources.remove(source);
            sourceCount = sources.size();
        }
    }

    /**
     * No lock held (a handshake's source and start never change): the evicted connection ends; one log line within the factory's allowance.
     */
    private void evicted(HandshakeQueue.Handshake victim, Limit limit, long nowMillis) {
        victim.share.owner.evicted();
        long leftOut = LOG.isInfoEnabled() ? peerLog.permit(PeerLog.Kind.REFUSAL) : -1;
        if (leftOut >= 0) {
            LOG.info("ended a stalled AMQP handshake{} after {} ms to make room for a new connection: {} ({}) "
                    + "reached{}", victim.source == null ? "" : " from " + victim.source,
                    nowMillis - victim.startMillis, limit.setting(), limitValue(limit), PeerLog.leftOut(leftOut));
        }
    }

    /**
     * No lock held: counts a refusal (the connection logs it, with what it knows of its peer, within the factory's
     * allowance).
     */
    private void refused(Limit limit) {
        refusedConnections.incrementAndGet();
        refusedBy.incrementAndGet(limit.ordinal());
    }

    /** The text of a refusal's close (see {@link BudgetShare#refusal}). */
    String describe(Limit limit, BudgetShare share) {
        SourceAddress source;
        try (AutoLock l = lock.lock()) {
            source = share.source;
        }
        return switch (limit) {
            case CONNECTIONS -> "the server has " + maxConnections + " AMQP connections open, its limit ("
                    + limit.setting() + ")";
            case CONNECTIONS_PER_ADDRESS -> (source == null ? "your address" : source.toString()) + " has "
                    + maxConnectionsPerAddress + " AMQP connections open, the limit per source address ("
                    + limit.setting() + ")";
            case HANDSHAKES, HANDSHAKES_PER_ADDRESS -> "the handshake stalled and was ended to make room for a new "
                    + "connection (" + limit.setting() + ")";
            case FAILED_LOGINS_PER_ADDRESS -> describeLoginRefusal(share.peer);
        };
    }

    /** Why a connection was refused at accept by a full handshake limit with no handshake stalled to end. */
    String describeHandshakeRefusal(Limit limit, InetAddress address) {
        return limit == Limit.HANDSHAKES_PER_ADDRESS
                ? (address == null ? "its address" : address.getHostAddress()) + " has " + maxHandshakesPerAddress
                        + " AMQP connections in their handshake, the limit per source address (" + limit.setting()
                        + "), none stalled"
                : "the server has " + maxHandshakingConnections + " AMQP connections in their handshake, its limit ("
                        + limit.setting() + "), none stalled";
    }

    private long limitValue(Limit limit) {
        return switch (limit) {
            case CONNECTIONS -> maxConnections;
            case HANDSHAKES -> maxHandshakingConnections;
            case CONNECTIONS_PER_ADDRESS -> maxConnectionsPerAddress;
            case HANDSHAKES_PER_ADDRESS -> maxHandshakesPerAddress;
            case FAILED_LOGINS_PER_ADDRESS -> failedLogins.getMaxPerAddress();
        };
    }

    // ------------------------------------------------------------------------------------------ logins

    /**
     * A SASL login from {@code address} starts (see {@link BudgetShare#loginStarting}): takes one from the address's
     * allowance of failed logins, or refuses the login when it has none left.
     *
     * @return null to go on; else why the login is refused
     */
    String startLogin(InetAddress address) {
        if (failedLogins.tryStart(address, System.nanoTime())) {
            return null;
        }
        refused(Limit.FAILED_LOGINS_PER_ADDRESS);
        return describeLoginRefusal(address);
    }

    /** A login {@link #startLogin} let go on succeeded: the address gets its login back. */
    void loginSucceeded(InetAddress address) {
        failedLogins.succeeded(address, System.nanoTime());
    }

    private String describeLoginRefusal(InetAddress address) {
        SourceAddress source = new SourceAddress();
        String who = address != null && source.set(address) ? source.toString() : "its address";
        int max = failedLogins.getMaxPerAddress();
        long window = failedLogins.getWindowMillis();
        long waitMillis = failedLogins.millisUntilAllowed(address, System.nanoTime());
        return who + " has no failed login left: " + max + " per " + (window % 1000 == 0 ? window / 1000 + " s"
                : window + " ms") + ", the limit per source address (" + Limit.FAILED_LOGINS_PER_ADDRESS.setting()
                + "); the next in " + (waitMillis >= 1000 ? (waitMillis + 999) / 1000 + " s" : waitMillis + " ms");
    }

    /** The allowance of failed logins per source address: its settings and counts. */
    public FailedLogins failedLogins() {
        return failedLogins;
    }

    // ------------------------------------------------------------------------------------------ bytes

    /**
     * Adds {@code deltaBytes} (negative to give back) to the bytes buffered across the factory's connections.
     * Bytes already in memory are counted even past the budget (they cannot be un-received); what the budget
     * stops is more of them arriving: see {@link #isExhausted()}.
     */
    void add(SourceAddress source, long deltaBytes) {
        if (source != null) {
            long here = source.addBytes(deltaBytes);
            if (deltaBytes < 0 && here < maxBufferedBytes / 2) {
                source.wakeRoomWaiters();
                if (source.atShare) {
                    source.atShare = false;
                }
            }
            if (here == 0 && source.connections == 0 && source.handshakes == 0) {
                // The last bytes of an address with no connection left (requests a servlet held after its client
                // closed): the table forgets it now. The close that took its last connection saw these bytes (it
                // read them after counting the connection out; they are read after here), so one of the two does.
                try (AutoLock l = lock.lock()) {
                    forgetIfEmpty(source);
                }
            }
        }
        add(deltaBytes);
    }

    private void add(long deltaBytes) {
        long now = bufferedBytes.addAndGet(deltaBytes);
        if (now < 0) {
            throw new IllegalStateException("server budget released more bytes than it held: " + now);
        }
        if (deltaBytes < 0 && now < maxBufferedBytes && !waitingForRoom.isEmpty()) {
            wakeWaiting();
        }
        if (deltaBytes > 0) {
            long seen;
            while (now > (seen = maxBufferedBytesSeen.get()) && !maxBufferedBytesSeen.compareAndSet(seen, now)) {
                // another thread raised it meanwhile: try again with its value
            }
        }
    }

    /** Of the bytes counted, {@code deltaBytes} more (or fewer) are the connections' protocol state. */
    void addState(long deltaBytes) {
        stateBytes.addAndGet(deltaBytes);
    }

    /** {@return the bytes the connections' sessions, links and unsettled deliveries count now} */
    public long stateBytes() {
        return stateBytes.get();
    }

    /**
     * Runs {@code task} once, when the byte budget next has room (at once if it has now), on the thread that gave
     * bytes back: the task should only hand work over (to an executor, or a connection's event loop).
     */
    public void whenRoom(Runnable task) {
        waitingForRoom.offer(task);
        if (!isExhausted()) {
            wakeWaiting(); // room came back between the caller's check and the offer
        }
    }

    /**
     * {@link #whenRoom}, for a connection of {@code source} (null: none counted): while the budget has room but the
     * address holds its share, {@code task} runs when the address's connections give some back.
     */
    void whenRoom(SourceAddress source, Runnable task) {
        if (source == null || isExhausted() || !holdsItsShare(source)) {
            whenRoom(task);
            return;
        }
        if (source.waitForRoom(task) && !holdsItsShare(source)) {
            source.wakeRoomWaiters(); // given back between the check and the offer
        }
    }

    /**
     * Whether the connections of {@code source} buffer half the byte budget or more: then they get no credit, no
     * session window is reopened for them and their new requests are released, while other addresses' go on.
     */
    boolean holdsItsShare(SourceAddress source) {
        return source.bytes() >= maxBufferedBytes / 2;
    }

    /**
     * Counts a request released because {@code source} held its share of the byte budget; the first since the address
     * reached its share is logged (one INFO line, within the factory's allowance of refusal lines).
     */
    void releasedPerAddress(SourceAddress source) {
        requestsReleasedPerAddress.incrementAndGet();
        if (!source.atShare) {
            source.atShare = true; // cleared when its bytes go back under half: logged once per time it reaches it
            long leftOut = LOG.isInfoEnabled() ? peerLog.permit(PeerLog.Kind.REFUSAL) : -1;
            if (leftOut >= 0) {
                LOG.info("AMQP requests from {} released: its connections buffer {} bytes, half the byte budget "
                        + "(maxBufferedBytes {}){}", source, source.bytes(), maxBufferedBytes,
                        PeerLog.leftOut(leftOut));
            }
        }
    }

    /** {@return the requests released because their source address held half the byte budget} */
    public long requestsReleasedPerAddress() {
        return requestsReleasedPerAddress.get();
    }

    private void wakeWaiting() {
        Runnable task;
        while ((task = waitingForRoom.poll()) != null) {
            task.run();
        }
    }

    /**
     * Whether the byte budget is used up: no credit, no session window, new requests released.
     *
     * @return true while the bytes buffered reach {@link #getMaxBufferedBytes()}
     */
    public boolean isExhausted() {
        return bufferedBytes.get() >= maxBufferedBytes;
    }

    /**
     * Admits one connection's frame that has not all arrived to grow: reserves {@code bytes} (a whole frame and the
     * engine's working buffers) of the half of the byte budget that partial frames may take, if there is room or no
     * other connection holds a reservation (so a budget smaller than a frame still lets one through at a time). While
     * the per-address limits are on (the connection has a source address record), one address's frames reserve at
     * most half of that (a quarter of the budget), unless the address holds none: so that one machine's connections,
     * each sending part of a large frame and then nothing, cannot take all the room and hold everyone else's large
     * frames back until their deadline.
     *
     * @return whether admitted; if not, {@link #whenFrameRoom} says when to try again
     */
    boolean admitPartialFrame(BudgetShare share, long bytes) {
        try (AutoLock l = lock.lock()) {
            SourceAddress source = countedSource(share);
            if (source != null && !source.hasFrameRoom(bytes, maxBufferedBytes / 4)) {
                return false;
            }
            if (!reserve(partialFrameReserved, bytes, maxBufferedBytes / 2)) {
                return false;
            }
            if (source != null) {
                source.frameBytes += bytes;
                share.frameSource = source;
            }
            return true;
        }
    }

    /** Under the lock: {@code share}'s source address record while it counts as a connection, else null. */
    private static SourceAddress countedSource(BudgetShare share) {
        return share.counted == BudgetShare.Counted.HANDSHAKE || share.counted == BudgetShare.Counted.OPEN
                ? share.source : null;
    }

    /** Adds {@code bytes} to {@code pool} if it stays within {@code cap}, or the pool holds nothing (one goes through). */
    private static boolean reserve(AtomicLong pool, long bytes, long cap) {
        while (true) {
            long reserved = pool.get();
            if (reserved > 0 && reserved + bytes > cap) {
                return false;
            }
            if (pool.compareAndSet(reserved, reserved + bytes)) {
                return true;
            }
        }
    }

    /**
     * Gives back a reservation {@link #admitPartialFrame} made for {@code share}'s connection, and wakes as many
     * waiting connections as it frees: first those of its source address that waited for their address's share,
     * then those that waited for the server's room.
     */
    void releasePartialFrame(BudgetShare share, long bytes) {
        long reserved = partialFrameReserved.addAndGet(-bytes);
        if (share != null) {
            Runnable[] woken = null;
            try (AutoLock l = lock.lock()) {
                SourceAddress source = share.frameSource;
                if (source != null) {
                    share.frameSource = null;
                    source.frameBytes -= bytes;
                    woken = source.takeFrameWaiters(bytes, maxBufferedBytes / 4);
                }
            }
            if (woken != null) {
                for (Runnable task : woken) {
                    task.run();
                }
            }
        }
        if (waitingForFrameRoom.isEmpty()) {
            return;
        }
        // Each woken connection tries again on its own thread: wake those the room admits, and one more, so a wake
        // that finds its connection gone (or its frame complete) does not leave the room unused.
        long room = maxBufferedBytes / 2 - reserved;
        long wakes = 1 + Math.max(0, room) / Math.max(1, bytes);
        Runnable task;
        while (wakes-- > 0 && (task = waitingForFrameRoom.poll()) != null) {
            task.run();
        }
    }

    /**
     * Runs {@code task} (any thread, quickly: it should hand off) once there may be room for {@code share}'s
     * connection's partial frame of {@code bytes}: when its source address gives back a reservation, if the address's
     * share is what is full, else when any reservation is given back; or now if there is room already.
     */
    public void whenFrameRoom(BudgetShare share, Runnable task, long bytes) {
        try (AutoLock l = lock.lock()) {
            SourceAddress source = countedSource(share);
            if (source != null && !source.hasFrameRoom(bytes, maxBufferedBytes / 4)) {
                source.waitForFrameRoom(task); // its address gives a reservation back under this lock
                framesHeldPerAddress.incrementAndGet();
                return;
            }
        }
        waitingForFrameRoom.offer(task);
        long reserved = partialFrameReserved.get();
        if (reserved == 0 || reserved + bytes <= maxBufferedBytes / 2) {
            releasePartialFrame(null, 0); // given back between the caller's attempt and the offer
        }
    }

    /** Under no lock: wakes every connection waiting for its address's share (the budget's size changed). */
    private void wakeWaitersOfEveryAddress() {
        ArrayList<SourceAddress> addresses;
        ArrayList<Runnable> woken = new ArrayList<>();
        try (AutoLock l = lock.lock()) {
            addresses = new ArrayList<>(sources.keySet());
            for (SourceAddress source : addresses) {
                source.takeAllFrameWaiters(woken);
            }
        }
        woken.forEach(Runnable::run);
        for (SourceAddress source : addresses) {
            source.wakeRoomWaiters();
        }
    }

    /** {@return the times a partial frame waited because its source address held its share of the room} */
    public long framesHeldPerAddress() {
        return framesHeldPerAddress.get();
    }

    /**
     * Admits a request of {@code share}'s connection whose body streams in (several transfer frames): reserves
     * {@code bytes}, what its session's incoming window may still bring whether or not the budget has room (a window
     * granted cannot be taken back), if the reservations together stay within the byte budget's size, or no other
     * stream holds one. The budget stops windows from being reopened once it is used up, but the windows already open
     * still let their frames in: reserving them is what bounds the bytes buffered to twice the budget. While the
     * per-address limits are on (the connection has a source address record), one address's streams reserve at
     * most half of it, so that one machine's uploads cannot take every reservation.
     *
     * @return whether admitted; if not, the request is released (the client may send it again)
     */
    boolean admitStream(BudgetShare share, long bytes) {
        try (AutoLock l = lock.lock()) {
            SourceAddress source = share.source;
            if (source != null && source.streamBytes > 0 && source.streamBytes + bytes > maxBufferedBytes / 2) {
                streamsRefusedPerAddress.incrementAndGet();
                return false;
            }
            if (!reserve(streamReserved, bytes, maxBufferedBytes)) {
                return false;
            }
            if (source != null) {
                source.streamBytes += bytes;
            }
            return true;
        }
    }

    /** Gives back a reservation {@link #admitStream} made for {@code share}'s connection. */
    void releaseStream(BudgetShare share, long bytes) {
        if (bytes == 0) {
            return;
        }
        streamReserved.addAndGet(-bytes);
        try (AutoLock l = lock.lock()) {
            if (share.source != null) {
                share.source.streamBytes -= bytes;
            }
        }
    }

    /** {@return the streamed requests released because their source address held half the reservations} */
    public long streamsRefusedPerAddress() {
        return streamsRefusedPerAddress.get();
    }

    /** {@return the bytes streamed requests being received have reserved for their session windows now} */
    public long streamReserved() {
        return streamReserved.get();
    }

    /** {@return the bytes partial frames admitted to grow have reserved now} */
    public long partialFrameReserved() {
        return partialFrameReserved.get();
    }

    /**
     * Open AMQP connections counted against {@link #getMaxConnections()}.
     *
     * @return the number of open connections counted now
     */
    public int getConnections() {
        return connections;
    }

    /**
     * Connections between accept and the peer's open, and connections refused at their open that have not closed
     * yet (they cost what a handshake costs until the peer answers our close).
     *
     * @return the number of connections in the handshake now
     */
    public int getHandshakingConnections() {
        return handshakes;
    }

    /**
     * Source addresses with a connection counted now (IPv4 addresses, IPv6 /64s): the size of the table per-address
     * limits keep.
     *
     * @return the number of source addresses counted now
     */
    public int getSourceAddresses() {
        return sourceCount;
    }

    /**
     * The source address with the most connections now (open ones, then handshakes), for an operator who wonders
     * who fills the server. Looks at every address counted (at most one per connection), under the lock.
     *
     * @return {@code address: N open, M in handshake}, or an empty string when no address is counted
     */
    public String getBusiestSourceAddress() {
        SourceAddress busiest = null;
        int open = 0;
        int handshaking = 0;
        try (AutoLock l = lock.lock()) {
            for (SourceAddress a : sources.keySet()) {
                if (busiest == null || a.connections > open || a.connections == open && a.handshakes > handshaking) {
                    busiest = a;
                    open = a.connections;
                    handshaking = a.handshakes;
                }
            }
        }
        return busiest == null ? "" : busiest + ": " + open + " open, " + handshaking + " in handshake";
    }

    /**
     * Bytes buffered now across all connections (request bodies unread, responses unwritten, frames that have not all
     * arrived, requests being served, deliveries kept unsettled).
     *
     * @return the bytes buffered now
     */
    public long getBufferedBytes() {
        return bufferedBytes.get();
    }

    /**
     * The most bytes ever buffered at once across all connections (a statistic).
     *
     * @return the highest count of buffered bytes since this budget was made
     */
    public long getMaxBufferedBytesSeen() {
        return maxBufferedBytesSeen.get();
    }

    /**
     * Connections refused by any connection or handshake limit, server-wide or per address, or at their login by
     * the limit of failed logins per address, since the start (a statistic).
     *
     * @return the number of connections refused since this budget was made
     */
    public long getRefusedConnections() {
        return refusedConnections.get();
    }

    /**
     * Connections refused by one limit since the start: at their open (a connection limit), before any frame (a
     * handshake limit with no stalled handshake to end), or at their SASL login (failed logins per address).
     *
     * @param limit the limit
     * @return the number of connections it refused since this budget was made
     */
    public long getRefusedConnections(Limit limit) {
        return refusedBy.get(limit.ordinal());
    }

    /**
     * Stalled handshakes ended to make room for a new connection when a handshake limit was full, since the start.
     *
     * @param limit {@link Limit#HANDSHAKES} or {@link Limit#HANDSHAKES_PER_ADDRESS}
     * @return the number of handshakes that limit ended since this budget was made
     */
    public long getEvictedHandshakes(Limit limit) {
        return evictedBy.get(limit.ordinal());
    }

    /**
     * The most AMQP connections open at once; see {@link #setMaxConnections}.
     *
     * @return the connection limit, {@value #DEFAULT_MAX_CONNECTIONS} unless set
     */
    public int getMaxConnections() {
        return maxConnections;
    }

    /**
     * The most AMQP connections open at once; one more is opened and closed with
     * {@code amqp:resource-limit-exceeded} (after SASL, as AMQP 1.0 §2.4.2 has a refused open answered).
     *
     * @param max the most open connections, at least 1; connections open beyond a lowered limit stay open
     * @throws IllegalArgumentException when {@code max} is less than 1
     */
    public void setMaxConnections(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max connections must be at least 1: " + max);
        }
        this.maxConnections = max;
    }

    /**
     * The most connections between accept and the peer's open at once; see {@link #setMaxHandshakingConnections}.
     *
     * @return the handshake limit, {@value #DEFAULT_MAX_HANDSHAKING_CONNECTIONS} unless set
     */
    public int getMaxHandshakingConnections() {
        return maxHandshakingConnections;
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
        if (max < 1) {
            throw new IllegalArgumentException("max handshaking connections must be at least 1: " + max);
        }
        this.maxHandshakingConnections = max;
    }

    /**
     * The most AMQP connections one source address keeps open at once; see {@link #setMaxConnectionsPerAddress}.
     *
     * @return the limit, {@value #DEFAULT_MAX_CONNECTIONS_PER_ADDRESS} unless set; 0 for none
     */
    public int getMaxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /**
     * The most AMQP connections one source address (an IPv4 address, or an IPv6 /64) keeps open at once; one more
     * from it is opened and closed with {@code amqp:resource-limit-exceeded}, whatever room the server has.
     *
     * @param max the most open connections per address, or 0 for no limit per address
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxConnectionsPerAddress(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max connections per address must not be negative: " + max);
        }
        this.maxConnectionsPerAddress = max;
    }

    /**
     * The most connections of one source address between accept and the peer's open at once; see
     * {@link #setMaxHandshakesPerAddress}.
     *
     * @return the limit, {@value #DEFAULT_MAX_HANDSHAKES_PER_ADDRESS} unless set; 0 for none
     */
    public int getMaxHandshakesPerAddress() {
        return maxHandshakesPerAddress;
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
        if (max < 0) {
            throw new IllegalArgumentException("max handshakes per address must not be negative: " + max);
        }
        this.maxHandshakesPerAddress = max;
    }

    /**
     * The bytes all connections together may buffer; see {@link #setMaxBufferedBytes}.
     *
     * @return the byte limit, {@value #DEFAULT_MAX_BUFFERED_BYTES} unless set
     */
    public long getMaxBufferedBytes() {
        return maxBufferedBytes;
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
        if (bytes < 1) {
            throw new IllegalArgumentException("max buffered bytes must be at least 1: " + bytes);
        }
        this.maxBufferedBytes = bytes;
        if (!isExhausted() && !waitingForRoom.isEmpty()) {
            wakeWaiting(); // raised while used up: the connections waiting for room go on now
        }
        releasePartialFrame(null, 0); // and those waiting to grow a frame, as far as the new half admits them
        wakeWaitersOfEveryAddress(); // their addresses' shares have changed too: each tries again
    }
}
