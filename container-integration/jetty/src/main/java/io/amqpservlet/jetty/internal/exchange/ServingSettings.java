package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.jetty.internal.log.PeerLog;

/**
 * How the connections of one factory (or broker attachment) serve requests: made once from the factory's settings
 * and shared, never changed, by every connection made with them.
 *
 * @param serverName the host of requests that name none (docs/design.md §3's Host rule)
 * @param maxHeaderChars the most characters a request's method, target and headers may hold together (the HTTP
 *                       configuration's request header size, as Jetty's HTTP connections apply it)
 * @param linkCredit the credit kept open on each link a client sends requests on
 * @param requestTimeoutMillis how long a request may take before it is answered 503; 0 for no limit
 * @param responseBufferBytes how many body bytes of a response without Content-Length are held to go as one section
 * @param qpidJmsHeartbeatMillis the idle-time-out announced to Qpid JMS clients; 0 to announce the usual one
 * @param counters where the requests of these connections are counted
 * @param users how a SASL identity becomes the Jetty authentication of a connection's requests
 * @param peerLog the allowance of log lines the peers of these connections cause
 */
public record ServingSettings(String serverName, int maxHeaderChars, int linkCredit, long requestTimeoutMillis,
                              int responseBufferBytes, long qpidJmsHeartbeatMillis, RequestCounters counters,
                              SaslUsers users, PeerLog peerLog) {
}
