package io.amqpservlet.jetty.internal.exchange;

import org.eclipse.jetty.io.QuietException;

import java.io.IOException;

/**
 * What a servlet's write (or Jetty's end of the request) fails with when the response is larger than the client's
 * max-message-size: the client's doing, not the server's, and logged once by the connector within its peer-error
 * allowance. A {@link QuietException}, so Jetty logs no line (and no stack trace) of its own for it.
 */
final class ResponseTooLargeException extends IOException implements QuietException {
    private static final long serialVersionUID = 1L;

    ResponseTooLargeException(String message) {
        super(message);
    }
}
