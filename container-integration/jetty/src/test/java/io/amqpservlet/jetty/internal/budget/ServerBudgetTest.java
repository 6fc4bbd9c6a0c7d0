package io.amqpservlet.jetty.internal.budget;

import io.amqpservlet.jetty.internal.log.PeerLog;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection counts of a {@link ServerBudget}, server-wide and per source address, and the eviction rule: when a
 * handshake limit is full, the oldest handshake that has stalled goes first (of the new connection's address, else
 * server-wide), never the newcomer while one has; the newcomer is refused only when none has.
 */
class ServerBudgetTest {
    private static final long STALLED = ServerBudget.HANDSHAKE_STALLED_MILLIS;
    private final ServerBudget budget = new ServerBudget(new PeerLog());

    /** A connection's share that records whether the budget ended its handshake. */
    private final class Peer implements BudgetShare.Owner {
        final BudgetShare share = new BudgetShare(budget, this);
        final InetAddress address;
        boolean evicted;

        Peer(String address) {
            this.address = ip(address);
        }

        @Override
        public void evicted() {
            evicted = true;
        }

        Limit start(long nowMillis) {
            return share.startHandshake(address, nowMillis);
        }
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private List<Peer> handshakes(String address, int n, long nowMillis) {
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Peer p = new Peer(address);
            assertNull(p.start(nowMillis), "handshake " + i + " from " + address);
            peers.add(p);
        }
        return peers;
    }

    @Test
    void oneAddressIsRefusedPastItsConnectionLimitWhileAnotherIsServed() {
        budget.setMaxConnectionsPerAddress(3);
        for (Peer p : handshakes("192.0.2.1", 3, 0)) {
            assertNull(p.share.opened());
        }
        Peer fourth = new Peer("192.0.2.1");
        assertNull(fourth.start(0), "its handshake is counted");
        assertEquals(Limit.CONNECTIONS_PER_ADDRESS, fourth.share.opened());
        assertEquals("192.0.2.1 has 3 AMQP connections open, the limit per source address (maxConnectionsPerAddress)",
                fourth.share.refusal(Limit.CONNECTIONS_PER_ADDRESS));
        Peer other = new Peer("192.0.2.2");
        assertNull(other.start(0));
        assertNull(other.share.opened(), "another address has its own count");
        assertEquals(4, budget.getConnections());
        assertEquals(1, budget.getRefusedConnections(Limit.CONNECTIONS_PER_ADDRESS));
        assertEquals(1, budget.getRefusedConnections());
    }

    @Test
    void theServerWideConnectionLimitRefusesWhateverTheAddress() {
        budget.setMaxConnections(2);
        handshakes("192.0.2.1", 1, 0).get(0).share.opened();
        handshakes("192.0.2.2", 1, 0).get(0).share.opened();
        Peer third = handshakes("192.0.2.3", 1, 0).get(0);
        assertEquals(Limit.CONNECTIONS, third.share.opened());
        assertEquals("the server has 2 AMQP connections open, its limit (maxConnections)",
                third.share.refusal(Limit.CONNECTIONS));
    }

    @Test
    void aFullAddressRefusesItsNewcomerUntilItsOldestHandshakeHasStalledThenEndsThatOne() {
        budget.setMaxHandshakesPerAddress(3);
        List<Peer> first = handshakes("192.0.2.1", 2, 0);
        Peer third = handshakes("192.0.2.1", 1, 500).get(0);
        // None has stalled yet: the newcomer is the one refused (closed before any frame).
        Peer early = new Peer("192.0.2.1");
        assertEquals(Limit.HANDSHAKES_PER_ADDRESS, early.start(STALLED - 1));
        assertEquals(1, budget.getRefusedConnections(Limit.HANDSHAKES_PER_ADDRESS));
        // Once the oldest has stalled, it goes, and the newcomer takes its place.
        Peer late = new Peer("192.0.2.1");
        assertNull(late.start(STALLED));
        assertTrue(first.get(0).evicted, "the oldest handshake of the address ended");
        assertFalse(first.get(1).evicted);
        assertFalse(third.evicted);
        assertEquals(3, budget.getHandshakingConnections());
        assertEquals(1, budget.getEvictedHandshakes(Limit.HANDSHAKES_PER_ADDRESS));
        // The next newcomer takes the next oldest; the one that started later is not stalled yet.
        assertNull(new Peer("192.0.2.1").start(STALLED));
        assertTrue(first.get(1).evicted);
        assertEquals(Limit.HANDSHAKES_PER_ADDRESS, new Peer("192.0.2.1").start(STALLED + 1));
        assertFalse(third.evicted);
        // An evicted connection whose open arrives before it closes is refused, and its close counts nothing twice.
        assertEquals(Limit.HANDSHAKES_PER_ADDRESS, first.get(0).share.opened());
        first.get(0).share.close();
        first.get(1).share.close();
        assertEquals(3, budget.getHandshakingConnections());
    }

