package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.connector.engine.Engine;
import io.amqpservlet.connector.engine.Delivery;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import org.eclipse.jetty.http.HttpStatus;

/**
 * How a request without reply-to learns what happened (docs/design.md §3 outcomes): the servlet ran and its status
 * becomes the delivery's outcome. 2xx and 3xx: accepted. 4xx: rejected, the client must not resend; the error
 * description is the status line ("404 Not Found") and the condition the closest AMQP one. 5xx (and a failed
 * exchange, status 0): modified with delivery-failed, so the client may retry.
 */
final class OneWayOutcome {
    private OneWayOutcome() {
    }

    /** Settles {@code request} on {@code engine} (its thread) according to {@code status}. */
    static void settle(Engine engine, Delivery request, int status) {
        if (status >= 200 && status < 400) {
            engine.accept(request);
        } else if (status >= 400 && status < 500) {
            engine.reject(request, conditionOf(status), status + " " + HttpStatus.getMessage(status));
        } else {
            engine.modified(request, true, false);
        }
    }

    /** The AMQP error condition (AMQP 1.0 §2.8.15) nearest to a 4xx status. */
    static Symbol conditionOf(int status) {
        switch (status) {
            case HttpStatus.UNAUTHORIZED_401:
            case HttpStatus.FORBIDDEN_403:
                return ErrorConditions.UNAUTHORIZED_ACCESS;
            case HttpStatus.NOT_FOUND_404:
            case HttpStatus.GONE_410:
                return ErrorConditions.NOT_FOUND;
            case HttpStatus.METHOD_NOT_ALLOWED_405:
                return ErrorConditions.NOT_ALLOWED;
            case HttpStatus.CONFLICT_409:
            case HttpStatus.PRECONDITION_FAILED_412:
                return ErrorConditions.PRECONDITION_FAILED;
            case HttpStatus.PAYLOAD_TOO_LARGE_413:
                return ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED;
            case HttpStatus.TOO_MANY_REQUESTS_429:
                return ErrorConditions.RESOURCE_LIMIT_EXCEEDED;
            default:
                return ErrorConditions.INVALID_FIELD; // the request itself was wrong: 400, 415, 422, ...
        }
    }
}
