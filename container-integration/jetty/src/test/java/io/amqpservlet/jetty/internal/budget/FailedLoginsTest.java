package io.amqpservlet.jetty.internal.budget;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The token bucket of failed logins per source address ({@link FailedLogins}), on a clock the test moves: a burst of
 * {@code max}, one back every {@code window / max}, a success given back, addresses keyed as the connection limits
 * key them, and a table that never holds more than its cap however many addresses fail.
 */
class FailedLoginsTest {
    private static final long SECOND = 1_000_000_000L;
    /** Any start: nanoTime values may be negative, and only differences count. */
    private static final long T0 = -7 * SECOND;

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** 10 per 60 s: one back every 6 s. */
    private static FailedLogins tenPerMinute(int maxAddresses) {
        FailedLogins logins = new FailedLogins(maxAddresses);
        logins.setMaxPerAddress(10);
        logins.setWindowMillis(60_000);
        return logins;
    }

    @Test
    void anAddressFailsItsBurstThenGetsOneBackPerInterval() {
        FailedLogins logins = tenPerMinute(100);
        InetAddress a = ip("192.0.2.7");
        for (int i = 0; i < 10; i++) {
            assertTrue(logins.tryStart(a, T0), "login " + i);
        }
        assertFalse(logins.tryStart(a, T0), "the 11th at once");
        assertEquals(6_000, logins.millisUntilAllowed(a, T0));
        assertFalse(logins.tryStart(a, T0 + 6 * SECOND - 1), "not before the interval");
        assertTrue(logins.tryStart(a, T0 + 6 * SECOND), "one back after 6 s");
        assertFalse(logins.tryStart(a, T0 + 6 * SECOND), "and only one");
        assertTrue(logins.tryStart(ip("192.0.2.8"), T0), "another address is not affected");
        // A whole window later the burst is whole again, and the address is forgotten once it is.
        long later = T0 + 6 * SECOND + 60 * SECOND;
        for (int i = 0; i < 10; i++) {
            assertTrue(logins.tryStart(a, later), "login " + i + " a window later");
        }
        assertFalse(logins.tryStart(a, later));
    }

    @Test
    void aLoginThatSucceedsGivesItsLoginBack() {
        FailedLogins logins = tenPerMinute(100);
        InetAddress a = ip("192.0.2.7");
        for (int i = 0; i < 100; i++) {
            assertTrue(logins.tryStart(a, T0), "successful login " + i);
            logins.succeeded(a, T0);
        }
        assertEquals(0, logins.getAddresses(), "a whole bucket is not kept");
        for (int i = 0; i < 9; i++) {
            assertTrue(logins.tryStart(a, T0));
        }
        assertTrue(logins.tryStart(a, T0), "the 10th");
        logins.succeeded(a, T0);
        assertTrue(logins.tryStart(a, T0), "the 10th again, as the last one succeeded");
        assertFalse(logins.tryStart(a, T0));
    }

    @Test
    void addressesAreKeyedAsTheConnectionLimitsKeyThem() {
        FailedLogins logins = tenPerMinute(100);
        logins.setMaxPerAddress(1);
        assertTrue(logins.tryStart(ip("2001:db8:0:1::1"), T0));
        assertFalse(logins.tryStart(ip("2001:db8:0:1:ffff::2"), T0), "the same /64");
        assertTrue(logins.tryStart(ip("2001:db8:0:2::1"), T0), "another /64");
        assertTrue(logins.tryStart(ip("192.0.2.7"), T0));
        assertFalse(logins.tryStart(ip("::ffff:192.0.2.7"), T0), "an IPv4-mapped address is its IPv4 address");
        assertTrue(logins.tryStart(null, T0), "no address: never limited");
    }

    @Test
    void zeroTurnsItOff() {
        FailedLogins logins = tenPerMinute(100);
        logins.setMaxPerAddress(0);
        InetAddress a = ip("192.0.2.7");
        for (int i = 0; i < 1_000; i++) {
            assertTrue(logins.tryStart(a, T0));
        }
        assertEquals(0, logins.getAddresses());
    }

    @Test
    void theTableHoldsAtMostItsCapAndAFullTableEvictsTheOldestNeverRefusingANewAddress() {
        int cap = 1_000;
        FailedLogins logins = tenPerMinute(cap);
        InetAddress victim = ip("10.0.0.1");
        for (int i = 0; i < 10; i++) {
            assertTrue(logins.tryStart(victim, T0));
        }
        assertFalse(logins.tryStart(victim, T0));
        // Many addresses fail once each, later than the victim's last login: the table stays at its cap.
        for (int i = 0; i < 50_000; i++) {
            InetAddress other = ip("172.16." + (i >> 8 & 0xFF) + "." + (i & 0xFF));
            if (i >= 256 * 256) {
                break;
            }
            assertTrue(logins.tryStart(other, T0 + SECOND + i), "a new address is never refused: " + other);
            assertTrue(logins.getAddresses() <= cap, "table size " + logins.getAddresses());
        }
        assertEquals(cap, logins.getAddresses());
        assertEquals(50_000 + 1 - cap, logins.getEvicted());
        // The victim's entry, the oldest, went first: its bucket is whole again.
        assertTrue(logins.tryStart(victim, T0 + 2 * SECOND));

        // An address refused recently counts as recent, so it is not the one evicted.
        FailedLogins small = tenPerMinute(2);
        InetAddress a = ip("10.0.0.1");
        InetAddress b = ip("10.0.0.2");
        for (int i = 0; i < 10; i++) {
            assertTrue(small.tryStart(a, T0));
        }
        assertTrue(small.tryStart(b, T0 + 1));
        assertFalse(small.tryStart(a, T0 + 2), "a refused, and now the most recent");
        assertTrue(small.tryStart(ip("10.0.0.3"), T0 + 3), "a new address evicts b, the oldest");
        assertFalse(small.tryStart(a, T0 + 4), "a is still out of failed logins");
    }

    @Test
    void addressesWhoseBucketIsWholeAgainAreForgotten() {
        FailedLogins logins = tenPerMinute(100);
        for (int i = 0; i < 50; i++) {
            assertTrue(logins.tryStart(ip("192.0.2." + i), T0));
        }
        assertEquals(50, logins.getAddresses());
        // One failure is whole again after 6 s: later logins drop a few of the oldest each.
        long later = T0 + 7 * SECOND;
        for (int i = 0; i < 20; i++) {
            assertTrue(logins.tryStart(ip("198.51.100." + i), later));
        }
        assertEquals(20, logins.getAddresses(), "the 50 whole ones are gone");
        assertEquals(0, logins.getEvicted());
    }
}