    @Test
    void anAddressAllowedOneHandshakeKeepsOneRecordWhenItsOnlyHandshakeMakesRoom() {
        budget.setMaxHandshakesPerAddress(1);
        Peer stalled = handshakes("192.0.2.1", 1, 0).get(0);
        Peer next = new Peer("192.0.2.1");
        assertNull(next.start(STALLED));
        assertTrue(stalled.evicted);
        assertEquals(1, budget.getSourceAddresses());
        assertEquals("192.0.2.1: 0 open, 1 in handshake", budget.getBusiestSourceAddress());
        assertEquals(Limit.HANDSHAKES_PER_ADDRESS, new Peer("192.0.2.1").start(STALLED + 1), "counted in the table");
        next.share.close();
        assertEquals(0, budget.getSourceAddresses());
    }

    @Test
    void aFullServerEndsItsOldestStalledHandshakeWhateverTheAddressNotTheNewcomer() {
        budget.setMaxHandshakingConnections(4);
        Peer a = handshakes("192.0.2.1", 1, 0).get(0);
        Peer b = handshakes("192.0.2.2", 1, 100).get(0);
        List<Peer> c = handshakes("192.0.2.3", 2, 200);
        assertEquals(Limit.HANDSHAKES, new Peer("192.0.2.9").start(STALLED - 1), "none stalled: refused");
        Peer newcomer = new Peer("192.0.2.9");
        assertNull(newcomer.start(STALLED + 100));
        assertTrue(a.evicted);
        assertFalse(b.evicted);
        assertNull(new Peer("192.0.2.10").start(STALLED + 150));
        assertTrue(b.evicted, "oldest first, across addresses");
        assertFalse(c.get(0).evicted);
        assertNull(newcomer.share.opened(), "the newcomer finishes its handshake");
        assertEquals(2, budget.getEvictedHandshakes(Limit.HANDSHAKES));
        assertEquals(1, budget.getRefusedConnections(Limit.HANDSHAKES));
    }

    @Test
    void aConnectionRefusedAtItsOpenStaysAHandshakeUntilItClosesAndGoesFirstOnceStalled() {
        budget.setMaxConnectionsPerAddress(1);
        budget.setMaxHandshakesPerAddress(2);
        assertNull(handshakes("192.0.2.1", 1, 0).get(0).share.opened());
        Peer refused = handshakes("192.0.2.1", 1, 0).get(0);
        assertEquals(Limit.CONNECTIONS_PER_ADDRESS, refused.share.opened());
        assertEquals(1, budget.getHandshakingConnections(), "it costs a handshake until the peer answers our close");
        Peer waiting = handshakes("192.0.2.1", 1, 10).get(0);
        assertNull(new Peer("192.0.2.1").start(STALLED));
        assertTrue(refused.evicted, "the refused one, the oldest, made room");
        assertFalse(waiting.evicted);
        refused.share.close();
        assertEquals(2, budget.getHandshakingConnections());
        assertEquals(1, budget.getConnections());
    }

    @Test
    void theTableForgetsAnAddressWithItsLastConnection() {
        Peer one = handshakes("192.0.2.1", 1, 0).get(0);
        Peer two = handshakes("192.0.2.1", 1, 0).get(0);
        Peer other = handshakes("192.0.2.2", 1, 0).get(0);
        assertNull(one.share.opened());
        assertEquals(2, budget.getSourceAddresses());
        assertEquals("192.0.2.1: 1 open, 1 in handshake", budget.getBusiestSourceAddress());
        one.share.close();
        two.share.close();
        assertEquals(1, budget.getSourceAddresses());
        other.share.close();
        other.share.close(); // twice: counted once
        assertEquals(0, budget.getSourceAddresses());
        assertEquals(0, budget.getHandshakingConnections());
        assertEquals(0, budget.getConnections());
        assertEquals("", budget.getBusiestSourceAddress());
    }

    @Test
    void anIpv6AddressCountsWithItsSlash64AndAMappedIpv4AddressAsIpv4() {
        budget.setMaxConnectionsPerAddress(2);
        assertNull(handshakes("2001:db8:0:1::a", 1, 0).get(0).share.opened());
        assertNull(handshakes("2001:db8:0:1::b", 1, 0).get(0).share.opened());
        Peer sameSlash64 = handshakes("2001:db8:0:1:ffff::c", 1, 0).get(0);
        assertEquals(Limit.CONNECTIONS_PER_ADDRESS, sameSlash64.share.opened());
        assertTrue(sameSlash64.share.refusal(Limit.CONNECTIONS_PER_ADDRESS).startsWith("2001:db8:0:1::/64 has 2"));
        assertNull(handshakes("2001:db8:0:2::a", 1, 0).get(0).share.opened(), "another /64");
        // ::ffff:192.0.2.1 is 192.0.2.1 (InetAddress makes it an Inet4Address; the table maps it the same way).
        assertNull(handshakes("192.0.2.1", 1, 0).get(0).share.opened());
        assertNull(handshakes("::ffff:192.0.2.1", 1, 0).get(0).share.opened());
        assertEquals(Limit.CONNECTIONS_PER_ADDRESS, handshakes("192.0.2.1", 1, 0).get(0).share.opened());
    }

