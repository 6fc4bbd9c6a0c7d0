package io.amqpservlet.connector.engine;

import io.amqpservlet.connector.sasl.SaslPlain;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslMechanisms;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;
import io.amqpservlet.protocol.types.transport.Open;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The part of a connection before open, against hand-assembled bytes (AMQP 1.0 §2.2, §5.3): pipelining, headers
 * the acceptor does not speak, other protocols on the AMQP port, and a peer that never finishes SASL.
 */
class HandshakeConformanceTest {
    private final AcceptorRecorder handler = new AcceptorRecorder();

    /** The application was told the connection ended, with {@code condition} (no close frame goes out before open). */
    private void assertClosedWith(Symbol condition) {
        assertTrue(handler.closed);
        assertTrue(handler.closedWith != null && handler.closedWith.is(condition), String.valueOf(handler.closedWith));
    }

    private static EngineConfig plain() {
        return new EngineConfig().containerId("server")
                .plainAuthenticator((authzid, user, password) -> "alice".equals(user) && "secret".equals(password) ? user : null);
    }

    @Test
    void pipelinedSaslHeaderInitAmqpHeaderAndOpenInOneReadAreAllAnswered() {
        RawPeer peer = new RawPeer(plain(), handler);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = SaslPlain.initialResponse(null, "alice", "secret");
        init.initialResponse().set(response, 0, response.length);
        peer.header(ProtocolHeader.SASL).sasl(init).header(ProtocolHeader.AMQP)
                .frame(0, peer.p().open().clear().containerId("pipelined")).flush();

        assertEquals(List.of(ProtocolHeader.SASL, ProtocolHeader.AMQP), peer.headers);
        List<RawPeer.Frame> frames = peer.take();
        assertEquals(3, frames.size(), frames.toString());
        assertEquals(FrameHeader.TYPE_SASL, frames.get(0).type());
        assertTrue(frames.get(0).sasl() instanceof SaslMechanisms, frames.toString());
        SaslOutcome outcome = (SaslOutcome) frames.get(1).sasl();
        assertEquals(SaslOutcome.OK, outcome.code());
        assertTrue(frames.get(2).performative() instanceof Open, frames.toString());
        assertTrue(peer.engine.isOpen());
        assertEquals("alice", peer.engine.identity());
        assertEquals(List.of("authenticated alice", "open pipelined"), handler.events);
    }

    @Test
    void pipelinedHandshakeSplitIntoSingleBytesGivesTheSameAnswer() {
        RawPeer whole = new RawPeer(plain(), new AcceptorRecorder());
        RawPeer bytewise = new RawPeer(plain(), handler);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = SaslPlain.initialResponse(null, "alice", "secret");
        init.initialResponse().set(response, 0, response.length);
        whole.header(ProtocolHeader.SASL).sasl(init).header(ProtocolHeader.AMQP)
                .frame(0, whole.p().open().clear().containerId("c"));
        byte[] bytes = whole.written();
        whole.bytes(bytes).flush();
        for (byte b : bytes) {
            bytewise.bytes(new byte[] {b}).flush();
        }
        assertEquals(whole.headers, bytewise.headers);
        assertEquals(whole.all.toString(), bytewise.all.toString());
        assertTrue(bytewise.engine.isOpen());
    }

    @Test
    void unsupportedProtocolVersionIsAnsweredWithOurHeaderAndTheTransportEnds() {
        RawPeer peer = new RawPeer(plain(), handler);
        peer.bytes(new byte[] {'A', 'M', 'Q', 'P', 0, 2, 0, 0}).flush();
        assertEquals(List.of(ProtocolHeader.SASL), peer.headers, "§2.2: answer with the header we support");
        assertTrue(peer.take().isEmpty());
        assertTrue(peer.engine.isDone());
        assertClosedWith(ErrorConditions.CONNECTION_FRAMING_ERROR);
    }

    @Test
    void amqpHeaderWhenSaslIsRequiredIsAnsweredWithTheSaslHeader() {
        RawPeer peer = new RawPeer(plain(), handler);
        peer.header(ProtocolHeader.AMQP).flush();
        assertEquals(List.of(ProtocolHeader.SASL), peer.headers);
        assertTrue(peer.engine.isDone());
        assertClosedWith(ErrorConditions.UNAUTHORIZED_ACCESS); // a client that skips the login
    }

