package io.amqpservlet.client;

import java.net.URI;

/**
 * Where an {@code amqp[s]://host[:port]/path[?query]} URL sends a request: the node its sending link is attached
 * to, and the request-target its messages carry in {@code to}.
 *
 * <p>The path names the node as Proton and Qpid read such URLs: without the {@code /} that separates it from the
 * authority, and percent-decoded. {@code amqp://host/orders} is the node {@code orders}; a node whose name starts
 * with a slash is written with two, {@code amqp://host//orders} (or {@code amqp://host/%2Forders}), and is the node
 * {@code /orders}. Attach mode reads a broker URI the same way, so a client and a gateway given the same URL meet at
 * the same queue. A URL without a path (or with {@code /} alone) names no node: the sender goes to the anonymous
 * relay (a null target, AMQP 1.0 §3.5.3 with the {@code ANONYMOUS-RELAY} capability) and {@code to} alone routes.
 *
 * <p>The request-target is what a server makes of the node when a message has no {@code to} (a bare name gets a
 * leading {@code /}: {@code orders} and {@code /orders} both become {@code /orders}), still percent-encoded as
 * the URL wrote it, followed by the URL's query. The query is never part of the node.
 *
 * @param node the link address, or null for the anonymous relay
 * @param target the request-target: an absolute path with the query, if any
 */
public record AmqpAddress(String node, String target) {
    /**
     * Reads the node and request-target of {@code url}, a parsed {@code amqp://} or {@code amqps://} URL (the
     * scheme, host and port are the caller's).
     *
     * @param url the URL
     * @return its node and request-target
     */
    public static AmqpAddress of(URI url) {
        String rawPath = url.getRawPath() == null ? "" : url.getRawPath();
        String rawNode = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
        String query = url.getRawQuery() == null ? "" : "?" + url.getRawQuery();
        if (rawNode.isEmpty()) {
            return new AmqpAddress(null, "/" + query);
        }
        String node = url.getPath().startsWith("/") ? url.getPath().substring(1) : url.getPath();
        String path;
        if (rawNode.startsWith("/")) {
            path = rawNode;
        } else if (rawNode.regionMatches(true, 0, "%2F", 0, 3)) {
            path = "/" + rawNode.substring(3); // the escaped slash that starts the node is the target's own
        } else {
            path = "/" + rawNode;
        }
        return new AmqpAddress(node, path + query);
    }

    /**
     * As {@link #of(URI)}, with the request-target given apart from the URL (the {@code request} command's
     * {@code --to}): the URL then names only the node.
     *
     * @param url the URL
     * @param target the request-target to send in {@code to}
     * @return the URL's node and {@code target}
     */
    public static AmqpAddress of(URI url, String target) {
        return new AmqpAddress(of(url).node(), target);
    }
}
