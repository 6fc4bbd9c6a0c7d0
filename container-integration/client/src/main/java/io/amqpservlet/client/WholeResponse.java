package io.amqpservlet.client;

import java.io.ByteArrayOutputStream;

/** A {@link ResponseListener} that collects the whole response, for the API that returns one {@link AmqpResponse}. */
final class WholeResponse implements ResponseListener {
    private AmqpResponse head;
    private AmqpResponse whole;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    /** A response that arrived in one message view, body included: kept as it is. */
    void whole(AmqpResponse response) {
        whole = response;
    }

    @Override
    public void onHead(AmqpResponse response) {
        head = response;
    }

    @Override
    public void onBody(byte[] bytes, int offset, int length) {
        body.write(bytes, offset, length);
    }

    /** The response with its body; null before the head arrived. */
    AmqpResponse response() {
        if (whole != null) {
            return whole;
        }
        return head == null ? null : new AmqpResponse(head.status(), head.contentType(), head.contentEncoding(),
                head.headers(), body.toByteArray());
    }
}
