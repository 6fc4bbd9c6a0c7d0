package io.amqpservlet.gateway.demo;

import io.amqpservlet.jetty.internal.exchange.Exchange;
import io.amqpservlet.jetty.AmqpBody;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.value.AmqpArray;
import io.amqpservlet.protocol.value.UnsignedInteger;
import io.amqpservlet.protocol.value.UnsignedLong;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of RabbitMQ 4's HTTP-over-AMQP management API that its AMQP 1.0 clients call, over an in-memory
 * {@link Topology}, mapped at {@code /queues/*}, {@code /exchanges/*} and {@code /bindings/*} (the paths those
 * clients put in {@code to}):
 * <ul>
 *   <li>{@code PUT /queues/{name}}: 201 and the queue's info when new, 200 when it exists with the same
 *       properties, 409 when not; {@code GET /queues/{name}}: 200 and its info, or 404; {@code DELETE
 *       /queues/{name}}: 200 {@code {message_count}}; {@code DELETE /queues/{name}/messages} (purge): 200
 *       {@code {message_count}}, or 404;</li>
 *   <li>{@code PUT /exchanges/{name}}: 204, 409 when it exists with other properties; {@code DELETE}: 204;</li>
 *   <li>{@code POST /bindings}: 204, 404 when the source or destination is missing; {@code DELETE
 *       /bindings/src=X;dstq=Q;key=K;args=} (or {@code dste=E}): 204; {@code GET /bindings?src=X&dstq=Q&key=K}: the
 *       matching bindings, each with the {@code location} to delete it by.</li>
 * </ul>
 * Requests and answers are typed AMQP bodies ({@link AmqpBody}): a PUT or POST carries an amqp-value map, an
 * answer is an amqp-value with RabbitMQ's exact types ({@code message_count} a ulong, {@code consumer_count} a
 * uint, {@code replicas} an array of strings), an error answer a string. Names are percent-decoded from the raw
 * request URI (the binding paths' {@code ;} parameters are not Servlet path parameters to strip). No messages are
 * ever held: counts are 0. A declaration with a data body (JSON over HTTP) is a 400; over HTTP, lookups and
 * deletions answer their statuses with empty bodies.
 */
public final class ManagementServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** The node named as every queue's leader and only replica. */
    public static final String NODE = "amqp-servlet";
    /** The largest declaration accepted (its body as JSON text, as the connector hands it over); 413 beyond. */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** RabbitMQ's limit on queue and exchange names (AMQP 0-9-1 shortstr), in UTF-8 bytes; 400 beyond. */
    public static final int MAX_NAME_BYTES = 255;

    private final transient Topology topology = new Topology();

    @Override
    protected void doPut(HttpServletRequest request, HttpServletResponse response) {
        String collection = request.getServletPath();
        List<String> segments = segments(request);
        if (segments == null) {
            error(request, response, 400, "bad percent-encoding");
            return;
        }
        if (segments.size() != 1) {
            error(request, response, 404, "no such resource");
            return;
        }
        String name = segments.get(0);
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            error(request, response, 400, "a name is at most " + MAX_NAME_BYTES + " UTF-8 bytes");
            return;
        }
        Map<?, ?> body = body(request, response);
        if (body == null) {
            return;
        }
        try {
            if ("/queues".equals(collection)) {
                declareQueue(request, response, name, body);
            } else if ("/exchanges".equals(collection)) {
                declareExchange(request, response, name, body);
            } else {
                error(request, response, 405, "PUT is not allowed here");
            }
        } catch (IllegalArgumentException bad) {
            error(request, response, 400, bad.getMessage());
        }
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) {
        String collection = request.getServletPath();
        List<String> segments = segments(request);
        if (segments == null) {
            error(request, response, 400, "bad percent-encoding");
        } else if ("/queues".equals(collection) && segments.size() == 1) {
            Topology.Queue queue = topology.queue(segments.get(0));
            if (queue == null) {
                error(request, response, 404, "no queue '" + segments.get(0) + "'");
            } else {
                value(request, response, 200, info(queue));
            }
        } else if ("/bindings".equals(collection) && segments.isEmpty()) {
            listBindings(request, response);
        } else {
            error(request, response, 404, "no such resource");
        }
    }

    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) {
        String collection = request.getServletPath();
        List<String> segments = segments(request);
        if (segments == null) {
            error(request, response, 400, "bad percent-encoding");
        } else if ("/queues".equals(collection) && segments.size() == 1) {
            // RabbitMQ answers a deleted queue's message count; deleting a missing queue is not an error there.
            topology.deleteQueue(segments.get(0));
            value(request, response, 200, Map.of("message_count", UnsignedLong.of(0)));
        } else if ("/queues".equals(collection) && segments.size() == 2 && "messages".equals(segments.get(1))) {
            if (topology.queue(segments.get(0)) == null) {
                error(request, response, 404, "no queue '" + segments.get(0) + "'");
            } else {
                value(request, response, 200, Map.of("message_count", UnsignedLong.of(0)));
            }
        } else if ("/exchanges".equals(collection) && segments.size() == 1) {
            topology.deleteExchange(segments.get(0));
            noContent(request, response);
        } else if ("/bindings".equals(collection) && segments.size() == 1) {
            unbind(request, response, segments.get(0));
        } else {
            error(request, response, 404, "no such resource");
        }
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) {
        List<String> segments = segments(request);
        if (!"/bindings".equals(request.getServletPath()) || segments == null || !segments.isEmpty()) {
            error(request, response, 405, "POST is allowed on /bindings only");
            return;
        }
        Map<?, ?> body = body(request, response);
        if (body == null) {
            return;
        }
        try {
            String destinationQueue = string(body, "destination_queue", null);
            String destinationExchange = string(body, "destination_exchange", null);
            if ((destinationQueue == null) == (destinationExchange == null)) {
                throw new IllegalArgumentException("exactly one of destination_queue and destination_exchange");
            }
            Topology.Binding binding = new Topology.Binding(string(body, "source", null), destinationQueue != null,
                    destinationQueue != null ? destinationQueue : destinationExchange,
                    string(body, "binding_key", ""), arguments(body));
            if (binding.source() == null) {
                throw new IllegalArgumentException("no source");
            }
            switch (topology.bind(binding)) {
                case BOUND -> noContent(request, response);
                case NOT_FOUND -> error(request, response, 404, "no exchange '" + binding.source()
                        + "' or no destination '" + binding.destination() + "'");
                case FULL -> error(request, response, 403, "the demo keeps at most " + Topology.MAX_BINDINGS
                        + " bindings");
            }
        } catch (IllegalArgumentException bad) {
            error(request, response, 400, bad.getMessage());
        }
    }

    private void declareQueue(HttpServletRequest request, HttpServletResponse response, String name, Map<?, ?> body) {
        Map<Object, Object> arguments = arguments(body);
        Object type = arguments.getOrDefault("x-queue-type", "classic");
        if (!(type instanceof String)) {
            throw new IllegalArgumentException("x-queue-type is not a string");
        }
        // RabbitMQ's defaults for what a client leaves out (a quorum queue's declaration names none of them).
        Topology.Queue queue = new Topology.Queue(name, bool(body, "durable", true), bool(body, "auto_delete", false),
                bool(body, "exclusive", false), (String) type, arguments);
        switch (topology.declare(queue)) {
            case CREATED -> value(request, response, 201, info(queue));
            case EXISTS -> value(request, response, 200, info(topology.queue(name)));
            case CONFLICT -> error(request, response, 409, "queue '" + name
                    + "' exists with other properties (PRECONDITION_FAILED)");
            case FULL -> error(request, response, 403, "the demo keeps at most " + Topology.MAX_QUEUES + " queues");
        }
    }

    private void declareExchange(HttpServletRequest request, HttpServletResponse response, String name,
            Map<?, ?> body) {
        Topology.Exchange exchange = new Topology.Exchange(name, string(body, "type", "direct"),
                bool(body, "durable", true), bool(body, "auto_delete", false), bool(body, "internal", false),
                arguments(body));
        switch (topology.declare(exchange)) {
            case CREATED, EXISTS -> noContent(request, response);
            case CONFLICT -> error(request, response, 409, "exchange '" + name
                    + "' exists with other properties (PRECONDITION_FAILED)");
            case FULL -> error(request, response, 403, "the demo keeps at most " + Topology.MAX_EXCHANGES
                    + " exchanges");
        }
    }

    /** {@code src=X;dstq=Q;key=K;args=A}, each value percent-encoded; {@code args} is the token of the listing. */
    private void unbind(HttpServletRequest request, HttpServletResponse response, String rawParameters) {
        Map<String, String> p = new LinkedHashMap<>();
        for (String field : rawParameters.split(";", -1)) {
            int eq = field.indexOf('=');
            String value = eq < 0 ? null : PathSegment.decode(field.substring(eq + 1));
            if (value == null) {
                error(request, response, 400, "bad binding parameter '" + field + "'");
                return;
            }
            p.put(field.substring(0, eq), value);
        }
        String source = p.get("src");
        String queue = p.get("dstq");
        String exchange = p.get("dste");
        if (source == null || (queue == null) == (exchange == null)) {
            error(request, response, 400, "a binding is src, dstq or dste, key and args");
            return;
        }
        String args = p.getOrDefault("args", "");
        for (Topology.Binding b : topology.bindings(source, queue != null, queue != null ? queue : exchange,
                p.getOrDefault("key", ""))) {
            if (argumentsToken(b.arguments()).equals(args)) {
                topology.unbind(b);
            }
        }
        noContent(request, response);
    }

    private void listBindings(HttpServletRequest request, HttpServletResponse response) {
        String source = request.getParameter("src");
        String queue = request.getParameter("dstq");
        String exchange = request.getParameter("dste");
        if (source == null || (queue == null) == (exchange == null)) {
            error(request, response, 400, "a binding query is src, dstq or dste, and key");
            return;
        }
        String key = request.getParameter("key") == null ? "" : request.getParameter("key");
        List<Object> out = new ArrayList<>();
        for (Topology.Binding b : topology.bindings(source, queue != null, queue != null ? queue : exchange, key)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("source", b.source());
            m.put(b.toQueue() ? "destination_queue" : "destination_exchange", b.destination());
            m.put("binding_key", b.key());
            m.put("arguments", b.arguments());
            m.put("location", "/bindings/src=" + PathSegment.encode(b.source())
                    + (b.toQueue() ? ";dstq=" : ";dste=") + PathSegment.encode(b.destination())
                    + ";key=" + PathSegment.encode(b.key()) + ";args=" + argumentsToken(b.arguments()));
            out.add(m);
        }
        value(request, response, 200, out);
    }

    /**
     * {@return how a binding's location names its arguments}: empty for none (what clients send), else a token
     * that only this process's listing hands out.
     */
    private static String argumentsToken(Map<Object, Object> arguments) {
        return arguments.isEmpty() ? "" : Integer.toHexString(arguments.hashCode());
    }

    /** The queue info map RabbitMQ answers, with its AMQP types (both clients read every key). */
    private static Map<String, Object> info(Topology.Queue queue) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", queue.name());
        m.put("durable", queue.durable());
        m.put("auto_delete", queue.autoDelete());
        m.put("exclusive", queue.exclusive());
        m.put("type", queue.type());
        m.put("arguments", queue.arguments());
        m.put("message_count", UnsignedLong.of(0));
        m.put("consumer_count", UnsignedInteger.of(0));
        m.put("leader", NODE);
        m.put("replicas", AmqpArray.of(AmqpType.STRING, NODE));
        return m;
    }

    /**
     * {@return the path below the servlet's mapping, split at {@code /} and percent-decoded, or null when
     * malformed}; from the raw URI, because the container strips {@code ;} parameters from the decoded path.
     */
    private static List<String> segments(HttpServletRequest request) {
        String raw = request.getRequestURI().substring(request.getContextPath().length()
                + request.getServletPath().length());
        List<String> out = new ArrayList<>();
        if (raw.isEmpty() || "/".equals(raw)) {
            return out;
        }
        boolean bindingParameters = "/bindings".equals(request.getServletPath());
        for (String segment : raw.substring(1).split("/", -1)) {
            // A binding's parameters are decoded one by one: an encoded ';' or '=' belongs to a value.
            String decoded = bindingParameters ? segment : PathSegment.decode(segment);
            if (decoded == null) {
                return null;
            }
            out.add(decoded);
        }
        return out;
    }

    /** {@return the request's amqp-value map, or null after answering 400 or 413} */
    private static Map<?, ?> body(HttpServletRequest request, HttpServletResponse response) {
        if (request.getContentLengthLong() > MAX_BODY_BYTES) {
            error(request, response, 413, "a declaration is at most " + MAX_BODY_BYTES + " bytes as JSON");
            return null;
        }
        if (!(request.getAttribute(AmqpBody.REQUEST_VALUE) instanceof Map<?, ?> map)) {
            error(request, response, 400, "the body must be an amqp-value map");
            return null;
        }
        return map;
    }

    private static boolean bool(Map<?, ?> body, String key, boolean absent) {
        Object v = body.get(key);
        if (v == null) {
            return absent;
        }
        if (!(v instanceof Boolean b)) {
            throw new IllegalArgumentException(key + " is not a boolean");
        }
        return b;
    }

    private static String string(Map<?, ?> body, String key, String absent) {
        Object v = body.get(key);
        if (v == null) {
            return absent;
        }
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException(key + " is not a string");
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> arguments(Map<?, ?> body) {
        Object v = body.get("arguments");
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("arguments is not a map");
        }
        return (Map<Object, Object>) v;
    }

    private static void value(HttpServletRequest request, HttpServletResponse response, int status, Object value) {
        response.setStatus(status);
        request.setAttribute(AmqpBody.RESPONSE_VALUE, value);
    }

    /**
     * 204 with an empty map as its body: RabbitMQ's Java client reads the answer to every DELETE as a map (an
     * empty data section would fail its cast), and one form for every 204 keeps it simple.
     */
    private static void noContent(HttpServletRequest request, HttpServletResponse response) {
        value(request, response, 204, Map.of());
    }

    private static void error(HttpServletRequest request, HttpServletResponse response, int status, String message) {
        value(request, response, status, message);
    }
}
