package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.jetty.internal.log.PeerLog;

import java.util.List;

/**
 * How the links of an attachment's connections behave, fixed when the attachment starts.
 *
 * @param addresses the request addresses: a receiving link on each
 * @param credit the credit kept on each request link (the attachment's capacity per address)
 * @param attachTimeoutMillis how long the broker has to answer each attach (and the connection's handshake)
 * @param maxReplyLinks how many reply senders may be attached at once when the broker has no anonymous relay
 * @param replyLinkIdleTimeoutMillis how long a reply sender with nothing in flight stays attached
 * @param atMostOnce requests and responses pre-settled: nothing is settled after the fact (docs/attach.md,
 *                   "At most once")
 * @param peerLog the allowance of log lines the broker causes (the attachment's factory's)
 */
public record AttachSettings(List<String> addresses, int credit, long attachTimeoutMillis, int maxReplyLinks,
                             long replyLinkIdleTimeoutMillis, boolean atMostOnce, PeerLog peerLog) {
    public AttachSettings {
        addresses = List.copyOf(addresses);
    }
}
