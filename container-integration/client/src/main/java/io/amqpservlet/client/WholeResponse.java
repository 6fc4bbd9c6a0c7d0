package io.amqpservlet.client;

import java.io.ByteArrayOutputStream;

/** A {@link ResponseListener} that collects the whole response, for the API that returns one {@link AmqpResponse}. */
final class WholeResponse implements ResponseListener {
    private AmqpResponse head;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

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
        return head == null ? null : new AmqpResponse(head.status(), head.contentType(), head.contentEncoding(),
                head.headers(), body.toByteArray());
    }
}
