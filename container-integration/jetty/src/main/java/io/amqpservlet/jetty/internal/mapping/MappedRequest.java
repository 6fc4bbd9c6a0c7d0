package io.amqpservlet.jetty.internal.mapping;

import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.types.messaging.MessageId;
import org.eclipse.jetty.http.MetaData;

/**
 * What {@link RequestMapper} made of one request message: the HTTP request, the routing of its answer and the values
 * of the fixed request attributes. Written by the mapper only, on the engine thread, before the request is handed to
 * Jetty; read by any thread after that hand-off (which orders the writes before the reads). Reused with its exchange.
 */
public final class MappedRequest {
    /** The request's reply-to address (UTF-8), or null for a one-way request. */
    byte[] replyTo;
    /** The reply-to is {@code $me}: the response goes on {@link #pairedReplyLink} (link pairing). */
    boolean replyToPaired;
    /** For {@link #replyToPaired}: the other half of the request link's pair when the request arrived, or null. */
    Link pairedReplyLink;
    /** The request's correlation-id, else its message-id, with its AMQP type (WD06 §4); null kind when neither. */
    final MessageId correlationId = new MessageId();
    MetaData.Request request;
    /** The whole body; empty for a body that streams in after the request (see {@link RequestMapper#map}). */
    byte[] body;
    Object messageIdAttribute;
    Object correlationIdAttribute;
    String linkAddress;
    long deliveryCount;
    /** The header's durable (AMQP 1.0 §3.2.1): the sender asked the broker to keep the message across a restart. */
    boolean durable;
    /** When the request expires, in milliseconds since the epoch; 0 when it names no expiry. */
    long expiresAtMillis;
    /** The request's typed body ({@code AmqpBody.REQUEST_VALUE}), or null. */
    Object typedValue;
    /** The body reached the servlet as JSON made from an AMQP value: a JSON response goes back as an amqp-value. */
    boolean jsonBody;
    /** The status to answer without a servlet when the message cannot become an HTTP request; 0 when it can. */
    int refusedStatus;
    String refusedReason;

    /** Forgets the previous request (engine thread). */
    public void clear() {
        replyTo = null;
        replyToPaired = false;
        if (pairedReplyLink != null) {
            pairedReplyLink = null; // most requests never hold one: skip the reference store
        }
        correlationId.clear();
        request = null;
        body = null;
        messageIdAttribute = null;
        correlationIdAttribute = null;
        linkAddress = null;
        deliveryCount = 0;
        durable = false;
        expiresAtMillis = 0;
        typedValue = null;
        jsonBody = false;
        refusedStatus = 0;
        refusedReason = null;
    }

    /** {@return the reply-to address as UTF-8 bytes, or null for a one-way request} Shared: do not change it. */
    public byte[] replyTo() {
        return replyTo;
    }

    /** {@return whether the message asked for a response (has a reply-to)} */
    public boolean wantsResponse() {
        return replyTo != null;
    }

    /** {@return whether the reply-to is {@code $me}, the other half of the request link's pair} */
    public boolean replyToPaired() {
        return replyToPaired;
    }

    /** {@return for a {@code $me} reply-to, the other half of the link pair when the request arrived, or null} */
    public Link pairedReplyLink() {
        return pairedReplyLink;
    }

    /** {@return the id the response correlates to, with its AMQP type} */
    public MessageId correlationId() {
        return correlationId;
    }

    /** {@return whether the request message is durable (AMQP 1.0 §3.2.1 header durable)} */
    public boolean durable() {
        return durable;
    }

    /** {@return the HTTP request, or null when the message was refused before it became one} */
    public MetaData.Request request() {
        return request;
    }

    /** {@return the whole body of a message that came whole} */
    public byte[] body() {
        return body;
    }

    /** {@return the message-id as its attribute's Java value, or null} */
    public Object messageIdAttribute() {
        return messageIdAttribute;
    }

    /** {@return the correlation-id as its attribute's Java value, or null} */
    public Object correlationIdAttribute() {
        return correlationIdAttribute;
    }

    /** {@return the target address of the link the request arrived on, or null} */
    public String linkAddress() {
        return linkAddress;
    }

    /** {@return the header's delivery-count, 0 without a header} */
    public long deliveryCount() {
        return deliveryCount;
    }

    /** {@return when the request expires, in milliseconds since the epoch; 0 for never} */
    public long expiresAtMillis() {
        return expiresAtMillis;
    }

    /** {@return the decoded typed body, or null} */
    public Object typedValue() {
        return typedValue;
    }

    /** {@return whether the servlet reads the body as JSON made from an AMQP value} */
    public boolean jsonBody() {
        return jsonBody;
    }

    /** {@return the status to answer without a servlet, or 0 when the message became an HTTP request} */
    public int refusedStatus() {
        return refusedStatus;
    }

    /** {@return why the message was refused, the body of the answer; null when it was not} */
    public String refusedReason() {
        return refusedReason;
    }

    void refuse(int status, String reason) {
        refusedStatus = status;
        refusedReason = reason;
    }
}
