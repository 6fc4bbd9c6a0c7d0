package io.amqpservlet.jetty.internal.budget;

import org.eclipse.jetty.util.thread.AutoLock;

import java.net.InetAddress;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The allowance of failed logins of each source address (an IPv4 address, an IPv6 /64), so that one address cannot
 * guess passwords at the rate it can open connections: a token bucket that holds {@code maxPerAddress} logins and
 * refills at that many per {@code windowMillis}. Each login takes one from its address's bucket when it starts
 * ({@link #tryStart}, before any credential is looked at) and a login that succeeds gives it back
 * ({@link #succeeded}): what is spent is failed logins, and logins that never finished (the client left, the SASL
 * timeout ended it). Taking at the start rather than at the failure is what keeps many concurrent handshakes of one
 * address from all passing the check before the first of them fails. An address with nothing left is refused until
 * its bucket refills by one; other addresses are never affected.
 *
 * <p>Each bucket is one number, the time it is whole again (the "theoretical arrival time" of the generic cell rate
 * algorithm): a login taken moves it one interval ({@code window / max}) later, from now when it had passed; the
 * bucket has a login left while that time is less than {@code max} intervals ahead of now.
 *
 * <p>Memory is bounded: only addresses whose bucket is not whole are kept, at most {@code maxAddresses} of them. An
 * address whose bucket is whole again is forgotten (the oldest are looked at on each login, the rest when they come
 * up again or are evicted). When the table is full, the address whose last login is the oldest goes to make room:
 * its bucket is the nearest to whole (it is at most one window from whole, whereas every other one was touched
 * since). Refusing a new address because the table is full is never done: an attacker with many addresses could then
 * keep everyone else from logging in. What eviction costs is that an attacker with more addresses than the table
 * holds gets a whole bucket back for an evicted address; he can already guess {@code max} times per window from each
 * of his addresses anyway. An entry costs about 100 bytes (a {@link SourceAddress} of 48 bytes, a linked hash map
 * entry of 40, a slot of the table's array), so the default cap of {@value #DEFAULT_MAX_ADDRESSES} addresses is about
 * 1 MB.
 *
 * <p>Thread-safe: one lock, taken once when a login starts and once when one succeeds, never per request.
 */
public final class FailedLogins {
    /** Default {@link #setMaxPerAddress failed logins per address}: 10. */
    public static final int DEFAULT_MAX_PER_ADDRESS = 10;
    /** Default {@link #setWindowMillis window}: 60 seconds. */
    public static final long DEFAULT_WINDOW_MILLIS = 60_000;
    /** The longest {@link #setWindowMillis window}: a day. */
    public static final long MAX_WINDOW_MILLIS = 86_400_000;
    /** Default most addresses kept: 10,000, about 1 MB. */
    public static final int DEFAULT_MAX_ADDRESSES = 10_000;
    /** The most whole buckets dropped from the table's oldest end per login: bounded work per call. */
    private static final int EXPIRED_DROPPED_PER_CALL = 4;

    private final AutoLock lock = new AutoLock();
    private final int maxAddresses;
    // Guarded by lock. Access order: the oldest login's address first.
    private final LinkedHashMap<SourceAddress, SourceAddress> table = new LinkedHashMap<>(16, 0.75f, true);
    private final SourceAddress probe = new SourceAddress();
    private long evicted;
    private volatile int addresses;
    private volatile int maxPerAddress = DEFAULT_MAX_PER_ADDRESS;
    private volatile long windowMillis = DEFAULT_WINDOW_MILLIS;

    /** @param maxAddresses the most addresses kept at once, at least 1 */
    public FailedLogins(int maxAddresses) {
        if (maxAddresses < 1) {
            throw new IllegalArgumentException("max addresses must be at least 1: " + maxAddresses);
        }
        this.maxAddresses = maxAddresses;
    }

    /**
     * A login from {@code address} starts: takes one from its bucket.
     *
     * @param address the peer's address, or null when it has none (never limited)
     * @param nowNanos the time now, as {@link System#nanoTime()}
     * @return true when the login may go on; false when the address has no failed login left (nothing taken)
     */
    public boolean tryStart(InetAddress address, long nowNanos) {
        int max = maxPerAddress;
        if (max == 0 || address == null) {
            return true;
        }
        long interval = intervalNanos(max);
        try (AutoLock l = lock.lock()) {
            if (!probe.set(address)) {
                return true;
            }
            dropWhole(nowNanos);
            SourceAddress entry = table.get(probe); // the access makes it the newest
            if (entry == null) {
                if (table.size() >= maxAddresses) {
                    evictOldest();
                }
                entry = new SourceAddress(probe);
                entry.loginsWholeAtNanos = nowNanos;
                table.put(entry, entry);
                addresses = table.size();
            }
            long ahead = entry.loginsWholeAtNanos - nowNanos;
            if (ahead < 0) {
                ahead = 0;
            }
            if (ahead > (max - 1) * interval) {
                return false; // taking one would put it more than max intervals ahead
            }
            entry.loginsWholeAtNanos = nowNanos + ahead + interval;
            return true;
        }
    }

    /** A login from {@code address} that {@link #tryStart} let go on succeeded: gives its login back. */
    public void succeeded(InetAddress address, long nowNanos) {
        int max = maxPerAddress;
        if (max == 0 || address == null) {
            return;
        }
        long interval = intervalNanos(max);
        try (AutoLock l = lock.lock()) {
            if (!probe.set(address)) {
                return;
            }
            SourceAddress entry = table.get(probe);
            if (entry == null) {
                return; // evicted meanwhile: its bucket is whole already
            }
            entry.loginsWholeAtNanos -= interval;
            if (entry.loginsWholeAtNanos - nowNanos <= 0) {
                table.remove(entry);
                addresses = table.size();
            }
        }
    }

    /** {@return how long until {@code address} has a login left again, in milliseconds; 0 when it has one} */
    public long millisUntilAllowed(InetAddress address, long nowNanos) {
        int max = maxPerAddress;
        if (max == 0 || address == null) {
            return 0;
        }
        long interval = intervalNanos(max);
        try (AutoLock l = lock.lock()) {
            if (!probe.set(address)) {
                return 0;
            }
            SourceAddress entry = table.get(probe);
            long wait = entry == null ? 0 : entry.loginsWholeAtNanos - nowNanos - (max - 1) * interval;
            return wait <= 0 ? 0 : (wait + 999_999) / 1_000_000; // rounded up: never "0 ms" while refused
        }
    }

    private long intervalNanos(int max) {
        return Math.max(1, TimeUnit.MILLISECONDS.toNanos(windowMillis) / max);
    }

    /** Under the lock: forgets addresses whose bucket is whole again, from the oldest login on. */
    private void dropWhole(long nowNanos) {
        Iterator<SourceAddress> oldest = table.keySet().iterator();
        for (int i = 0; i < EXPIRED_DROPPED_PER_CALL && oldest.hasNext(); i++) {
            if (oldest.next().loginsWholeAtNanos - nowNanos > 0) {
                break;
            }
            oldest.remove();
        }
        addresses = table.size();
    }

    /** Under the lock: the address of the oldest login goes (its bucket is the nearest to whole). */
    private void evictOldest() {
        Iterator<SourceAddress> oldest = table.keySet().iterator();
        oldest.next();
        oldest.remove();
        evicted++;
    }

    /** {@return the addresses with failed logins counted now (their bucket not whole)} */
    public int getAddresses() {
        return addresses;
    }

    /** {@return the most addresses kept at once} */
    public int getMaxAddresses() {
        return maxAddresses;
    }

    /** {@return addresses forgotten before their bucket was whole, to make room in a full table} */
    public long getEvicted() {
        try (AutoLock l = lock.lock()) {
            return evicted;
        }
    }

    /** {@return the failed logins one address may have in a burst; 0 for no limit} */
    public int getMaxPerAddress() {
        return maxPerAddress;
    }

    /**
     * The failed logins one address may have in a burst, and may have again per {@link #getWindowMillis() window}.
     *
     * @param max the burst, or 0 for no limit (the table is then left as it is, and used again when set back)
     * @throws IllegalArgumentException when {@code max} is negative
     */
    public void setMaxPerAddress(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max failed logins per address must not be negative: " + max);
        }
        this.maxPerAddress = max;
    }

    /** {@return the time in which an address's allowance of failed logins refills whole, in milliseconds} */
    public long getWindowMillis() {
        return windowMillis;
    }

    /**
     * The time in which an address's allowance refills whole: one failed login comes back every
     * {@code window / max}.
     *
     * @param millis at least 1, at most {@value #MAX_WINDOW_MILLIS} (a day)
     * @throws IllegalArgumentException when {@code millis} is out of that range
     */
    public void setWindowMillis(long millis) {
        if (millis < 1 || millis > MAX_WINDOW_MILLIS) {
            throw new IllegalArgumentException("failed logins window must be 1 to " + MAX_WINDOW_MILLIS + " ms: "
                    + millis);
        }
        this.windowMillis = millis;
    }
}
