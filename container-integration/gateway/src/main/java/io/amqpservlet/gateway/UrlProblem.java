package io.amqpservlet.gateway;

import java.net.URI;

/**
 * Says what is wrong with an {@code amqp://} URL that {@link URI} parsed without a host: {@code URI} then keeps the
 * authority whole (a "registry-based" authority, RFC 2396 §3.2), so a bad port shows up only as a missing host.
 */
final class UrlProblem {
    private UrlProblem() {
    }

    static String describe(URI uri, String url) {
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            return "no host in " + url;
        }
        String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
        int colon = hostPort.lastIndexOf(':');
        if (colon >= 0 && hostPort.indexOf(']') < colon) {
            String port = hostPort.substring(colon + 1);
            if (!port.matches("\\d{1,5}") || Integer.parseInt(port) > 65535) {
                return "invalid port '" + port + "' in " + url + " (want a number from 1 to 65535)";
            }
            hostPort = hostPort.substring(0, colon);
        }
        return "invalid host '" + hostPort + "' in " + url;
    }
}
