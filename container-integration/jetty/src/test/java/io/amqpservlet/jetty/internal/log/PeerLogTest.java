package io.amqpservlet.jetty.internal.log;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The allowance of log lines peers cause: per kind, per window, with a count of what was left out. */
class PeerLogTest {
    private long nanos = 1_000;
    private final PeerLog log = new PeerLog(3, 1_000, () -> nanos);

    private void advanceMillis(long millis) {
        nanos += TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void linesBeyondTheAllowanceAreLeftOutAndTheNextLineLoggedCountsThem() {
        assertEquals(0, log.permit(PeerLog.Kind.FAILED_LOGIN));
        assertEquals(0, log.permit(PeerLog.Kind.FAILED_LOGIN));
        assertEquals(0, log.permit(PeerLog.Kind.FAILED_LOGIN));
        for (int i = 0; i < 5; i++) {
            assertEquals(-1, log.permit(PeerLog.Kind.FAILED_LOGIN), "the fourth line and after, in the same window");
        }
        advanceMillis(999);
        assertEquals(-1, log.permit(PeerLog.Kind.FAILED_LOGIN), "still the same window");
        advanceMillis(1);
        assertEquals(6, log.permit(PeerLog.Kind.FAILED_LOGIN), "a new window: the six left out are counted");
        assertEquals(0, log.permit(PeerLog.Kind.FAILED_LOGIN), "and only once");
    }

    @Test
    void eachKindHasItsOwnAllowance() {
        for (int i = 0; i < 3; i++) {
            log.permit(PeerLog.Kind.PEER_ERROR);
        }
        assertEquals(-1, log.permit(PeerLog.Kind.PEER_ERROR));
        assertEquals(0, log.permit(PeerLog.Kind.REFUSAL), "a flood of errors does not hide a refusal");
        assertEquals(0, log.permit(PeerLog.Kind.FAILED_LOGIN));
    }

    @Test
    void theEndOfALineSaysHowManyWereLeftOut() {
        assertEquals("", PeerLog.leftOut(0));
        assertEquals(" (12 more like this not logged)", PeerLog.leftOut(12));
    }

    @Test
    void anAddressIsHostAndPort() {
        assertEquals("127.0.0.1:5672", PeerLog.address(new InetSocketAddress("127.0.0.1", 5672)));
        assertEquals("unknown", PeerLog.address(null));
    }
}
