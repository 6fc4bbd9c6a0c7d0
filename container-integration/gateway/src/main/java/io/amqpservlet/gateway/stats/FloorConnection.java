package io.amqpservlet.gateway.stats;

import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.eclipse.jetty.server.AbstractMetaDataConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpChannel;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.Attributes;

import java.util.Set;

/**
 * The connection of the floor run ({@link FloorRun}): what Jetty's {@code HttpChannel} needs to know about a
 * connection (its connector, which gives the server, executor and buffer pool; its {@code HttpConfiguration}; an
 * id, a version, attributes) with no wire under it. Its end point is an in-memory one that nothing reads or writes;
 * it exists because servlet code may ask a request's connection for its end point (idle timeouts).
 */
final class FloorConnection extends AbstractMetaDataConnection {
    /** The protocol name a floor request reports ({@code Request.getConnectionMetaData().getProtocol()}). */
    static final String PROTOCOL = "floor";

    private static final HttpChannel.Factory CHANNELS = new HttpChannel.DefaultFactory();

    private final String id;
    private final Attributes attributes = new Attributes.Mapped();

    FloorConnection(Connector connector, HttpConfiguration config, String id) {
        super(connector, config, new ByteArrayEndPoint());
        this.id = id;
    }

    /** A new channel for one of this connection's streams; the stream recycles it after each request. */
    HttpChannel newChannel() {
        return CHANNELS.newHttpChannel(this);
    }

    @Override
    public void onFillable() {
        // nothing is ever read: requests are injected
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public HttpVersion getHttpVersion() {
        return HttpVersion.HTTP_1_1;
    }

    @Override
    public String getProtocol() {
        return PROTOCOL;
    }

    @Override
    public boolean isPersistent() {
        return true; // as a keep-alive connection: the channel and its caches are reused for the next request
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
