package io.amqpservlet.jetty.internal.attach;

import org.eclipse.jetty.io.ClientConnectionFactory;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.Transport;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLException;

/**
 * A broker attachment's connection over time, as an {@link AttachmentState} machine: connects to one broker of its
 * list at a time, and when a connection cannot be made or is lost, to the next, after a delay that doubles from the
 * minimum up to the maximum, with jitter so that many gateways that lost the same broker do not all come back at the
 * same instant. Thread-safe: Jetty's threads, the scheduler and the connection's engine thread call it; its state is
 * guarded by this object's monitor, and nothing is called out with it held.
 */
public final class Reconnection {
    private static final Logger LOG = LoggerFactory.getLogger(Reconnection.class);

    /**
     * Makes the AMQP connection on a new end point to {@code broker}: index {@code brokerIndex} of the list, or -1 for
     * where a broker redirected the attachment, whose open then names {@code hostname} (else null).
     */
    @FunctionalInterface
    public interface Connections {
        Connection newConnection(EndPoint endPoint, BrokerUri.HostPort broker, int brokerIndex, String hostname,
                                 Reconnection owner);
    }

    private final List<BrokerUri.HostPort> brokers;
    private final ClientConnector client;
    private final SslContextFactory.Client tls;
    private final Scheduler scheduler;
    private final Connections connections;
    private final long minDelayMillis;
    private final long maxDelayMillis;

    // Guarded by this.
    private AttachmentState state = AttachmentState.STOPPED;
    private int brokerIndex;
    private int failures;
    private long delayMillis;
    private Scheduler.Task reconnect;
    private Connection connection;
    private long connectCount;
    private int mostOutstanding;
    private long beyondCredit;
    /** Why the current connection is ending, as its engine's side said first; null when it said nothing. */
    private String endReason;
    /** Why the last connection could not be made or ended; null until one has. */
    private String lastFailure;
    /** The broker connected to now, or being connected to: one of the list, or where one redirected to. */
    private BrokerUri.HostPort current;
    /** Where the current connection's broker redirected the attachment, for the next attempt; else null. */
    private BrokerUri.HostPort redirect;
    private String redirectHostname;

    /**
     * @param tls the TLS configuration for {@code amqps}, or null for plain TCP
     */
    public Reconnection(List<BrokerUri.HostPort> brokers, ClientConnector client,
                        SslContextFactory.Client tls, Scheduler scheduler, Connections connections,
                        long minDelayMillis, long maxDelayMillis) {
        this.brokers = List.copyOf(brokers);
        this.client = client;
        this.tls = tls;
        this.scheduler = scheduler;
        this.connections = connections;
        this.minDelayMillis = minDelayMillis;
        this.maxDelayMillis = maxDelayMillis;
    }

    /** STOPPED → CONNECTING: the first attempt, to the first broker of the list. */
    public void start() {
        synchronized (this) {
            if (state != AttachmentState.STOPPED) {
                return;
            }
            state = AttachmentState.CONNECTING;
            failures = 0;
            brokerIndex = 0;
        }
        connect();
    }

    /**
     * Any state → STOPPED: no further attempt, and what the broker ends from now on is no reason to reconnect.
     *
     * @return the connection that is open, for the caller to close, or null
     */
    public Connection stop() {
        synchronized (this) {
            state = AttachmentState.STOPPED;
            if (reconnect != null) {
                reconnect.cancel();
                reconnect = null;
            }
            return connection;
        }
    }

    /** {@return whether stopped: links and sessions the broker ends now are no reason to reconnect} */
    synchronized boolean stopped() {
        return state == AttachmentState.STOPPED;
    }

    /** CONNECTING: a connection to the current broker of the list. */
    private void connect() {
        BrokerUri.HostPort broker;
        int index;
        String hostname;
        synchronized (this) {
            reconnect = null;
            if (state != AttachmentState.CONNECTING) {
                return;
            }
            if (redirect != null) {
                // Once: if it cannot be made or is lost, the list goes on where it was.
                index = -1;
                broker = redirect;
                hostname = redirectHostname;
                redirect = null;
                redirectHostname = null;
            } else {
                index = brokerIndex;
                broker = brokers.get(index);
                hostname = null;
            }
            current = broker;
        }
        Map<String, Object> context = new HashMap<>();
        context.put(Transport.CONTEXT_KEY, Transport.TCP_IP);
        ClientConnectionFactory amqp = (endPoint, ctx) -> {
            if (connectedToItself(endPoint)) {
                // TCP's simultaneous open: with nothing listening on a local port in the ephemeral range, the system
                // may give the connecting socket that very port, and it connects to itself. Held, it would keep a
                // local broker that restarts from listening there (EADDRINUSE); failing it frees the port now.
                throw new IOException("connected to itself: nothing listens on " + broker);
            }
            return made(connections.newConnection(endPoint, broker, index, hostname, this));
        };
        context.put(ClientConnectionFactory.CONTEXT_KEY, tls != null ? client.newSslClientConnectionFactory(tls, amqp)
                : amqp);
        context.put(ClientConnector.CONNECTION_PROMISE_CONTEXT_KEY,
                Promise.<Connection>from(connected -> { }, failure -> lost(null, "cannot connect to " + broker + ": "
                        + connectFailure(failure, client.getConnectTimeout().toMillis()))));
        if (LOG.isDebugEnabled()) {
            LOG.debug("connecting to {}", broker);
        }
        client.connect(new InetSocketAddress(broker.host(), broker.port()), context);
    }

