package io.amqpservlet.jetty;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * Typed AMQP bodies for handlers and servlets (docs/mapping.md, "Typed bodies"). A request whose body is an
 * {@code amqp-value} (of any type but null) or {@code amqp-sequence} sections carries its decoded value in the
 * request attribute {@link #REQUEST_VALUE}; one that is neither a string nor binary also reaches the servlet as JSON
 * ({@code application/json}) through the AMQP↔JSON mapping, so an ordinary servlet can read it. A handler that
 * needs exact AMQP types in its answer sets the attribute {@link #RESPONSE_VALUE}: the response then carries that
 * value as its {@code amqp-value} body, instead of the bytes written.
 *
 * <p>Values are Java objects as {@link io.amqpservlet.protocol.value.ValueDecoder} makes them and
 * {@link io.amqpservlet.protocol.value.ValueEncoder} writes them: {@code Map} (a map, in iteration order),
 * {@code List} (a list), {@code String}, {@code Boolean}, {@code Long}, {@code Integer}, {@code Short}, {@code Byte},
 * {@code Double}, {@code Float}, {@code UUID}, {@code Date} (a timestamp), {@code byte[]} (binary),
 * {@link io.amqpservlet.protocol.types.Symbol}, the unsigned types
 * {@link io.amqpservlet.protocol.value.UnsignedLong} (ulong), {@link io.amqpservlet.protocol.value.UnsignedInteger}
 * (uint), {@code UnsignedShort} and {@code UnsignedByte}, {@link io.amqpservlet.protocol.value.AmqpArray} (an AMQP
 * array), {@code Described}, {@code AmqpChar} and the decimals.
 *
 * <p>A servlet needs no class of this library but the names, with the servlet API's own attribute methods:
 * <pre>{@code
 * Map<?, ?> queue = (Map<?, ?>) request.getAttribute(AmqpBody.REQUEST_VALUE);
 * request.setAttribute(AmqpBody.RESPONSE_VALUE, Map.of(
 *         "name", "orders",
 *         "message_count", UnsignedLong.of(0),
 *         "replicas", AmqpArray.of(AmqpType.STRING, "rabbit@a")));
 * response.setStatus(200);
 * }</pre>
 * The response value is read when the response completes (an unflushed response: set it before the body, if any,
 * outgrows the response buffer); it needs a reply-to, and a HEAD response has none. A value of a Java type the
 * table does not name fails the response (the request is settled modified, delivery-failed).
 */
public final class AmqpBody {
    /**
     * The request attribute that holds the decoded value of a request whose body is an {@code amqp-value} (absent
     * for an amqp-value null, and for data sections) or {@code amqp-sequence} sections (a {@code List} of the
     * elements of every section, in order).
     */
    public static final String REQUEST_VALUE = "io.amqpservlet.request-value";
    /**
     * The request attribute a handler or servlet sets to answer with a typed {@code amqp-value} body: the value,
     * in the Java types of the table above. Set on the request, because the connector sees the request's
     * attributes and this library does not depend on the servlet API.
     */
    public static final String RESPONSE_VALUE = "io.amqpservlet.response-value";

    private AmqpBody() {
    }

    /**
     * {@return the request's typed body ({@link #REQUEST_VALUE}), or null when it has none}
     *
     * @param request a Jetty request
     */
    public static Object getValue(Request request) {
        return request.getAttribute(REQUEST_VALUE);
    }

    /**
     * Sets the typed body of {@code response}: it goes out as the response message's {@code amqp-value}.
     *
     * @param response a Jetty response, not yet completed
     * @param value the body, in the Java types of the table above; null to remove one set before
     */
    public static void setValue(Response response, Object value) {
        if (value == null) {
            response.getRequest().removeAttribute(RESPONSE_VALUE);
        } else {
            response.getRequest().setAttribute(RESPONSE_VALUE, value);
        }
    }
}
