package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpSocketClient.Outcome;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslMechanisms;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the listener does with peers that break the rules, over real sockets: each gets a clear answer (the protocol
 * header it would accept, a SASL outcome, an {@code amqp:} error on the narrowest scope, a closed socket after a
 * deadline), and a well-behaved client on another connection is served normally while and after it happens.
 *
 * <p>The server's limits are set small so the tests are quick: 500 ms for the SASL handshake, 1 s for a frame to
 * arrive whole, 64 KiB messages,
 * 8 buffered responses per reply link, 12 responses a client has not settled; handle-max stays at its default
 * (1,023).
 */
@Timeout(60)
class ListenerBadInputTest {
    private static final long SASL_TIMEOUT_MILLIS = 500;
    private static final long PARTIAL_FRAME_TIMEOUT_MILLIS = 1_000;
    private static final long MAX_MESSAGE_BYTES = 64 * 1024;
    private static final int BUFFERED_REPLIES = 8;
    private static final int UNSETTLED_REPLIES = 12;

    private final TestServlets.Echo echo = new TestServlets.Echo();
    private Server server;
    private HashLoginService logins;
    private int port;

    @BeforeEach
    void start() throws Exception {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("right"), new String[] {"user"});
        logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        logins.start();
        EngineConfig config = new EngineConfig().anonymousAllowed(true).saslRequired(false)
                .saslTimeoutMillis(SASL_TIMEOUT_MILLIS).partialFrameTimeoutMillis(PARTIAL_FRAME_TIMEOUT_MILLIS)
                .maxMessageSizeBytes(MAX_MESSAGE_BYTES)
                .maxBufferedMessagesPerLink(BUFFERED_REPLIES).maxUnsettledSentDeliveries(UNSETTLED_REPLIES);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(), config);
        factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(new ServletHolder(echo), "/echo/*");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            server.stop();
        } finally {
            logins.stop();
        }
    }

    /** A normal request on a new connection of its own gets its normal response. */
    private void anotherClientIsServed() throws IOException {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.send(request("/echo/ok", client.replyAddress(), new byte[] {'o', 'k'}));
            client.awaitResponses(1);
            assertEquals("200", client.responses.get(0).subject);
            assertEquals("ok", client.responses.get(0).bodyText());
        }
    }

    private static AmqpWriter request(String to, String replyTo, byte[] body) {
        AmqpWriter w = new AmqpWriter();
        new MessageWriter().wrap(w).startProperties().messageId("m").to(to).subject("POST").replyTo(replyTo)
                .endProperties().data(body, 0, body.length).end();
        return w;
    }

    /** A raw peer past the bare AMQP header exchange and open (no SASL: this server allows that). */
    private RawAmqpPeer openedRawPeer() throws IOException {
        RawAmqpPeer peer = new RawAmqpPeer(port);
        peer.writeHeader(ProtocolHeader.AMQP);
        peer.writeFrame(0, new Open().containerId("raw-peer"));
        assertEquals(ProtocolHeader.AMQP.protocolId(), peer.readHeader().protocolId());
        peer.readUntil(Open.class);
        return peer;
    }

    private static void beginSession(RawAmqpPeer peer, int channel) throws IOException {
        peer.writeFrame(channel, new Begin().nextOutgoingId(0).incomingWindow(1000).outgoingWindow(1000)
                .handleMax(65535));
        peer.readUntil(Begin.class);
    }

    private static Attach senderAttach(int handle, String address) {
        Attach a = new Attach().name("link-" + handle).handle(handle).role(Role.SENDER).initialDeliveryCount(0);
        a.source().present(true);
        a.target().present(true).address(address);
        return a;
    }

    private static boolean startsWithAmqp(byte[] bytes) {
        return bytes.length >= 4 && bytes[0] == 'A' && bytes[1] == 'M' && bytes[2] == 'Q' && bytes[3] == 'P';
    }

    @Test
    void garbageBytesGetTheProtocolHeaderAndAClosedSocket() throws Exception {
        byte[] garbage = new byte[256];
        new Random(1).nextBytes(garbage);
        garbage[0] = 0x16; // not 'A': neither an AMQP header nor any prefix of one
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.write(garbage);
            byte[] answer = peer.awaitEof(5_000);
            // AMQP 1.0 §2.2: a bad header is answered with the header the server would accept, then the socket closes.
            assertTrue(startsWithAmqp(answer), "answer: " + new String(answer, StandardCharsets.ISO_8859_1));
            assertEquals(8, answer.length, "nothing but the protocol header");
        }
        anotherClientIsServed();
    }

    @Test
    void unsupportedAmqpVersionGetsOurHeaderBack() throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.write(new byte[] {'A', 'M', 'Q', 'P', 0, 0, 9, 1});
            byte[] answer = peer.awaitEof(5_000);
            assertEquals(8, answer.length);
            assertTrue(startsWithAmqp(answer));
            assertEquals(1, answer[5], "major version 1");
            assertEquals(0, answer[6], "minor version 0");
        }
        anotherClientIsServed();
    }

    @Test
    void httpRequestToTheAmqpPortGetsAnAmqpHeaderNotAnHttpResponse() throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.write("GET /echo/x HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] answer = peer.awaitEof(5_000);
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            assertTrue(startsWithAmqp(answer), "answer: " + text);
            assertFalse(text.contains("HTTP/"), "answer: " + text);
        }
        assertEquals(0, echo.calls.get(), "the HTTP request never reached a servlet");
        anotherClientIsServed();
    }

    @Test
    void saslHeaderThenSilenceIsClosedAtTheSaslDeadline() throws Exception {
        long start = System.nanoTime(); // before connecting, so no earlier than the server's deadline starts
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.SASL);
            assertEquals(ProtocolHeader.ID_SASL, peer.readHeader().protocolId());
            peer.readUntil(SaslMechanisms.class);
            anotherClientIsServed(); // while this peer stalls
            peer.awaitEof(SASL_TIMEOUT_MILLIS + 5_000);
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMillis >= SASL_TIMEOUT_MILLIS - 5, "closed after " + elapsedMillis + " ms");
        }
        anotherClientIsServed();
    }

    @Test
    void amqpHeaderWithoutOpenIsClosedAtTheHandshakeDeadline() throws Exception {
        long start = System.nanoTime(); // before connecting, so no earlier than the server's deadline starts
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.AMQP);
            assertEquals(ProtocolHeader.ID_AMQP, peer.readHeader().protocolId());
            anotherClientIsServed(); // while this peer stalls
            peer.awaitEof(SASL_TIMEOUT_MILLIS + 5_000);
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(elapsedMillis >= SASL_TIMEOUT_MILLIS - 5, "closed after " + elapsedMillis + " ms");
        }
        anotherClientIsServed();
    }

    @Test
    void wrongPlainPasswordGetsSaslOutcomeAuthThenTheSocketCloses() throws Exception {
        for (String password : new String[] {"wrong", "", "right-but-longer"}) {
            try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
                peer.writeHeader(ProtocolHeader.SASL);
                assertEquals(ProtocolHeader.ID_SASL, peer.readHeader().protocolId());
                SaslMechanisms offered = peer.readUntil(SaslMechanisms.class);
                assertTrue(offered.mechanisms().contains(Symbol.of("PLAIN")), offered.toString());
                SaslFrames out = new SaslFrames();
                byte[] response = ("\0alice\0" + password).getBytes(StandardCharsets.UTF_8);
                out.init().clear().mechanism(Symbol.of("PLAIN")).initialResponse().set(response, 0, response.length);
                peer.writeSasl(out.init());
                SaslOutcome outcome = peer.readUntil(SaslOutcome.class);
                assertEquals(SaslOutcome.AUTH, outcome.code(), outcome.toString());
                peer.awaitEof(5_000);
            }
        }
        anotherClientIsServed();
        try (AmqpSocketClient alice = AmqpSocketClient.connect(port, null,
                AmqpSocketClient.defaultConfig().saslPlain("alice", "right"))) {
            assertTrue(alice.engine().isOpen(), "the right password still works");
        }
    }

    @Test
    void frameOverTheLimitBeforeOpenIsAFramingError() throws Exception {
        try (RawAmqpPeer peer = new RawAmqpPeer(port)) {
            peer.writeHeader(ProtocolHeader.AMQP);
            // AMQP 1.0 §2.7.1: no frame may exceed 512 bytes before open; this one claims 1 MiB.
            peer.write(new byte[] {0, 0x10, 0, 0, 2, 0, 0, 0});
            assertEquals(ProtocolHeader.ID_AMQP, peer.readHeader().protocolId());
            Close close = peer.readUntil(Close.class);
            assertTrue(close.error().is(ErrorConditions.CONNECTION_FRAMING_ERROR), close.toString());
            peer.awaitEof(5_000);
        }
        anotherClientIsServed();
    }

    @Test
    void aFrameLeftIncompleteClosesItsConnectionAtThePartialFrameTimeout() throws Exception {
        try (RawAmqpPeer peer = openedRawPeer()) {
            beginSession(peer, 0);
            // The first 1,000 bytes of a 60,000-byte frame, and nothing more.
            byte[] start = new byte[1_000];
            start[2] = (byte) (60_000 >>> 8);
            start[3] = (byte) 60_000;
            start[4] = 2;
            long sent = System.nanoTime();
            peer.write(start);
            Close close = peer.readUntil(Close.class);
            long waitedMillis = (System.nanoTime() - sent) / 1_000_000;
            assertTrue(close.error().is(ErrorConditions.RESOURCE_LIMIT_EXCEEDED), close.toString());
            assertTrue(close.error().description().toString().contains("1000 of its 60000 bytes"), close.toString());
            assertTrue(waitedMillis >= PARTIAL_FRAME_TIMEOUT_MILLIS, "closed after " + waitedMillis + " ms");
            peer.awaitEof(5_000);
        }
        anotherClientIsServed();
    }

    @Test
    void frameThatIsNotAPerformativeIsADecodeError() throws Exception {
        try (RawAmqpPeer peer = openedRawPeer()) {
            // A well-framed body holding a plain string where a described performative belongs.
            peer.write(new byte[] {0, 0, 0, 13, 2, 0, 0, 0, (byte) 0xa1, 3, 'b', 'a', 'd'});
            Close close = peer.readUntil(Close.class);
            assertTrue(close.error().is(ErrorConditions.DECODE_ERROR), close.toString());
            peer.awaitEof(5_000);
        }
        anotherClientIsServed();
    }

    @Test
    void oversizedMessageDetachesItsLinkWithMessageSizeExceeded() throws Exception {
        try (RawAmqpPeer peer = openedRawPeer()) {
            beginSession(peer, 0);
            peer.writeFrame(0, senderAttach(0, "/echo/big"));
            Attach answer = peer.readUntil(Attach.class);
            assertEquals(MAX_MESSAGE_BYTES, answer.maxMessageSize(), "the limit is advertised in attach");
            peer.readUntil(Flow.class); // credit for requests
            byte[] chunk = new byte[16 * 1024];
            int frames = (int) (MAX_MESSAGE_BYTES / chunk.length) + 2;
            byte[] tag = {1};
            for (int i = 0; i < frames; i++) {
                Transfer t = new Transfer().handle(0).more(i < frames - 1);
                if (i == 0) {
                    t.deliveryId(0).deliveryTag(tag, 0, 1).messageFormat(0);
                }
                peer.writeTransfer(0, t, chunk, chunk.length);
            }
            Detach detach = peer.readUntil(Detach.class);
            assertTrue(detach.error().is(ErrorConditions.LINK_MESSAGE_SIZE_EXCEEDED), detach.toString());
            assertTrue(detach.closed());
            assertEquals(0, echo.calls.get(), "the oversized message never reached the servlet");
            anotherClientIsServed();
            // Only the link ended: the session and connection still work.
            peer.writeFrame(0, new Detach().handle(0).closed(true));
            peer.writeFrame(0, senderAttach(1, "/echo/again"));
            assertEquals("link-1", peer.readUntil(Attach.class).name().toString());
        }
    }

    @Test
    void twoThousandLinksOnOneSessionEndItWithResourceLimitExceeded() throws Exception {
        try (RawAmqpPeer peer = openedRawPeer()) {
            peer.writeFrame(0, new Begin().nextOutgoingId(0).incomingWindow(1000).outgoingWindow(1000)
                    .handleMax(65535));
            Begin begin = peer.readUntil(Begin.class);
            int handleMax = begin.handleMax();
            assertTrue(handleMax < 2000, "handle-max " + handleMax);
            peer.clearOutput();
            for (int handle = 0; handle < 2000; handle++) {
                peer.appendFrame(0, senderAttach(handle, "/echo/l"), null, 0);
            }
            peer.flushWriter();
            int attached = 0;
            End end;
            while (true) {
                Object frame = peer.readFrame();
                if (frame instanceof Attach) {
                    attached++;
                } else if (frame instanceof End) {
                    end = (End) frame;
                    break;
                }
            }
            // AMQP 1.0 §2.7.2: the peer must not use a handle above our handle-max; the session ends on the first.
            assertEquals(handleMax + 1, attached, "every link up to handle-max was attached");
            assertTrue(end.error().is(ErrorConditions.RESOURCE_LIMIT_EXCEEDED), end.toString());
            anotherClientIsServed();
            // Only that session ended: the connection takes a new one.
            peer.writeFrame(0, new End());
            beginSession(peer, 1);
        }
        anotherClientIsServed();
    }

    /**
     * A client that never grants credit on its reply link: each response waits on the server for credit, up to
     * {@code maxBufferedMessagesPerLink} of them. A request whose response finds that buffer full gets no response
     * and is settled as modified with delivery-failed (its servlet ran); a request that arrives when the buffer is
     * already full is released without reaching a servlet. Credit granted later delivers the held responses.
     */
    @Test
    void replyLinkWithoutCreditHoldsABoundedNumberOfResponses() throws Exception {
        int requests = BUFFERED_REPLIES + 12;
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null, AmqpSocketClient.defaultConfig(), 0)) {
            Outcome[] outcomes = sendAndAwaitSettlement(client, requests);
            int accepted = 0;
            for (Outcome o : outcomes) {
                if (o.kind == DeliveryState.Kind.ACCEPTED) {
                    accepted++;
                } else if (o.kind == DeliveryState.Kind.MODIFIED) {
                    assertTrue(o.deliveryFailed, o.toString());
                } else {
                    assertEquals(DeliveryState.Kind.RELEASED, o.kind, o.toString());
                }
            }
            assertEquals(BUFFERED_REPLIES, accepted, "responses held for the client");
            assertTrue(client.responses.isEmpty(), "no credit, no response");

            // The buffer is full now: further requests are released before any servlet runs.
            int servletCalls = echo.calls.get();
            for (Outcome o : sendAndAwaitSettlement(client, 5)) {
                assertEquals(DeliveryState.Kind.RELEASED, o.kind, o.toString());
            }
            assertEquals(servletCalls, echo.calls.get(), "released requests were not acted upon");
            anotherClientIsServed(); // while this one holds a full reply buffer

            client.grantReplyCredit(100);
            client.awaitResponses(BUFFERED_REPLIES);
            for (AmqpSocketClient.Response r : client.responses) {
                assertEquals("200", r.subject);
            }
        }
        anotherClientIsServed();
    }

    /**
     * A client that takes its responses but never settles them: the server keeps each one until it is settled, up to
     * {@code maxUnsettledSentDeliveries} per connection. A request that arrives then is released without reaching a
     * servlet; once the client settles, requests are served again.
     */
    @Test
    void responsesTheClientNeverSettlesAreBounded() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            client.settlesResponses = false;
            for (Outcome o : sendAndAwaitSettlement(client, UNSETTLED_REPLIES)) {
                assertEquals(DeliveryState.Kind.ACCEPTED, o.kind, o.toString());
            }
            client.awaitResponses(UNSETTLED_REPLIES);

            int servletCalls = echo.calls.get();
            for (Outcome o : sendAndAwaitSettlement(client, 5)) {
                assertEquals(DeliveryState.Kind.RELEASED, o.kind, o.toString());
            }
            assertEquals(servletCalls, echo.calls.get(), "released requests were not acted upon");
            anotherClientIsServed(); // while this one holds the server's limit of unsettled responses

            client.settleResponses();
            Outcome after = sendAndAwaitSettlement(client, 1)[0];
            assertEquals(DeliveryState.Kind.ACCEPTED, after.kind, after.toString());
            client.awaitResponses(UNSETTLED_REPLIES + 1);
            assertEquals("200", client.responses.get(UNSETTLED_REPLIES).subject);
        }
    }

    /**
     * An array of zero-width elements is ten bytes that may declare a million nulls, which a typed body would make
     * a million Java values and five megabytes of JSON on the connection's thread: a typed body holds at most
     * 1,024 values more than its encoding has bytes, and one beyond is rejected before any servlet runs.
     */
    @Test
    void aTypedBodyHoldsNoMoreValuesThanItsBytesAllow() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            int servletCalls = echo.calls.get();
            Outcome amplified = client.send(nullArrayRequest(client.replyAddress(), 1_000_000));
            client.pumpUntil(() -> amplified.settled, "the amplifying request to be settled");
            assertEquals(DeliveryState.Kind.REJECTED, amplified.kind, amplified.toString());
            assertEquals("amqp:decode-error", amplified.condition, amplified.toString());
            assertEquals(servletCalls, echo.calls.get(), "a rejected request reaches no servlet");

            Outcome within = client.send(nullArrayRequest(client.replyAddress(), 1_000));
            client.awaitResponses(1);
            assertEquals(DeliveryState.Kind.ACCEPTED, within.kind, within.toString());
            assertEquals("200", client.responses.get(0).subject);
        }
        anotherClientIsServed();
    }

    /** A request whose body is an amqp-value array32 of {@code count} nulls: ten bytes, whatever the count. */
    private static AmqpWriter nullArrayRequest(String replyTo, int count) {
        byte[] array = {(byte) 0xF0, 0, 0, 0, 5, (byte) (count >>> 24), (byte) (count >>> 16), (byte) (count >>> 8),
                (byte) count, 0x40};
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("m").to("/echo/typed")
                .subject("POST").replyTo(replyTo).endProperties().startAmqpValue();
        w.writeEncoded(array, 0, array.length);
        m.end();
        return w;
    }

    private static Outcome[] sendAndAwaitSettlement(AmqpSocketClient client, int n) throws IOException {
        Outcome[] outcomes = new Outcome[n];
        for (int i = 0; i < n; i++) {
            outcomes[i] = client.send(request("/echo/held", client.replyAddress(), new byte[] {(byte) i}));
        }
        client.pumpUntil(() -> {
            for (Outcome o : outcomes) {
                if (!o.settled) {
                    return false;
                }
            }
            return true;
        }, "every request to be settled");
        return outcomes;
    }
}