    /**
     * Why a connection could not be made, in words: {@code connection refused}, {@code unknown host}, {@code no answer
     * within 10000 ms}, or what else the system said ({@code no route to host}), with nothing of the Java exception
     * but its message (its kind when it has none).
     */
    static String connectFailure(Throwable failure, long connectTimeoutMillis) {
        String message = failure.getMessage();
        if (failure instanceof UnresolvedAddressException || failure instanceof UnknownHostException) {
            // Its message is the host (named already), or the host and the resolver's reason.
            int reason = message == null ? -1 : message.indexOf(": ");
            return reason < 0 ? "unknown host" : "unknown host (" + message.substring(reason + 2) + ")";
        }
        if (failure instanceof SocketTimeoutException) {
            return "no answer within " + connectTimeoutMillis + " ms";
        }
        if (failure instanceof ConnectException && (message == null || message.isBlank())) {
            return "connection refused";
        }
        if (message == null || message.isBlank()) {
            return words(failure.getClass().getSimpleName());
        }
        // The system's own sentence (Connection refused, No route to host, Network is unreachable) in the line's case.
        return message.length() > 1 && Character.isUpperCase(message.charAt(0))
                && Character.isLowerCase(message.charAt(1)) ? Character.toLowerCase(message.charAt(0))
                + message.substring(1) : message;
    }

