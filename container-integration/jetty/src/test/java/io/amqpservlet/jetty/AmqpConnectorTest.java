package io.amqpservlet.jetty;

import io.amqpservlet.jetty.internal.connection.AmqpConnection;
import io.amqpservlet.jetty.AmqpSocketClient.Outcome;
import io.amqpservlet.jetty.AmqpSocketClient.Response;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.MessageId;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connector end to end: a real Jetty {@link Server} with a {@link ServerConnector} speaking AMQP on a loopback
 * port, a servlet context, and our initiator engine as the client over a real socket.
 */
@Timeout(60)
class AmqpConnectorTest {
    private Server server;
    private int port;
    private final TestServlets.Echo echo = new TestServlets.Echo();
    private final TestServlets.Barrier barrier = new TestServlets.Barrier(20);

    @BeforeEach
    void startServer() throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(64, 8);
        threads.setName("amqp-test");
        server = new Server(threads);
        try {
            ServerConnector connector = new ServerConnector(server, 1, 1, new AmqpConnectionFactory());
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.setContextPath("/");
            context.addServlet(new ServletHolder(echo), "/echo/*");
            context.addServlet(new ServletHolder(new TestServlets.Throwing()), "/boom");
            context.addServlet(new ServletHolder(barrier), "/barrier");
            context.addServlet(new ServletHolder(new TestServlets.TwoFlushes()), "/flushes");
            context.addServlet(new ServletHolder(new TestServlets.MappingNamedHeaders()), "/mapping-named");
            ServletHolder async = new ServletHolder(new TestServlets.Async());
            async.setAsyncSupported(true);
            context.addServlet(async, "/async");
            server.setHandler(context);
            server.start();
            port = connector.getLocalPort();
        } catch (Exception | Error e) {
            server.stop();
            throw e;
        }
    }

    @AfterEach
    void stopServer() throws Exception {
        server.stop();
    }

    /** Waits until every exchange on the server's AMQP connections has ended (streams are not leaked). */
    private void awaitNoActiveRequests() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        for (EndPoint endPoint : ((ServerConnector) server.getConnectors()[0]).getConnectedEndPoints()) {
            AmqpConnection connection = (AmqpConnection) endPoint.getConnection();
            while (connection.getActiveRequests() != 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(connection.getActiveRequests() + " requests still active");
                }
                Thread.sleep(5);
            }
        }
    }

    /** A request message; a null method omits the subject, a null replyTo makes it one-way. */
    private static AmqpWriter request(String method, String to, String replyTo, String messageId,
                                      Map<String, String> headers, String contentType, byte[] body) {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties();
        if (messageId != null) {
            m.messageId(messageId);
        }
        if (to != null) {
            m.to(to);
        }
        if (method != null) {
            m.subject(method);
        }
        if (replyTo != null) {
            m.replyTo(replyTo);
        }
        if (contentType != null) {
            m.contentType(contentType);
        }
        m.endProperties();
        if (!headers.isEmpty()) {
            m.startApplicationProperties();
            for (Map.Entry<String, String> e : headers.entrySet()) {
                m.put(e.getKey(), e.getValue());
            }
            m.endApplicationProperties();
        }
        if (body != null) {
            m.data(body, 0, body.length);
        }
        m.end();
        return w;
    }

    @Test
    void getRoundTripsMethodPathHeadersAndMessageIdAsCorrelationId() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Outcome outcome = client.send(request("GET", "/echo/items?color=blue", client.replyAddress(), "m-1",
                    Map.of("X-Trace", "abc", "x-lower", "v", "http:request", "1.1"), null, null));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals(client.replyAddress(), r.to);
            assertEquals(MessageId.Kind.STRING, r.correlationId.kind());
            assertEquals("m-1", r.correlationId.toString());
            assertEquals("1.1", r.properties.get("http:response"));
            assertEquals("GET", r.properties.get("x-echo-method"));
            assertEquals("/echo/items", r.properties.get("x-echo-path"));
            assertEquals("color=blue", r.properties.get("x-echo-query"));
            assertEquals("amqp.test", r.properties.get("x-echo-host"), "Host comes from the open's hostname");
            assertEquals("abc", r.properties.get("x-trace"), "header names arrive lowercased");
            assertEquals("v", r.properties.get("x-lower"));
            assertNull(r.properties.get("http:request"), "http: keys are not headers");
            assertEquals(0, r.body.length);
            assertEquals(1, r.dataSections, "an empty body is one empty data section");
            client.pumpUntil(() -> outcome.settled, "the request's outcome");
            assertEquals(DeliveryState.Kind.ACCEPTED, outcome.kind);
        }
    }

    @Test
    void anOpenHostnameThatIsNoHostLeavesTheServerNameAsHost() throws Exception {
        // RabbitMQ's AMQP 1.0 clients name a virtual host there (vhost:/); the hostname is only a hint (§2.7.1).
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null,
                AmqpSocketClient.defaultConfig().hostname("vhost:/"))) {
            client.send(request("GET", "/echo", client.replyAddress(), "m-v", Map.of(), null, null));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("localhost", r.properties.get("x-echo-host"));
        }
    }

    @Test
    void postEchoesBodyAndKeepsTheCorrelationIdType() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            byte[] body = "{\"n\":42,\"text\":\"h\u00e9llo\"}".getBytes(StandardCharsets.UTF_8);
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId("ignored-when-correlation-id-is-set")
                    .to("/echo/orders").subject("POST").replyTo(client.replyAddress())
                    .correlationId(new MessageId().setULong(42)).contentType("application/json").endProperties()
                    .startApplicationProperties().put("x-request-id", "r-7").put("host", "orders.example")
                    .endApplicationProperties()
                    .data(body, 0, 10).data(body, 10, body.length - 10).end();
            Outcome outcome = client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals(MessageId.Kind.ULONG, r.correlationId.kind(), "the correlation-id keeps its AMQP type");
            assertEquals(42, r.correlationId.ulongValue());
            assertArrayEquals(body, r.body, "data sections are concatenated into the request body");
            assertEquals("application/json", r.contentType);
            assertEquals("POST", r.properties.get("x-echo-method"));
            assertEquals("r-7", r.properties.get("x-request-id"));
            assertEquals("orders.example", r.properties.get("x-echo-host"), "the host application property wins");
            assertNull(r.properties.get("content-type"), "content-type travels in properties only");
            client.pumpUntil(() -> outcome.settled, "the request's outcome");
            assertEquals(DeliveryState.Kind.ACCEPTED, outcome.kind);
        }
    }

    @Test
    void unknownPathIsAnOrdinary404Response() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Outcome outcome = client.send(request("GET", "/nothing-here", client.replyAddress(), "m-404",
                    Map.of(), null, null));
            client.awaitResponses(1);
            assertEquals("404", client.responses.get(0).subject);
            assertEquals("m-404", client.responses.get(0).correlationId.toString());
            client.pumpUntil(() -> outcome.settled, "the request's outcome");
            assertEquals(DeliveryState.Kind.ACCEPTED, outcome.kind, "a 404 is a response, not a rejection");
        }
    }

    @Test
    void throwingServletGives500Response() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Outcome outcome = client.send(request("GET", "/boom", client.replyAddress(), "m-500", Map.of(), null, null));
            client.awaitResponses(1);
            assertEquals("500", client.responses.get(0).subject);
            client.pumpUntil(() -> outcome.settled, "the request's outcome");
            assertEquals(DeliveryState.Kind.ACCEPTED, outcome.kind);
        }
    }

    @Test
    void requestWithoutSubjectGets400WithoutReachingTheServlet() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Outcome outcome = client.send(request(null, "/echo/x", client.replyAddress(), "m-400", Map.of(), null,
                    "body".getBytes(StandardCharsets.UTF_8)));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("400", r.subject);
            assertEquals("m-400", r.correlationId.toString());
            assertTrue(r.bodyText().contains("subject"), r.bodyText());
            assertEquals(0, echo.calls.get());
            client.pumpUntil(() -> outcome.settled, "the request's outcome");
            assertEquals(DeliveryState.Kind.ACCEPTED, outcome.kind);
        }
    }

    @Test
    void oneWayRequestsReportTheStatusAsTheirOutcome() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Outcome ok = client.send(request("POST", "/echo/event", null, "a", Map.of(), null, new byte[] {1, 2}));
            Outcome missing = client.send(request("GET", "/missing", null, "b", Map.of(), null, null));
            Outcome failing = client.send(request("POST", "/boom", null, "c", Map.of(), null, null));
            Outcome noMethod = client.send(request(null, "/echo/event", null, "d", Map.of(), null, null));
            client.pumpUntil(() -> ok.settled && missing.settled && failing.settled && noMethod.settled,
                    "four outcomes");
            assertEquals(DeliveryState.Kind.ACCEPTED, ok.kind, ok.toString());
            assertEquals(DeliveryState.Kind.REJECTED, missing.kind, missing.toString());
            assertEquals("amqp:not-found", missing.condition);
            assertTrue(missing.description.startsWith("404"), missing.description);
            assertEquals(DeliveryState.Kind.MODIFIED, failing.kind, failing.toString());
            assertTrue(failing.deliveryFailed, "a 5xx lets the client retry");
            assertEquals(DeliveryState.Kind.REJECTED, noMethod.kind, noMethod.toString());
            assertTrue(noMethod.description.startsWith("400"), noMethod.description);
            assertEquals(0, client.responses.size(), "one-way requests get no response message");
            assertEquals(1, echo.calls.get());
        }
    }

    @Test
    void twentyRequestsAreInFlightAtOnceOnOneConnection() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                String id = "req-" + i;
                expected.add(id);
                client.send(request("GET", "/barrier", client.replyAddress(), id, Map.of("x-request", id), null, null));
            }
            client.awaitResponses(20);
            Set<String> correlated = new HashSet<>();
            for (Response r : client.responses) {
                assertEquals("200", r.subject, r.toString());
                assertEquals(r.correlationId.toString(), r.properties.get("x-request"));
                correlated.add(r.correlationId.toString());
            }
            assertEquals(expected, correlated);
            awaitNoActiveRequests();
        }
    }

    @Test
    void preSettledRequestStillGetsItsResponse() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "/echo/fire", client.replyAddress(), "s-1", Map.of(), null, null), true);
            client.send(request("GET", "/echo/fire", client.replyAddress(), "s-2", Map.of(), null, null), true);
            client.awaitResponses(2);
            assertEquals("200", client.responses.get(0).subject);
            assertEquals("200", client.responses.get(1).subject);
        }
    }

    @Test
    void httpRequestPropertyNamesTheVersionAndTheResponseAnswersInIt() throws Exception {
        String[][] cases = {{"1.0", "1.0"}, {"1.1", "1.1"}, {"2", "2"}, {"2.0", "2"}};
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            for (String[] c : cases) {
                client.send(request("GET", "/echo/v", client.replyAddress(), "v" + c[0], Map.of("http:request", c[0]),
                        null, null));
            }
            client.send(request("GET", "/echo/v", client.replyAddress(), "none", Map.of(), null, null));
            client.send(request("GET", "/echo/v", client.replyAddress(), "bad", Map.of("http:request", "1.2"),
                    null, null));
            client.send(request("GET", "/echo/v", client.replyAddress(), "http", Map.of("http:request", "HTTP/1.1"),
                    null, null));
            client.awaitResponses(cases.length + 3);
            Map<String, Response> byId = new java.util.HashMap<>();
            for (Response r : client.responses) {
                byId.put(r.correlationId.toString(), r);
            }
            for (String[] c : cases) {
                Response r = byId.get("v" + c[0]);
                assertEquals("200", r.subject, c[0]);
                assertEquals(c[1], r.properties.get("http:response"), c[0]);
            }
            assertEquals("1.1", byId.get("none").properties.get("http:response"));
            // RFC 9110 §15.6.6: a version the server does not support is 505, without running the servlet.
            for (String id : new String[] {"bad", "http"}) {
                Response r = byId.get(id);
                assertEquals("505", r.subject, id);
                assertTrue(r.bodyText().contains("http:request"), r.bodyText());
            }
            assertEquals(cases.length + 1, echo.calls.get());
        }
    }

    @Test
    void headerValueWithLineBreakIs400() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "/echo/x", client.replyAddress(), "h", Map.of("x-evil", "a\r\nset-cookie: b"),
                    null, null));
            client.awaitResponses(1);
            assertEquals("400", client.responses.get(0).subject);
            assertEquals(0, echo.calls.get());
        }
    }

    /** An amqp-sequence reaches the servlet as JSON (docs/mapping.md, "Typed bodies"); its JSON echo is an amqp-value. */
    @Test
    void amqpSequenceBodyReachesTheServletAsJson() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            AmqpWriter w = new AmqpWriter();
            MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("q").to("/echo/x").subject("POST")
                    .replyTo(client.replyAddress()).endProperties().startAmqpSequence();
            m.writer().writeInt(1);
            m.endAmqpSequence().end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("POST", r.properties.get("x-echo-method"));
            assertEquals(1, echo.calls.get());
            assertEquals(0, r.dataSections, "the JSON echo went back as an amqp-value");
        }
    }

    /** rhea sends a message without a body as an amqp-value null: that is a request without a body. */
    @Test
    void amqpValueNullBodyIsNoBody() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            AmqpWriter w = new AmqpWriter();
            MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("n").to("/echo/null")
                    .subject("GET").replyTo(client.replyAddress()).endProperties().startAmqpValue();
            m.writer().writeNull();
            m.end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("GET", r.properties.get("x-echo-method"));
            assertEquals(0, r.body.length);
            assertEquals(1, echo.calls.get());
        }
    }

    @Test
    void targetComesFromTheLinkAddressWhenToIsAbsent() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, "/echo/from-link")) {
            client.send(request("GET", null, client.replyAddress(), "m", Map.of(), null, null));
            client.awaitResponses(1);
            assertEquals("/echo/from-link", client.responses.get(0).properties.get("x-echo-path"));
        }
    }

    @Test
    void amqpAuthorityIsDroppedAndForbiddenCharactersAreEncoded() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "amqp://127.0.0.1:5672/echo/a b", client.replyAddress(), "m", Map.of(), null,
                    null));
            client.awaitResponses(1);
            assertEquals("/echo/a%20b", client.responses.get(0).properties.get("x-echo-path"));
        }
    }

    @Test
    void absoluteFormTargetGivesTheRequestItsSchemeAndHost() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "http://example.com/echo/abs?z=1", client.replyAddress(), "plain", Map.of(),
                    null, null));
            client.send(request("GET", "HTTPS://api.example:8443/echo/a b", client.replyAddress(), "tls",
                    Map.of("host", "ignored.example"), null, null));
            client.send(request("GET", "http://example.com?q=1", client.replyAddress(), "no-path",
                    Map.of("http:host", "named.example"), null, null));
            client.send(request("GET", "http:///echo", client.replyAddress(), "no-host", Map.of(), null, null));
            client.send(request("GET", "http://user:pw@example.com/echo", client.replyAddress(), "userinfo", Map.of(),
                    null, null));
            client.awaitResponses(5);
            Map<String, Response> byId = new java.util.HashMap<>();
            for (Response r : client.responses) {
                byId.put(r.correlationId.toString(), r);
            }
            Response plain = byId.get("plain");
            assertEquals("200", plain.subject);
            assertEquals("/echo/abs", plain.properties.get("x-echo-path"));
            assertEquals("z=1", plain.properties.get("x-echo-query"));
            assertEquals("example.com", plain.properties.get("x-echo-host"));
            assertEquals("http", plain.properties.get("x-echo-scheme"));

            Response tls = byId.get("tls");
            assertEquals("/echo/a%20b", tls.properties.get("x-echo-path"));
            assertEquals("api.example", tls.properties.get("x-echo-host"), "the authority wins over a host property");
            assertEquals("8443", tls.properties.get("x-echo-port"));
            assertEquals("https", tls.properties.get("x-echo-scheme"));

            Response noPath = byId.get("no-path");
            assertEquals("404", noPath.subject, "the target is / (no servlet there), its query kept");
            Response noHost = byId.get("no-host");
            assertEquals("400", noHost.subject, "an http URI without a host is no request target");
            assertEquals("400", byId.get("userinfo").subject, "nor one with userinfo (RFC 9110 §4.2.4)");
        }
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "http://example.com/echo/named", client.replyAddress(), "m",
                    Map.of("http:host", "named.example"), null, null));
            client.awaitResponses(1);
            assertEquals("named.example", client.responses.get(0).properties.get("x-echo-host"),
                    "http:host names the host even of an absolute-form target");
        }
    }

    @Test
    void amqpValueStringBodyIsUtf8Text() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId("v").to("/echo/text").subject("PUT")
                    .replyTo(client.replyAddress()).endProperties().amqpValue("gr\u00fc\u00df").end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("gr\u00fc\u00df", r.bodyText());
            assertEquals("text/plain;charset=utf-8", r.contentType);
        }
    }

    @Test
    void asyncServletAnswersFromAnotherThread() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            Outcome outcome = client.send(request("GET", "/async", client.replyAddress(), "a-1", Map.of(), null, null));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("202", r.subject);
            assertEquals("later", r.bodyText());
            client.pumpUntil(() -> outcome.settled, "the request's outcome");
            assertEquals(DeliveryState.Kind.ACCEPTED, outcome.kind);
        }
    }

    @Test
    void flushesAreJoinedIntoOneDataSection() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "/flushes", client.replyAddress(), "f", Map.of(), null, null));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("first,second", r.bodyText());
            assertEquals(1, r.dataSections, "proton-j based clients read only the last data section");
        }
    }
    /** HTTP field names are case-insensitive: a {@code Host} application-property is the host property. */
    @Test
    void hostApplicationPropertyIsFoundWhateverTheCaseOfItsName() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "/echo/h", client.replyAddress(), "cap", Map.of("Host", "cap.example"), null,
                    null));
            client.send(request("GET", "/echo/h", client.replyAddress(), "upper", Map.of("HOST", "upper.example:81"),
                    null, null));
            client.send(request("GET", "/echo/h", client.replyAddress(), "bad", Map.of("Host", "a b"), null, null));
            client.awaitResponses(3);
            Map<String, Response> byId = new java.util.HashMap<>();
            for (Response r : client.responses) {
                byId.put(r.correlationId.toString(), r);
            }
            assertEquals("cap.example", byId.get("cap").properties.get("x-echo-host"));
            assertEquals("upper.example", byId.get("upper").properties.get("x-echo-host"));
            assertEquals("81", byId.get("upper").properties.get("x-echo-port"));
            assertEquals("400", byId.get("bad").subject, "a Host that is no host[:port] is checked as host's is");
            assertEquals(2, echo.calls.get());
        }
    }

    /**
     * properties.content-type and content-encoding become headers: a line break in them is refused as in an
     * application-property, so neither can carry an injected field to where the request is written as HTTP/1.
     */
    @Test
    void contentTypeOrEncodingWithLineBreakIs400() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("POST", "/echo/x", client.replyAddress(), "type", Map.of(),
                    "text/plain\r\nx-injected: 1", new byte[] {1}));
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId("encoding").to("/echo/x").subject("POST")
                    .replyTo(client.replyAddress()).contentEncoding("gzip\nx-injected: 1").endProperties()
                    .data(new byte[] {1}, 0, 1).end();
            client.send(w);
            client.awaitResponses(2);
            for (Response r : client.responses) {
                assertEquals("400", r.subject, r.toString());
                assertTrue(r.bodyText().contains("control character"), r.bodyText());
            }
            assertEquals(0, echo.calls.get());
        }
    }

    /** The text/plain default of an amqp-value string is a default: a content-type application-property names it. */
    @Test
    void amqpValueStringKeepsTheContentTypeOfItsApplicationProperty() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId("v").to("/echo/text").subject("PUT")
                    .replyTo(client.replyAddress()).endProperties().startApplicationProperties()
                    .put("content-type", "application/json").endApplicationProperties().amqpValue("{\"a\":1}").end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("{\"a\":1}", r.bodyText());
            assertEquals("application/json", r.contentType);
        }
    }

    /**
     * A servlet's fields named in the mapping's own namespace are not sent: {@code http:response} stays the
     * version, and is one key (a map with a key twice is not a valid AMQP map).
     */
    @Test
    void responseFieldsNamedLikeTheMappingsOwnAreNotSent() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "/mapping-named", client.replyAddress(), "m", Map.of(), null, null));
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("1.1", r.properties.get("http:response"));
            assertNull(r.properties.get("http:status"));
            assertEquals("kept", r.properties.get("x-other"));
        }
    }

    /**
     * The HTTP configuration's request header size (8 KiB by default) bounds a request's method, target and headers
     * together, as Jetty's HTTP connections bound a request's head: a message may be 16 MiB, and every header would
     * become a field object, the target a line of the request log.
     */
    @Test
    void requestHeadBeyondTheRequestHeaderSizeIs414Or431() throws Exception {
        int limit = new org.eclipse.jetty.server.HttpConfiguration().getRequestHeaderSize();
        Map<String, String> manyHeaders = new java.util.HashMap<>();
        for (int i = 0; manyHeaders.size() * 20 <= limit; i++) {
            manyHeaders.put("x-h-" + (10000 + i), "0123456789".repeat(2)); // 29 characters each
        }
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("GET", "/echo/" + "a".repeat(limit), client.replyAddress(), "target", Map.of(), null,
                    null));
            client.send(request("GET", "/echo/h", client.replyAddress(), "headers", manyHeaders, null, null));
            client.send(request("GET", "/echo/h", client.replyAddress(), "host",
                    Map.of("http:host", "h".repeat(limit)), null, null));
            client.send(request("GET", "/echo/" + "a".repeat(limit / 2), client.replyAddress(), "within",
                    Map.of("x-long", "b".repeat(limit / 4)), null, null));
            // Refusals that name what the peer sent do not repeat it at any length.
            client.send(request("GET", "/echo/h", client.replyAddress(), "key",
                    Map.of("bad key " + "k".repeat(limit), "v"), null, null));
            client.send(request("GET", "/echo/h", client.replyAddress(), "version",
                    Map.of("http:request", "9".repeat(limit * 4)), null, null));
            client.awaitResponses(6);
            Map<String, Response> byId = new java.util.HashMap<>();
            for (Response r : client.responses) {
                byId.put(r.correlationId.toString(), r);
            }
            assertEquals("414", byId.get("target").subject);
            assertEquals("431", byId.get("headers").subject);
            assertEquals("431", byId.get("host").subject);
            assertTrue(byId.get("host").body.length < 200, "the refusal does not echo the host");
            assertEquals("200", byId.get("within").subject);
            assertEquals("431", byId.get("key").subject);
            assertTrue(byId.get("key").body.length < 200, "the refusal does not echo the key");
            assertEquals("505", byId.get("version").subject);
            assertTrue(byId.get("version").body.length < 200, "the refusal does not echo the version");
            assertEquals(1, echo.calls.get());
        }
    }

    /** The target meets Jetty's URI checks as an HTTP request-target does (docs/mapping.md, request-target). */
    @Test
    void targetsJettyFindsAmbiguousAre400AsOverHttp() throws Exception {
        String[] refused = {"/echo/a%2Fb", "/echo/100%", "/echo/a%zz", "/echo//x", "/echo/..;/x", "/echo/a\\b",
            "/echo/../../etc/passwd", "/echo/%2e%2e/%2e%2e/x"};
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            for (int i = 0; i < refused.length; i++) {
                client.send(request("GET", refused[i], client.replyAddress(), Integer.toString(i), Map.of(), null,
                        null));
            }
            client.send(request("GET", "/nowhere/../echo/in", client.replyAddress(), "dots", Map.of(), null, null));
            client.awaitResponses(refused.length + 1);
            for (Response r : client.responses) {
                if (r.correlationId.toString().equals("dots")) {
                    assertEquals("200", r.subject, "a .. within the path is resolved");
                } else {
                    assertEquals("400", r.subject, refused[Integer.parseInt(r.correlationId.toString())]);
                }
            }
            assertEquals(1, echo.calls.get());
        }
    }
}