    @Test
    void withoutPerAddressLimitsNoAddressIsCounted() {
        ServerBudget attachment = ServerBudget.withoutAddressLimits();
        BudgetShare share = new BudgetShare(attachment, () -> { });
        assertNull(share.startHandshake(ip("192.0.2.1"), 0));
        assertNull(share.opened());
        assertEquals(0, attachment.getSourceAddresses());
        assertEquals(1, attachment.getConnections());
        share.close();
        assertEquals(0, attachment.getConnections());
    }

    @Test
    void aConnectionWithoutAnIpAddressCountsServerWideOnly() {
        BudgetShare share = new BudgetShare(budget, () -> { });
        assertNull(share.startHandshake(null, 0));
        assertNull(share.opened());
        assertEquals(0, budget.getSourceAddresses());
        assertEquals(1, budget.getConnections());
    }

    @Test
    void oneAddressBuffersHalfTheBudgetThenItsConnectionsWaitForItsOwnBytesWhileAnotherAddressGoesOn() {
        budget.setMaxBufferedBytes(1000);
        Peer first = handshakes("192.0.2.1", 1, 0).get(0);
        Peer second = handshakes("192.0.2.1", 1, 0).get(0);
        Peer other = handshakes("192.0.2.2", 1, 0).get(0);
        first.share.outputBytes(300);
        second.share.outputBytes(199);
        assertFalse(second.share.isExhausted(), "499 of the address's 500");
        second.share.outputBytes(200);
        assertTrue(first.share.isExhausted() && second.share.isExhausted(), "500: the address's half");
        assertFalse(budget.isExhausted(), "the server has room");
        assertFalse(other.share.isExhausted());
        assertTrue(other.share.takesRequests());
        assertFalse(second.share.takesRequests());
        assertEquals(1, budget.requestsReleasedPerAddress());

        List<String> woken = new ArrayList<>();
        second.share.whenRoom(() -> woken.add("second"));
        other.share.outputBytes(400); // another address's bytes do not wake it
        other.share.outputBytes(0);
        assertEquals(List.of(), woken);
        first.share.outputBytes(299);
        assertEquals(List.of("second"), woken, "its address gave a byte back");
        assertFalse(second.share.isExhausted());

        other.share.outputBytes(10);
        other.share.whenRoom(() -> woken.add("other, at once"));
        assertEquals(List.of("second", "other, at once"), woken, "nothing used up: at once");

        // Used up server-wide: the wait is the server's, whoever's bytes come back.
        other.share.outputBytes(600);
        assertTrue(budget.isExhausted());
        first.share.whenRoom(() -> woken.add("first"));
        other.share.outputBytes(100);
        assertEquals(List.of("second", "other, at once", "first"), woken);

        first.share.close();
        second.share.close();
        other.share.close();
        assertEquals(0, budget.getBufferedBytes());
    }

    @Test
    void aPartialFrameHeldBackByItsAddressWaitsForThatAddressAndIsWokenWhenTheBudgetGrows() {
        budget.setMaxBufferedBytes(4000); // partial frames: 2,000; per address 1,000
        Peer a1 = handshakes("192.0.2.1", 1, 0).get(0);
        Peer a2 = handshakes("192.0.2.1", 1, 0).get(0);
        Peer a3 = handshakes("192.0.2.1", 1, 0).get(0);
        Peer b = handshakes("192.0.2.2", 1, 0).get(0);
        assertTrue(a1.share.admitPartialFrame(500));
        assertTrue(a2.share.admitPartialFrame(500));
        assertFalse(a3.share.admitPartialFrame(500), "the address's 1,000 are taken");
        List<String> woken = new ArrayList<>();
        a3.share.whenFrameRoom(() -> woken.add("a3"), 500);
        assertEquals(1, budget.framesHeldPerAddress());
        assertTrue(b.share.admitPartialFrame(500), "another address has room beside them");
        b.share.partialFrameDone();
        assertEquals(List.of(), woken, "another address's frame does not wake it");
        a1.share.partialFrameDone();
        assertEquals(List.of("a3"), woken);
        assertTrue(a3.share.admitPartialFrame(500));

        assertFalse(a1.share.admitPartialFrame(500));
        a1.share.whenFrameRoom(() -> woken.add("a1"), 500);
        budget.setMaxBufferedBytes(8000);
        assertEquals(List.of("a3", "a1"), woken, "the address's share grew with the budget");
        assertTrue(a1.share.admitPartialFrame(500));
        for (Peer p : List.of(a1, a2, a3, b)) {
            p.share.close();
        }
        assertEquals(0, budget.partialFrameReserved());
    }
}