    /** {@code NoRouteToHostException} as {@code no route to host}: a nameless failure said in words. */
    private static String words(String className) {
        String name = className.endsWith("Exception") ? className.substring(0, className.length() - 9) : className;
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c) && i > 0) {
                words.append(' ');
            }
            words.append(Character.toLowerCase(c));
        }
        return words.length() == 0 ? "failed" : words.toString();
    }

    /**
     * Tells why TLS ended {@code endPoint}, if it did. Jetty's TLS end point keeps the failure that ended it, and may
     * close with no reader or writer to give it to: a handshake this side failed (a broker certificate it does not
     * trust), or a broker's alert that came while this side was writing (TLS 1.3 checks a client certificate after
     * the client's handshake is done). A closed end point's fill gives it, and is harmless otherwise.
     */
    private void tlsFailure(EndPoint endPoint) {
        if (endPoint instanceof SslConnection.SslEndPoint ssl) {
            try {
                ssl.fill(BufferUtil.EMPTY_BUFFER);
            } catch (Exception e) {
                failed(e);
            }
        }
    }

    private static boolean connectedToItself(EndPoint endPoint) {
        SocketAddress local = endPoint.getLocalSocketAddress();
        return local != null && local.equals(endPoint.getRemoteSocketAddress());
    }

    private Connection made(Connection c) {
        c.addEventListener(new Connection.Listener() {
            @Override
            public void onClosed(Connection closed) {
                tlsFailure(closed.getEndPoint());
                lost(closed, null);
            }
        });
        synchronized (this) {
            connection = c;
            connectCount++;
            endReason = null;
        }
        return c;
    }

    /**
     * Engine thread of the current connection: CONNECTING → ATTACHED, every request link and the relay attached.
     *
     * @param links what was attached, for the log line
     */
    void attached(String links) {
        BrokerUri.HostPort broker;
        synchronized (this) {
            if (state != AttachmentState.CONNECTING) {
                return;
            }
            failures = 0;
            delayMillis = 0;
            state = AttachmentState.ATTACHED;
            broker = current;
        }
        // The first time, or again after a loss (CONNECTING follows only a start or a wait): worth a line each.
        LOG.info("attached to broker {}: {}", broker, links);
    }

    /**
     * The current connection (its engine thread, or any thread its I/O fails on): it is ending, and why (the first
     * reason given stands). The one line logged when it has closed says so, with when the next attempt is: a broker
     * that fails every attempt the same way costs a line per attempt, and the attempts space out as the delay
     * doubles.
     */
    synchronized void ending(String why) {
        if (endReason == null && connection != null) {
            endReason = why;
        }
    }

    /**
     * Engine thread of the current connection: its broker closed it with {@code amqp:connection:redirect} (AMQP 1.0
     * §2.8.15), naming where to connect instead: the next attempt goes there, once.
     *
     * @param to the network host and port the broker named
     * @param hostname the hostname the open names there, or null for {@code to}'s host
     */
    synchronized void redirected(BrokerUri.HostPort to, String hostname) {
        if (connection != null && state != AttachmentState.STOPPED) {
            redirect = to;
            redirectHostname = hostname;
        }
    }

    /**
     * Any thread: the current connection failed to read or write, or its TLS failed (an alert from the broker, such
     * as one that refused this gateway's certificate; a certificate this side does not trust; the connection reset):
     * that is why it is ending, unless it was ending for a reason already.
     */
    public void failed(Throwable failure) {
        String what = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName();
        ending(failure instanceof SSLException ? "TLS failed: " + what : "the connection failed: " + what);
    }

    /**
     * CONNECTING or ATTACHED → BACKING_OFF: a connection could not be made ({@code closed} null) or has closed; the
     * next broker of the list is tried after the backoff delay.
     *
     * @param why why, or null when nobody said (a close with no end reason)
     */
    private void lost(Connection closed, String why) {
        long delay;
        BrokerUri.HostPort from;
        BrokerUri.HostPort next;
        synchronized (this) {
            if (closed != null) {
                if (connection != closed) {
                    return; // an earlier connection, already replaced
                }
                connection = null;
                if (endReason != null) {
                    why = endReason;
                    endReason = null;
                }
            }
            if (state != AttachmentState.CONNECTING && state != AttachmentState.ATTACHED) {
                return; // stopped, or already backing off
            }
            if (why == null) {
                // Nothing said why: at least say how far it got (a broker that refuses TLS may close without a word).
                why = state == AttachmentState.CONNECTING
                        ? "the connection ended before it was attached, without a close from either side"
                        : "the connection ended without a close from either side";
            }
            from = current;
            int n = failures++;
            if (redirect != null) {
                // A redirect counts as a failure for the delay: brokers that redirect in a ring are not hammered.
                next = redirect;
            } else {
                brokerIndex = (brokerIndex + 1) % brokers.size();
                next = brokers.get(brokerIndex);
            }
            long base = minDelayMillis << Math.min(n, 20);
            if (base <= 0 || base > maxDelayMillis) {
                base = maxDelayMillis;
            }
            // Full delay halved at random (jitter): gateways that lost the same broker do not return in step.
            delay = Math.max(1, base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
            delayMillis = delay;
            lastFailure = why;
            state = AttachmentState.BACKING_OFF;
            reconnect = scheduler.schedule(this::backedOff, delay, TimeUnit.MILLISECONDS);
        }
        if (closed == null) {
            LOG.warn("{}; connecting to {} in {} ms", why, next, delay); // the reason names the broker
        } else {
            LOG.warn("broker {}: {}; connecting to {} in {} ms", from, why, next, delay);
        }
    }

    /** BACKING_OFF → CONNECTING, once the delay is over. */
    private void backedOff() {
        synchronized (this) {
            if (state != AttachmentState.BACKING_OFF) {
                return;
            }
            state = AttachmentState.CONNECTING;
        }
        connect();
    }

    /** Engine thread: credit plus unsettled requests reached {@code outstanding} on the current connection. */
    synchronized void outstanding(int outstanding) {
        mostOutstanding = Math.max(mostOutstanding, outstanding);
    }

    /** Engine thread: the broker sent {@code more} requests beyond the credit on the current connection. */
    synchronized void beyondCredit(long more) {
        beyondCredit += more;
    }

    /** {@return requests the brokers sent beyond the credit, on every connection so far} */
    public synchronized long beyondCredit() {
        return beyondCredit;
    }

    public synchronized AttachmentState state() {
        return state;
    }

    /** {@return the connection open now, or null} */
    public synchronized Connection connection() {
        return connection;
    }

    public synchronized long connectCount() {
        return connectCount;
    }

    public synchronized int mostOutstanding() {
        return mostOutstanding;
    }

    /** {@return failures since the last time attached} */
    public synchronized int failures() {
        return failures;
    }

    /** {@return why the last connection could not be made or ended, or null if none has} */
    public synchronized String lastFailure() {
        return lastFailure;
    }

    /** {@return the delay of the wait now (or the last one, while connecting after it); 0 once attached} */
    public synchronized long delayMillis() {
        return delayMillis;
    }

    /** {@return the broker connected to now, or tried next} */
    public synchronized String broker() {
        if (redirect != null) {
            return redirect.toString();
        }
        return (state == AttachmentState.BACKING_OFF || current == null ? brokers.get(brokerIndex) : current)
                .toString();
    }
}
