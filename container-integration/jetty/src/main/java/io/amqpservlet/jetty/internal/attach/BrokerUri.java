package io.amqpservlet.jetty.internal.attach;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A broker URI of attach mode, {@code amqp[s]://[user[:password]@]host[:port][,host[:port]...]/address}, taken apart
 * ({@link AmqpBrokerAttachment#setUri}): the hosts are the failover list, user and password are percent-decoded, the
 * path without its first {@code /} is the request address (percent-decoded, so {@code //queue/x} and
 * {@code /%2Fqueue/x} name {@code /queue/x}). That is how Proton and Qpid read a URL's path, and how the
 * {@code request} command and the load generator read theirs, so a client and a gateway given the same URL meet at
 * the same queue. {@code amqps} means TLS, port 5671 by default; {@code amqp} port 5672.
 *
 * @param secure whether the scheme is {@code amqps}
 * @param brokers the hosts in the order given
 * @param user the user for SASL PLAIN, or null for none
 * @param password the password, empty when the URI names a user without one; null without a user
 * @param address the request address
 */
public record BrokerUri(boolean secure, List<HostPort> brokers, String user, String password, String address) {
    /** One broker of the failover list. */
    public record HostPort(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /** Parses {@code uri}; an {@link IllegalArgumentException} says what is wrong with it. */
    public static BrokerUri parse(String uri) {
        Objects.requireNonNull(uri, "uri");
        int schemeEnd = uri.indexOf("://");
        if (schemeEnd < 0) {
            throw new IllegalArgumentException("not an amqp:// or amqps:// URI: " + uri);
        }
        String scheme = uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        if (!scheme.equals("amqp") && !scheme.equals("amqps")) {
            throw new IllegalArgumentException("the scheme must be amqp or amqps: " + uri);
        }
        boolean secure = scheme.equals("amqps");
        String rest = uri.substring(schemeEnd + 3);
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        int at = authority.lastIndexOf('@');
        String user = null;
        String password = null;
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? "" : decode(userInfo.substring(colon + 1));
        }
        List<HostPort> brokers = new ArrayList<>();
        for (String hostPort : authority.split(",")) {
            brokers.add(hostPort(hostPort.trim(), secure ? AmqpBrokerAttachment.DEFAULT_TLS_PORT
                    : AmqpBrokerAttachment.DEFAULT_PORT, uri));
        }
        if (path.isEmpty()) {
            throw new IllegalArgumentException("the URI names no request address (amqp://host/address): " + uri);
        }
        if (path.indexOf('?') >= 0) {
            throw new IllegalArgumentException("broker URIs take no query: " + uri);
        }
        return new BrokerUri(secure, List.copyOf(brokers), user, password, decode(path));
    }

    private static HostPort hostPort(String hostPort, int defaultPort, String uri) {
        if (hostPort.isEmpty()) {
            throw new IllegalArgumentException("empty host in " + uri);
        }
        try {
            URI parsed = new URI("amqp://" + hostPort);
            String host = parsed.getHost();
            if (host == null) {
                throw new IllegalArgumentException("invalid host '" + hostPort + "' in " + uri);
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return new HostPort(host, parsed.getPort() < 0 ? defaultPort : parsed.getPort());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("invalid host '" + hostPort + "' in " + uri, e);
        }
    }

    /** Percent-decoding only: a {@code +} stays a plus (this is a URI, not a form). */
    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
