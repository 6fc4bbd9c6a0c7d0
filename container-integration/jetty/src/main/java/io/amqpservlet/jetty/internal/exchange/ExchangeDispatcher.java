package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.Request;

import java.util.concurrent.Executor;

/**
 * The Jetty side of one connection's exchanges: hands each admitted request to Jetty through an {@link HttpChannel}
 * (engine thread), whose handler tree then runs on the executor, never on the thread that drives the engine, through
 * the connection's {@link ServingQueue} (a thread that has served a request takes the next waiting one); takes
 * each stream back when Jetty ends it (any thread), keeping its channel for the next request; and times requests out
 * ({@link ActiveStreams}). Made with the connection's first request.
 */
public final class ExchangeDispatcher {
    private static final HttpChannel.Factory CHANNELS = new HttpChannel.DefaultFactory();

    private final ConnectionMetaData connection;
    private final Executor executor;
    private final ServingQueue serving;
    private final ByteBufferPool bufferPool;
    private final ServingSettings settings;
    private final EngineInbox inbox;
    private final ConnectionReusables reusables = new ConnectionReusables();
    private final ActiveStreams streams;
    /** The idle timeout each request stream starts with: the connector's. */
    private final long streamIdleTimeoutMillis;
    /** The most body bytes one streamed request has had waiting unread on this connection (a statistic). */
    private volatile long maxBufferedRequestBytes;
    // Engine thread.
    private long streamIds;
    /** Requests handed to Jetty whose exchange has not come back to the engine thread yet. */
    private int inFlight;

    ExchangeDispatcher(ConnectionMetaData connection, Connector connector, ServingSettings settings, EngineInbox inbox,
                       long streamIdleTimeoutMillis) {
        this.connection = connection;
        this.executor = connector.getExecutor();
        this.serving = new ServingQueue(executor);
        this.bufferPool = connector.getByteBufferPool();
        this.settings = settings;
        this.inbox = inbox;
        this.streamIdleTimeoutMillis = streamIdleTimeoutMillis;
        inbox.open();
        this.streams = new ActiveStreams(connector.getScheduler(), connection.getConnection().getEndPoint()::isOpen);
    }

    /**
     * Engine thread: hands {@code exchange}'s request to Jetty, as its {@link Exchange#user user} when it has one; the
     * handler tree runs on the executor.
     */
    void dispatch(Exchange exchange) {
        Request.AuthenticationState user = exchange.user;
        inFlight++;
        settings.counters().served.increment();
        HttpChannel channel = reusables.channel();
        if (channel == null) {
            channel = CHANNELS.newHttpChannel(connection);
        }
        channel.initialize();
        HttpStreamOverAmqp stream = exchange.stream;
        if (stream == null) {
            stream = new HttpStreamOverAmqp(this, exchange);
            exchange.stream = stream;
        }
        exchange.serving();
        stream.init(channel, ++streamIds, user);
        channel.setHttpStream(stream);
        streams.add(stream); // sets the request-timeout timer if this expiry is the earliest
        Runnable task;
        try {
            task = channel.onRequest(exchange.request.request());
            // Before the task runs, nothing else sees the request: the user is set now, ahead of customizers and
            // handlers (which a SecurityHandler then re-checks through AmqpAuthenticator); the fixed attributes come
            // with the first customizer (RequestAttributesCustomizer), on the thread that runs the task.
            if (user != null) {
                // Without a SecurityHandler this is what getUserPrincipal() reads; with one, AmqpAuthenticator answers.
                Request.setAuthenticationState(channel.getRequest(), user);
            }
        } catch (RuntimeException e) {
            task = channel.onFailure(e); // Jetty answers with its error handler, through this stream
        }
        if (task != null) {
            stream.handleWith(task);
            serving.submit(stream); // the handler may block: never on the thread that drives the engine
        }
    }

    /**
     * Any thread: the authentication of the request being served whose id ({@code Request.getId()}) is
     * {@code requestId}, or null when none is (not a request of this connection, or one that has ended). The id is
     * the stream's number, or, from Jetty's servlet environments, the servlet request id
     * {@code <connection id>#<stream number>}. Walks the requests being served: at most the connection's credit.
     */
    Request.AuthenticationState userOf(String requestId) {
        long id;
        try {
            id = Long.parseLong(requestId, requestId.lastIndexOf('#') + 1, requestId.length(), 10);
        } catch (NumberFormatException e) {
            return null; // not an id this connection gave
        }
        for (HttpStreamOverAmqp stream : streams.all()) {
            Request.AuthenticationState user = stream.userOf(id);
            if (user != null) {
                return user;
            }
        }
        return null;
    }

    /** Engine thread: an exchange this dispatcher handed to Jetty came back through the inbox. */
    void returned() {
        inFlight--;
    }

    /** {@return requests handed to Jetty whose exchange has not come back to the engine thread yet} Engine thread. */
    int inFlight() {
        return inFlight;
    }

    /** Any thread: a stream ended; a channel that completed normally is reused for the next request. */
    void streamEnded(HttpStreamOverAmqp stream, boolean recycled) {
        streams.remove(stream);
        if (recycled) {
            reusables.release(stream.channel());
        }
    }

    /** The connection closed: requests still being served have no connection to answer on. */
    void connectionClosed(Throwable cause) {
        for (HttpStreamOverAmqp stream : streams.all()) {
            Runnable task = stream.channel().onRemoteFailure(new EofException(cause == null
                    ? "AMQP connection closed" : cause.toString()));
            if (task != null) {
                executor.execute(task);
            }
        }
    }

    /** {@return the requests being served now (dispatched, stream not ended yet)} Any thread. */
    int activeRequests() {
        return streams.size();
    }

    /** Engine thread: a streamed request now has {@code bytes} waiting unread. */
    void bufferedRequestBytes(long bytes) {
        if (bytes > maxBufferedRequestBytes) {
            maxBufferedRequestBytes = bytes;
        }
    }

    long maxBufferedRequestBytes() {
        return maxBufferedRequestBytes;
    }

    ByteBufferPool bufferPool() {
        return bufferPool;
    }

    void execute(Runnable task) {
        executor.execute(task);
    }

    ServingSettings settings() {
        return settings;
    }

    EngineInbox inbox() {
        return inbox;
    }

    ConnectionReusables reusables() {
        return reusables;
    }

    long streamIdleTimeoutMillis() {
        return streamIdleTimeoutMillis;
    }
}
