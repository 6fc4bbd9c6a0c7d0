package io.amqpservlet.gateway.demo;

import jakarta.servlet.http.HttpServlet;
import org.eclipse.jetty.util.ajax.JSON;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code /orders}: a tiny in-memory order book in JSON. {@code POST /orders} stores the request body as the order
 * (any text; it is kept as a string) and answers 201 with {@code {"id":N}} and a {@code Location} header;
 * {@code GET /orders} lists {@code [{"id":N,"order":"..."},...]}; {@code GET /orders/N} returns one order or 404.
 * At most {@link #MAX_ORDERS} orders of {@link #MAX_ORDER_BYTES} each are kept, so the demo cannot be filled up.
 */
public final class OrdersServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** Orders kept; a POST beyond it gets 507. */
    public static final int MAX_ORDERS = 10_000;
    /** The largest order body accepted; a larger one gets 413. */
    public static final int MAX_ORDER_BYTES = 64 * 1024;

    /** Jetty's JSON writer (RFC 8259); maps are written in their iteration order. */
    private static final JSON JSON_WRITER = new JSON();

    private final Map<Long, String> orders = new ConcurrentSkipListMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getPathInfo() != null && !"/".equals(request.getPathInfo())) {
            response.sendError(405);
            return;
        }
        byte[] body = request.getInputStream().readNBytes(MAX_ORDER_BYTES + 1);
        if (body.length > MAX_ORDER_BYTES) {
            response.sendError(413, "an order is at most " + MAX_ORDER_BYTES + " bytes");
            return;
        }
        if (orders.size() >= MAX_ORDERS) {
            response.sendError(507, "the demo keeps at most " + MAX_ORDERS + " orders");
            return;
        }
        long id = nextId.getAndIncrement();
        orders.put(id, new String(body, StandardCharsets.UTF_8));
        response.setStatus(201);
        response.setHeader("Location", request.getContextPath() + "/orders/" + id);
        json(response, Map.of("id", id));
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String info = request.getPathInfo();
        if (info == null || "/".equals(info)) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (Map.Entry<Long, String> e : orders.entrySet()) {
                list.add(order(e.getKey(), e.getValue()));
            }
            json(response, list);
            return;
        }
        String order = null;
        long id = -1;
        try {
            id = Long.parseLong(info.substring(1));
            order = orders.get(id);
        } catch (NumberFormatException notAnId) {
            // falls through to 404: /orders/abc names no order
        }
        if (order == null) {
            response.setStatus(404);
            json(response, Map.of("error", "no order " + info.substring(1)));
            return;
        }
        json(response, order(id, order));
    }

    private static Map<String, Object> order(long id, String order) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("order", order);
        return m;
    }

    private static void json(HttpServletResponse response, Object value) throws IOException {
        byte[] bytes = JSON_WRITER.toJSON(value).getBytes(StandardCharsets.UTF_8);
        response.setContentType("application/json");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
