package io.amqpservlet.jetty.internal.connection;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.jetty.AmqpConnectionMetaData;
import io.amqpservlet.jetty.internal.exchange.ServingHandler;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractMetaDataConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Attributes;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * One AMQP 1.0 connection, as Jetty sees it: a {@link Connection} with its metadata and statistics. An acceptor (or,
 * for a broker attachment, an initiator) engine serves each request message through Jetty's {@link HttpChannel},
 * so the server's handler tree answers AMQP clients; the connection's work is done by its parts:
 * <ul>
 *   <li>{@link EnginePass}: the serialised pass over the engine, one thread at a time, driven by every event;</li>
 *   <li>{@link EndPointIo}: reads and the gathered write, with read back-pressure;</li>
 *   <li>{@link ConnectionInbox}: the events other threads bring;</li>
 *   <li>a {@link ServingHandler}: what the engine hears, turned into served requests.</li>
 * </ul>
 *
 * <p>Statistics the Jetty way: bytes read and written, and AMQP messages received (requests) and sent (responses),
 * so that {@code ConnectionStatistics}, Jetty's {@code statistics} module and Micrometer's Jetty binders count AMQP
 * connections as they count HTTP ones.
 */
public class AmqpConnection extends AbstractMetaDataConnection implements Connection.UpgradeTo, AmqpConnectionMetaData {
    private final Attributes attributes = new Attributes.Lazy();
    private final EnginePass pass;

    /**
     * @param connector the Jetty connector that accepted the socket (or a broker attachment that made it); its byte
     *                  buffer pool, executor and scheduler are used
     * @param endPoint the socket, plain or TLS
     * @param settings what the factory (or attachment) that made the connection says
     * @param handlers makes the handler the engine reports to
     */
    public AmqpConnection(Connector connector, EndPoint endPoint, ConnectionSettings settings,
                          ConnectionHandlers handlers) {
        super(connector, settings.httpConfiguration(), endPoint);
        this.pass = new EnginePass(this, settings, handlers, connector.getExecutor(), connector.getScheduler());
    }

    // ------------------------------------------------------------------------------------------ Jetty lifecycle

    /**
     * A {@code DetectorConnectionFactory} recognized this connection from its first bytes (the start of the AMQP
     * header) and hands them over; they are the engine's first input. Called before {@link #onOpen()}.
     */
    @Override
    public void onUpgradeTo(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        pass.io().upgradeInput(bytes);
    }

    @Override
    public void onOpen() {
        super.onOpen();
        pass.open();
    }

    @Override
    public void onFillable() {
        pass.inbox().fillable(false);
    }

    /** The non-blocking fill interest failed (the end point closed). */
    void fillFailed(Throwable cause) {
        transportFailed(cause);
        onFillInterestedFailed(cause);
    }

    /** Any thread: reading or writing failed, or TLS did, so the connection is ending: its handler may keep why. */
    void transportFailed(Throwable cause) {
        pass.handler().transportFailed(cause);
    }

    @Override
    public boolean onIdleExpired(TimeoutException timeout) {
        // AMQP has its own idle timeout (AMQP 1.0 §2.4.5), enforced by the engine's tick, with heartbeats that a
        // quiet but healthy peer relies on: the end point's timeout must not close a connection the engine keeps.
        // Before the engine exists (a TLS handshake not done yet), the end point's timeout is the only one.
        return pass.engine() == null;
    }

    @Override
    public void onClose(Throwable cause) {
        if (cause != null) {
            transportFailed(cause); // before the listeners, which may log why it ended
        }
        super.onClose(cause);
        pass.closed();
        pass.handler().transportClosed(cause); // requests still being served have no connection to answer on
    }

    /**
     * Any thread: the server is stopping gracefully. Requests that arrive from now on are released; once the requests
     * in flight have been answered, the connection is closed with {@code amqp:connection:forced}.
     */
    public void shutdown() {
        pass.stopGracefully();
    }

    // ------------------------------------------------------------------------------------------ statistics

    @Override
    public long getBytesIn() {
        return pass.io().bytesIn();
    }

    @Override
    public long getBytesOut() {
        return pass.io().bytesOut();
    }

