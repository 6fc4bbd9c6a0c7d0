package io.amqpservlet.client;

import java.io.IOException;

/**
 * Receives a response as its transfer frames arrive ({@link AmqpRequestClient#exchange(String, String,
 * java.util.Map, String, byte[], ResponseListener, long)}), so a large body is never held whole: first the head
 * (status, properties, headers), then the body in pieces, in order. Called on the thread that called exchange.
 */
public interface ResponseListener {
    /**
     * The status, content type and encoding and headers; the response's {@link AmqpResponse#body()} is empty.
     *
     * @param head the response without its body
     * @throws IOException to end the exchange (the client rethrows it)
     */
    void onHead(AmqpResponse head) throws IOException;

    /**
     * The next bytes of the body; the array is the client's and valid only during the call.
     *
     * @param bytes the array holding them
     * @param offset where they start
     * @param length how many there are
     * @throws IOException to end the exchange (the client rethrows it)
     */
    void onBody(byte[] bytes, int offset, int length) throws IOException;
}
