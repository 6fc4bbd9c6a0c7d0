package io.amqpservlet.jetty;

import java.util.concurrent.TimeUnit;

/** What an attachment that cannot complete TLS does and says of it. */
final class TlsFailures {
    private TlsFailures() {
    }

    /**
     * Waits until the attachment has made its second connection, failing after 10 s. It connects again only after its
     * first connection has failed its handshake, been counted lost and waited out a backoff, so the count read at a
     * fixed time after the start may not be there yet.
     */
    static void awaitSecondConnection(AmqpBrokerAttachment attachment) throws Exception {
        Eventually.until(() -> attachment.getConnectCount() >= 2, () -> "it did not try again: "
                + attachment.getConnectCount() + " connection(s), last failure: " + attachment.getLastFailure());
    }

    /**
     * The attachment's {@link AmqpBrokerAttachment#getLastFailure() last failure} once it names TLS, or the last one
     * seen within 10 s. An attempt's reason may be only that the connection was reset: a broker that refuses the
     * handshake sends its alert and closes, and when this side's first bytes were still unread there, the close
     * resets the connection, which discards the alert before this side reads it. The attempts go on, and most
     * bring the alert.
     */
    static String awaitLastFailure(AmqpBrokerAttachment attachment) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String failure = attachment.getLastFailure();
        while ((failure == null || !failure.startsWith("TLS failed: ")) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            failure = attachment.getLastFailure();
        }
        return String.valueOf(failure);
    }
}