    @Test
    void garbageInsteadOfAHeaderIsAnsweredWithOurHeaderAndTheTransportEnds() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        // A TLS ClientHello on the plain port.
        peer.bytes(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03}).flush();
        assertEquals(List.of(ProtocolHeader.AMQP), peer.headers);
        assertTrue(peer.take().isEmpty());
        assertTrue(peer.engine.isDone());
        assertClosedWith(ErrorConditions.CONNECTION_FRAMING_ERROR);
    }

    @Test
    void anHttpRequestToTheAmqpPortEndsTheTransportAfterTheFirstBytes() {
        RawPeer peer = new RawPeer(plain(), handler);
        peer.bytes("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII)).flush();
        assertEquals(List.of(ProtocolHeader.SASL), peer.headers);
        assertTrue(peer.take().isEmpty());
        assertTrue(peer.engine.isDone());
        assertTrue(handler.closed);
        // More bytes after the end change nothing.
        peer.bytes("more".getBytes(StandardCharsets.US_ASCII)).flush();
        assertEquals(1, peer.headers.size());
    }

    @Test
    void anHttpRequestArrivingOneByteAtATimeIsTurnedAwayAtTheFirstByte() {
        RawPeer peer = new RawPeer(RawPeer.noSasl(), handler);
        peer.bytes(new byte[] {'G'}).flush();
        assertTrue(peer.engine.isDone());
        assertEquals(List.of(ProtocolHeader.AMQP), peer.headers);
    }

    @Test
    void aPeerThatSendsItsHeaderThenNothingIsDroppedWhenTheSaslTimeoutPasses() {
        RawPeer peer = new RawPeer(plain().saslTimeoutMillis(5_000), handler);
        peer.header(ProtocolHeader.SASL).flush();
        assertEquals(List.of(ProtocolHeader.SASL), peer.headers);
        assertEquals(1, peer.take().size(), "sasl-mechanisms");
        long next = peer.advance(4_999);
        assertFalse(peer.engine.isDone());
        assertEquals(1_000 + 5_000, next, "tick asks to be called again at the SASL deadline");
        peer.advance(1);
        assertTrue(peer.engine.isDone());
        assertClosedWith(ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
        assertTrue(peer.take().isEmpty(), "no close frame: there is no AMQP connection yet");
    }

    @Test
    void aPeerThatSendsTheAmqpHeaderButNoOpenIsDroppedAtTheSameDeadline() {
        RawPeer peer = new RawPeer(plain().saslRequired(false).saslTimeoutMillis(5_000), handler);
        peer.header(ProtocolHeader.AMQP).flush();
        assertEquals(List.of(ProtocolHeader.AMQP), peer.headers);
        peer.advance(4_999);
        assertFalse(peer.engine.isDone());
        peer.advance(1);
        assertTrue(peer.engine.isDone(), "no open within the handshake deadline");
    }

    @Test
    void anOpenBeforeTheDeadlineEndsIt() {
        RawPeer peer = new RawPeer(plain().saslRequired(false).saslTimeoutMillis(5_000).idleTimeoutMillis(0),
                handler);
        peer.header(ProtocolHeader.AMQP).frame(0, peer.p().open().clear().containerId("c")).flush();
        peer.advance(60_000);
        assertFalse(peer.engine.isDone());
        assertTrue(peer.engine.isOpen());
    }

    @Test
    void theSaslTimeoutCountsFromConnectNotFromTheLastByte() {
        RawPeer peer = new RawPeer(plain().saslTimeoutMillis(5_000), handler);
        peer.advance(3_000);
        peer.header(ProtocolHeader.SASL).flush();
        peer.advance(2_000);
        assertTrue(peer.engine.isDone(), "a slow-drip peer cannot keep a half-open handshake alive");
    }

    @Test
    void failedSaslAuthenticationSendsAnOutcomeThenEnds() {
        RawPeer peer = new RawPeer(plain(), handler);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = SaslPlain.initialResponse(null, "alice", "wrong");
        init.initialResponse().set(response, 0, response.length);
        peer.header(ProtocolHeader.SASL).sasl(init).header(ProtocolHeader.AMQP)
                .frame(0, peer.p().open().clear().containerId("c")).flush();
        List<RawPeer.Frame> frames = peer.take();
        assertEquals(2, frames.size(), frames.toString());
        assertEquals(SaslOutcome.AUTH, ((SaslOutcome) frames.get(1).sasl()).code());
        assertTrue(peer.engine.isDone());
        assertEquals(List.of(ProtocolHeader.SASL), peer.headers, "no AMQP header after a failed SASL");
        assertClosedWith(ErrorConditions.UNAUTHORIZED_ACCESS);
    }

    @Test
    void aFailedLoginIsReportedWithItsMechanismAndReasonBeforeTheClose() {
        List<String> reported = new ArrayList<>();
        // The recorder keeps its own events; this list has only the two callbacks the test is about.
        AcceptorRecorder recorder = new AcceptorRecorder() {
            @Override
            public void onAuthenticationFailed(Engine engine, String mechanism, String reason) {
                reported.add("login failed " + mechanism + ": " + reason);
            }

            @Override
            public void onClosed(Engine engine, ErrorCondition error) {
                reported.add("closed");
            }
        };
        RawPeer peer = new RawPeer(plain(), recorder);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = SaslPlain.initialResponse(null, "alice", "wrong");
        init.initialResponse().set(response, 0, response.length);
        peer.header(ProtocolHeader.SASL).sasl(init).flush();
        assertEquals(List.of("login failed PLAIN: invalid credentials for alice", "closed"), reported);

        reported.clear();
        RawPeer other = new RawPeer(plain(), recorder);
        other.header(ProtocolHeader.SASL).sasl(new SaslFrames().init().clear().mechanism(Symbol.of("CRAM-MD5")))
                .flush();
        assertEquals(List.of("login failed null: mechanism not offered: CRAM-MD5", "closed"), reported);
    }

    @Test
    void aLoginTheApplicationRefusesAtItsInitGetsSysTempWithoutItsCredentialsBeingChecked() {
        List<String> reported = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        AcceptorRecorder recorder = new AcceptorRecorder() {
            @Override
            public String onSaslInit(Engine engine, String mechanism) {
                reported.add("init " + mechanism);
                return "no logins left for this address";
            }

            @Override
            public void onAuthenticationFailed(Engine engine, String mechanism, String reason) {
                reported.add("login failed " + mechanism + ": " + reason);
            }
        };
        EngineConfig config = new EngineConfig().containerId("server").plainAuthenticator((authzid, user, password) -> {
            checked.add(user);
            return "secret".equals(password) ? user : null;
        });
        RawPeer peer = new RawPeer(config, recorder);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = SaslPlain.initialResponse(null, "alice", "secret");
        init.initialResponse().set(response, 0, response.length);
        peer.header(ProtocolHeader.SASL).sasl(init).header(ProtocolHeader.AMQP)
                .frame(0, peer.p().open().clear().containerId("c")).flush();

        List<RawPeer.Frame> frames = peer.take();
        assertEquals(2, frames.size(), frames.toString());
        assertEquals(SaslOutcome.SYS_TEMP, ((SaslOutcome) frames.get(1).sasl()).code());
        assertEquals(List.of(), checked, "the right password learns nothing: it is never checked");
        assertEquals(List.of("init PLAIN", "login failed PLAIN: no logins left for this address"), reported);
        assertEquals(List.of("closed amqp:unauthorized-access"), recorder.events, "no authentication, no open");
        assertTrue(peer.engine.isDone());
        assertEquals(List.of(ProtocolHeader.SASL), peer.headers, "no AMQP header after a refused login");
        assertTrue(recorder.closedWith != null && recorder.closedWith.is(ErrorConditions.UNAUTHORIZED_ACCESS));
    }

    @Test
    void theApplicationSeesEachLoginsInitOnceWithTheMechanismChosen() {
        List<String> inits = new ArrayList<>();
        AcceptorRecorder recorder = new AcceptorRecorder() {
            @Override
            public String onSaslInit(Engine engine, String mechanism) {
                inits.add(String.valueOf(mechanism));
                return null;
            }
        };
        // PLAIN without an initial response: challenged, then answered; the init is seen once.
        RawPeer peer = new RawPeer(plain(), recorder);
        byte[] response = SaslPlain.initialResponse(null, "alice", "secret");
        SaslFrames frames = new SaslFrames();
        peer.header(ProtocolHeader.SASL).sasl(frames.init().clear().mechanism(Symbol.of("PLAIN"))).flush();
        frames.response().clear().response().set(response, 0, response.length);
        peer.sasl(frames.response()).flush();
        assertEquals(List.of("authenticated alice"), recorder.events);

        // A mechanism we do not offer: seen as null, then failed as before.
        RawPeer other = new RawPeer(plain(), recorder);
        other.header(ProtocolHeader.SASL).sasl(new SaslFrames().init().clear().mechanism(Symbol.of("CRAM-MD5")))
                .flush();
        assertEquals(List.of("PLAIN", "null"), inits);
        assertTrue(other.engine.isDone());
    }

    @Test
    void aSuccessfulLoginReportsNoFailure() {
        List<String> failures = new ArrayList<>();
        AcceptorRecorder recorder = new AcceptorRecorder() {
            @Override
            public void onAuthenticationFailed(Engine engine, String mechanism, String reason) {
                failures.add(reason);
            }
        };
        RawPeer peer = new RawPeer(plain(), recorder);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = SaslPlain.initialResponse(null, "alice", "secret");
        init.initialResponse().set(response, 0, response.length);
        peer.header(ProtocolHeader.SASL).sasl(init).flush();
        assertEquals(List.of("authenticated alice"), recorder.events);
        assertEquals(List.of(), failures);
    }

    @Test
    void anAmqpFrameDuringSaslEndsTheTransport() {
        RawPeer peer = new RawPeer(plain(), handler);
        peer.header(ProtocolHeader.SASL).frame(0, peer.p().open().clear().containerId("c")).flush();
        assertTrue(peer.engine.isDone());
        assertEquals(1, peer.take().size(), "only sasl-mechanisms was sent");
    }

    @Test
    void aSaslFrameLargerThan512BytesEndsTheTransport() {
        RawPeer peer = new RawPeer(plain(), handler);
        SaslInit init = new SaslFrames().init().clear().mechanism(Symbol.of("PLAIN"));
        byte[] response = new byte[600];
        init.initialResponse().set(response, 0, response.length);
        peer.header(ProtocolHeader.SASL).sasl(init).flush();
        assertTrue(peer.engine.isDone());
        assertEquals(1, peer.take().size(), "only sasl-mechanisms was sent, no outcome");
    }
}