    /** {@return the AMQP messages received: request messages, whole or streamed} */
    @Override
    public long getMessagesIn() {
        return pass.handler().messagesIn();
    }

    /** {@return the AMQP messages sent: response messages} */
    @Override
    public long getMessagesOut() {
        return pass.handler().messagesOut();
    }

    /**
     * The number of requests being served (dispatched and not yet ended), for tests and statistics.
     *
     * @return the number of requests dispatched and not yet ended
     */
    public int getActiveRequests() {
        return pass.handler().activeRequests();
    }

    /** {@return whether a graceful stop has begun, so new requests are released rather than served} */
    public boolean isDraining() {
        return pass.handler().stopping();
    }

    /**
     * The most bytes this connection has held for its peer at once: encoded and not yet written, plus messages queued
     * on reply links.
     *
     * @return the high-water mark in bytes
     */
    public long getMaxBufferedOutputBytes() {
        return pass.budget().maxOutputBytes();
    }

    /**
     * The most body bytes a streamed request of this connection has had waiting for its servlet to read them.
     *
     * @return the high-water mark in bytes; 0 when no streamed request body waited
     */
    public long getMaxBufferedRequestBytes() {
        return pass.handler().maxBufferedRequestBytes();
    }

    /** {@return how many objects this connection keeps for its next requests (exchanges, channels, encoders)} */
    public int reusablesKept() {
        return pass.handler().reusablesKept();
    }

    /**
     * The authentication of this connection's requests (a jetty-security {@code AuthenticationState.Succeeded}), or
     * null when the peer is anonymous or jetty-security is absent.
     *
     * @return the authentication state of the SASL user, or null
     */
    public Request.AuthenticationState authentication() {
        return pass.handler().authentication();
    }

    /**
     * The authentication of the request of this connection whose id ({@code Request.getId()}) is {@code requestId}:
     * the connection's, or the request's own on a broker attachment that trusts user-id (null when it has none).
     *
     * @param requestId the id of a request being served on this connection
     * @return the authentication state of the request's user, or null
     */
    public Request.AuthenticationState authentication(String requestId) {
        return pass.handler().authentication(requestId);
    }

    /**
     * What Jetty's dump ({@code Server.dump()}, the server's {@code dump} JMX operation) shows of this connection
     * after its end point, as it shows an HTTP connection's parser state: where the connection is, the client's
     * container-id and SASL user, AMQP messages in and out, and requests being served. Read without a lock from the
     * dumping thread: a moment's values.
     */
    @Override
    public String toConnectionString() {
        ServingHandler handler = pass.handler();
        return String.format("%s@%x{%s,container-id=%s,user=%s,in=%d,out=%d,active=%d}", getClass().getSimpleName(),
                hashCode(), pass.state(), handler.containerId(), getSaslIdentity(), handler.messagesIn(),
                handler.messagesOut(), handler.activeRequests());
    }

    // ------------------------------------------------------------------------------------------ ConnectionMetaData

    @Override
    public String getSaslIdentity() {
        Engine e = pass.engine();
        return e == null ? null : e.identity();
    }

    @Override
    public String getId() {
        Engine e = pass.engine();
        return e == null ? "amqp-tls" : "amqp-" + e.id(); // made when asked (rarely), not per connection
    }

    @Override
    public HttpVersion getHttpVersion() {
        return HttpVersion.HTTP_1_1; // the version WD06 requests default to (http:request)
    }

    @Override
    public String getProtocol() {
        return "amqp";
    }

    @Override
    public boolean isPersistent() {
        return true;
    }

    @Override
    public boolean isSecure() {
        return getEndPoint().isSecure();
    }

    @Override
    public Object removeAttribute(String name) {
        return attributes.removeAttribute(name);
    }

    @Override
    public Object setAttribute(String name, Object attribute) {
        return attributes.setAttribute(name, attribute);
    }

    @Override
    public Object getAttribute(String name) {
        return attributes.getAttribute(name);
    }

    @Override
    public Set<String> getAttributeNameSet() {
        return attributes.getAttributeNameSet();
    }

    @Override
    public void clearAttributes() {
        attributes.clearAttributes();
    }
}
