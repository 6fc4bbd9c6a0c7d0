package io.amqpservlet.jetty.internal.budget;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One source address and what it holds of its budget now: open connections, and handshakes with the oldest and
 * newest of them (the ends of its list, which {@link HandshakeQueue} keeps). An
 * IPv4 address counts alone; an IPv6 address counts with its /64, the smallest block a network hands one
 * subscriber, since an IPv6 host can take a new address of its /64 for every connection.
 *
 * <p>Equal by address (or /64), so that a probe set from a peer's address finds the record in
 * {@link ServerBudget}'s table. Guarded by the budget's lock, as are the counts. {@link FailedLogins} keys its table
 * of failed logins the same way, with records of its own.
 */
final class SourceAddress {
    /** An IPv4 address in the low 32 bits, or the /64 of an IPv6 one. */
    private long bits;
    private boolean ipv6;
    // Written under the budget's lock; volatile for ServerBudget.add, which reads them without it.
    volatile int connections;
    volatile int handshakes;
    /** What the streamed requests of its connections reserve now ({@link ServerBudget#admitStream}). */
    long streamBytes;
    private static final VarHandle BYTES;

    static {
        try {
            BYTES = MethodHandles.lookup().findVarHandle(SourceAddress.class, "bytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The bytes its connections buffer now, of the byte budget (atomic, no lock: counted as the connections count
     * theirs).
     */
    private volatile long bytes;
    /** Whether its connections reached half the byte budget and that was logged; cleared once they are under it. */
    volatile boolean atShare;
    /** Its connections waiting for the address to give bytes back ({@link ServerBudget#holdsItsShare}); or null. */
    private volatile ConcurrentLinkedQueue<Runnable> roomWaiters;
    /** What the partial frames of its connections reserve now ({@link ServerBudget#admitPartialFrame}). */
    long frameBytes;
    /** Its connections whose partial frame waits for the address's share of the room; null when none ever has. */
    private ArrayDeque<Runnable> frameWaiters;
    HandshakeQueue.Handshake oldestHandshake;
    HandshakeQueue.Handshake newestHandshake;
    /** In {@link FailedLogins}' table (a record of its own, guarded by its lock): when its bucket is whole again. */
    long loginsWholeAtNanos;

    /** A probe, set with {@link #set} before each look-up. */
    SourceAddress() {
    }

    /** A record for the table, with the probe's address. */
    SourceAddress(SourceAddress probe) {
        this.bits = probe.bits;
        this.ipv6 = probe.ipv6;
    }

    /**
     * Takes {@code address} (an IPv4-mapped IPv6 address as the IPv4 address it carries).
     *
     * @return false when it is no IP address (nothing is counted per address then)
     */
    boolean set(InetAddress address) {
        byte[] b;
        if (address instanceof Inet4Address) {
            b = address.getAddress();
            bits = ipv4(b, 0);
            ipv6 = false;
            return true;
        }
        if (address instanceof Inet6Address) {
            b = address.getAddress();
            if (isIpv4Mapped(b)) {
                bits = ipv4(b, 12);
                ipv6 = false;
            } else {
                long prefix = 0;
                for (int i = 0; i < 8; i++) {
                    prefix = prefix << 8 | (b[i] & 0xFF);
                }
                bits = prefix;
                ipv6 = true;
            }
            return true;
        }
        return false;
    }

    private static long ipv4(byte[] b, int at) {
        return (b[at] & 0xFFL) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    /** {@code ::ffff:a.b.c.d} (RFC 4291 §2.5.5.2): an IPv4 client of a dual-stack socket. */
    private static boolean isIpv4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
    }

    /**
     * Whether no connection of this address is counted any more, nor any byte (requests of closed connections that a
     * servlet still holds): the table forgets it.
     */
    boolean isEmpty() {
        return connections == 0 && handshakes == 0 && bytes == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourceAddress s && s.bits == bits && s.ipv6 == ipv6;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bits * 0x9E3779B97F4A7C15L) ^ (ipv6 ? 1 : 0);
    }

    /** {@return the address as text: {@code 192.0.2.7}, or an IPv6 /64 as {@code 2001:db8:0:1::/64}} */
    @Override
    public String toString() {
        if (!ipv6) {
            return (bits >>> 24 & 0xFF) + "." + (bits >>> 16 & 0xFF) + "." + (bits >>> 8 & 0xFF) + "." + (bits & 0xFF);
        }
        return Long.toHexString(bits >>> 48) + ":" + Long.toHexString(bits >>> 32 & 0xFFFF) + ":"
                + Long.toHexString(bits >>> 16 & 0xFFFF) + ":" + Long.toHexString(bits & 0xFFFF) + "::/64";
    }

    /** Whether a partial frame of {@code bytes} fits the address's share {@code cap} (always when it holds none). */
    boolean hasFrameRoom(long bytes, long cap) {
        return frameBytes == 0 || frameBytes + bytes <= cap;
    }

    /** {@code task} runs when this address next gives back a partial frame's reservation. */
    void waitForFrameRoom(Runnable task) {
        if (frameWaiters == null) {
            frameWaiters = new ArrayDeque<>(4);
        }
        frameWaiters.add(task);
    }

    /**
     * A reservation of {@code bytes} came back: the waiting connections the address's share {@code cap} now has
     * room for, and one more (a woken connection may find its frame gone), to run once the lock is let go.
     *
     * @return the tasks, or null when none waits
     */
    Runnable[] takeFrameWaiters(long bytes, long cap) {
        if (frameWaiters == null || frameWaiters.isEmpty()) {
            return null;
        }
        long room = Math.max(0, cap - frameBytes);
        long wakes = Math.min(frameWaiters.size(), 1 + room / Math.max(1, bytes));
        Runnable[] tasks = new Runnable[(int) wakes];
        for (int i = 0; i < tasks.length; i++) {
            tasks[i] = frameWaiters.poll();
        }
        return tasks;
    }

    /** Every connection waiting for the address's share, into {@code tasks} (the budget's size changed). */
    void takeAllFrameWaiters(List<Runnable> tasks) {
        if (frameWaiters != null) {
            tasks.addAll(frameWaiters);
            frameWaiters.clear();
        }
    }

    /** Adds {@code delta} to the bytes its connections buffer; {@return the bytes they buffer now} */
    long addBytes(long delta) {
        return (long) BYTES.getAndAdd(this, delta) + delta;
    }

    /** {@return the bytes its connections buffer now} */
    long bytes() {
        return bytes;
    }

    /**
     * {@code task} runs when its connections next give bytes back below the address's share.
     *
     * @return true (so a caller can check the share again after the offer)
     */
    boolean waitForRoom(Runnable task) {
        ConcurrentLinkedQueue<Runnable> q = roomWaiters;
        if (q == null) {
            synchronized (this) {
                q = roomWaiters;
                if (q == null) {
                    q = new ConcurrentLinkedQueue<>();
                    roomWaiters = q;
                }
            }
        }
        return q.offer(task);
    }

    /** Runs every task waiting for the address to give bytes back. */
    void wakeRoomWaiters() {
        ConcurrentLinkedQueue<Runnable> q = roomWaiters;
        Runnable task;
        while (q != null && (task = q.poll()) != null) {
            task.run();
        }
    }
}
