package io.amqpservlet.jetty;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Enumeration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The servlets the connector tests deploy. */
final class TestServlets {
    private TestServlets() {
    }

    /**
     * 200 with the request body as the response body (and its content type), {@code x-echo-method},
     * {@code x-echo-path} (the request URI as Jetty saw it), {@code x-echo-query}, {@code x-echo-host},
     * {@code x-echo-port}, {@code x-echo-scheme}, and every
     * request header whose name starts with {@code x-} copied back.
     */
    static final class Echo extends HttpServlet {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            calls.incrementAndGet();
            byte[] body = request.getInputStream().readAllBytes();
            response.setStatus(200);
            response.setHeader("x-echo-method", request.getMethod());
            response.setHeader("x-echo-path", request.getRequestURI());
            if (request.getQueryString() != null) {
                response.setHeader("x-echo-query", request.getQueryString());
            }
            response.setHeader("x-echo-host", request.getServerName());
            response.setHeader("x-echo-port", Integer.toString(request.getServerPort()));
            response.setHeader("x-echo-scheme", request.getScheme());
            Enumeration<String> names = request.getHeaderNames();
            while (names.hasMoreElements()) {
                String name = names.nextElement();
                if (name.toLowerCase(Locale.ROOT).startsWith("x-")) {
                    response.setHeader(name, request.getHeader(name));
                }
            }
            if (request.getContentType() != null) {
                response.setContentType(request.getContentType());
            }
            response.getOutputStream().write(body);
        }
    }

    /** Always fails: the container answers 500. */
    static final class Throwing extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException {
            throw new ServletException("this servlet always fails (expected by the test)");
        }
    }

    /**
     * Holds every request until {@code parties} requests are inside the servlet at once, then answers them all: a
     * test passes only if that many requests were really in flight together.
     */
    static final class Barrier extends HttpServlet {
        final CountDownLatch arrived;

        Barrier(int parties) {
            arrived = new CountDownLatch(parties);
        }

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            arrived.countDown();
            if (!awaitOr503(arrived, 10, response,
                    () -> "only " + arrived.getCount() + " requests short of the barrier")) {
                return;
            }
            response.setStatus(200);
            response.setHeader("x-request", request.getHeader("x-request"));
        }
    }

    /** Holds each request until the test opens it ({@code open}), so that its connection is serving meanwhile. */
    static final class Gate extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            entered.countDown();
            if (!awaitOr503(open, 30, response, () -> "the test never opened the gate")) {
                return;
            }
            response.setStatus(200);
            response.getOutputStream().write("gate".getBytes());
        }
    }

    /** Waits for {@code latch}; answers 503 with {@code reason} (and returns false) when it does not open in time. */
    private static boolean awaitOr503(CountDownLatch latch, long seconds, HttpServletResponse response,
                                      java.util.function.Supplier<String> reason) throws IOException {
        try {
            if (latch.await(seconds, TimeUnit.SECONDS)) {
                return true;
            }
            response.sendError(503, reason.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.sendError(503);
        }
        return false;
    }

    /** Answers from another thread after the servlet returned (Servlet async): the response comes later. */
    static final class Async extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            AsyncContext async = request.startAsync();
            Thread later = new Thread(() -> {
                try {
                    Thread.sleep(50);
                    HttpServletResponse r = (HttpServletResponse) async.getResponse();
                    r.setStatus(202);
                    r.setContentType("text/plain");
                    r.getOutputStream().write("later".getBytes());
                } catch (InterruptedException | IOException e) {
                    ((HttpServletResponse) async.getResponse()).setStatus(500);
                } finally {
                    async.complete();
                }
            }, "async-test-responder");
            later.setDaemon(true);
            later.start();
        }
    }

    /** Writes the body in two flushes: the response still carries one data section holding both. */
    static final class TwoFlushes extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getOutputStream().write("first,".getBytes());
            response.flushBuffer();
            response.getOutputStream().write("second".getBytes());
        }
    }

    /**
     * Echoes the body into an array of exactly the declared Content-Length, so the servlet itself allocates no more
     * than the body: the allocation test measures the connector, not {@code readAllBytes()}'s growing buffers.
     */
    static final class SizedEcho extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            int length = Math.max(request.getContentLength(), 0);
            byte[] body = new byte[length];
            int read = request.getInputStream().readNBytes(body, 0, length);
            response.setStatus(200);
            if (request.getContentType() != null) {
                response.setContentType(request.getContentType());
            }
            response.setContentLength(read);
            response.getOutputStream().write(body, 0, read);
        }
    }

    /**
     * {@code /bytes/{n}}: n bytes where byte i is {@code i mod 251}, written in 64 KiB chunks with a flush after each
     * but the last, so a large response streams as several transfers. The interop clients check the pattern.
     */
    static final class Bytes extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            long n = Long.parseLong(request.getPathInfo().substring(1));
            response.setStatus(200);
            response.setContentType("application/octet-stream");
            response.setContentLengthLong(n);
            ServletOutputStream out = response.getOutputStream();
            byte[] chunk = new byte[64 * 1024];
            for (long i = 0; i < n; ) {
                int length = (int) Math.min(chunk.length, n - i);
                for (int k = 0; k < length; k++) {
                    chunk[k] = (byte) ((i + k) % 251);
                }
                out.write(chunk, 0, length);
                i += length;
                if (i < n) {
                    out.flush();
                }
            }
        }
    }

    /**
     * {@code /typed/queue/{name}}: a queue resource answering as RabbitMQ's management API does, with a typed body
     * ({@link AmqpBody#RESPONSE_VALUE}) whose AMQP types the clients check: {@code message_count} a ulong,
     * {@code consumer_count} a uint, {@code replicas} an AMQP array of strings, {@code arguments} and
     * {@code durable} as the request's typed body gave them. Headers report what the servlet saw:
     * {@code x-request-json} the body it read (JSON), {@code x-request-content-type}, {@code x-request-value-class}
     * the Java class of {@link AmqpBody#REQUEST_VALUE}.
     */
    static final class TypedQueue extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String json = new String(request.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            Object value = request.getAttribute(AmqpBody.REQUEST_VALUE);
            response.setHeader("x-request-json", json);
            response.setHeader("x-request-content-type", String.valueOf(request.getContentType()));
            response.setHeader("x-request-value-class", value == null ? "null" : value.getClass().getName());
            java.util.Map<?, ?> declared = value instanceof java.util.Map ? (java.util.Map<?, ?>) value : java.util.Map.of();
            java.util.Map<String, Object> queue = new java.util.LinkedHashMap<>();
            queue.put("name", request.getPathInfo().substring(request.getPathInfo().lastIndexOf('/') + 1));
            queue.put("durable", declared.containsKey("durable") ? declared.get("durable") : Boolean.TRUE);
            queue.put("auto_delete", false);
            queue.put("exclusive", false);
            queue.put("type", "quorum");
            queue.put("arguments", declared.containsKey("arguments") ? declared.get("arguments") : java.util.Map.of());
            queue.put("message_count", io.amqpservlet.protocol.value.UnsignedLong.of(0));
            queue.put("consumer_count", io.amqpservlet.protocol.value.UnsignedInteger.of(3));
            queue.put("leader", "rabbit@localhost");
            queue.put("replicas", io.amqpservlet.protocol.value.AmqpArray.of(io.amqpservlet.protocol.codec.AmqpType.STRING,
                    "rabbit@localhost", "rabbit@other"));
            request.setAttribute(AmqpBody.RESPONSE_VALUE, queue);
            response.setStatus("PUT".equals(request.getMethod()) ? 201 : 200);
        }
    }

    /**
     * Sets fields whose names are the mapping's own application-property keys ({@code http:response} in two
     * cases, {@code http:status}) beside an ordinary one, {@code x-other}.
     */
    static final class MappingNamedHeaders extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            response.setStatus(200);
            response.setHeader("http:response", "9");
            response.setHeader("HTTP:Response", "8");
            response.setHeader("http:status", "299");
            response.setHeader("x-other", "kept");
        }
    }
}
