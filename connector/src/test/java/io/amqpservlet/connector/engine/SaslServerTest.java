package io.amqpservlet.connector.engine;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.connector.sasl.SaslOutcomeCode;
import io.amqpservlet.connector.sasl.SaslPlain;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaslServerTest {
    private static final PlainAuthenticator USERS =
            (authz, user, pass) -> "alice".equals(user) && "s3cret".equals(pass) ? user : null;

    private static SaslServer.Step init(SaslServer s, Symbol mech, byte[] response) {
        byte[] m = mech.bytes();
        return response == null
                ? s.onInit(m, 0, m.length, false, null, 0, 0)
                : s.onInit(m, 0, m.length, true, response, 0, response.length);
    }

    @Test
    void offersOnlyWhatIsEnabledMostPreferredFirst() {
        assertArrayEquals(new Symbol[] {SaslServer.EXTERNAL, SaslServer.PLAIN},
                new SaslServer(USERS, false, "CN=client").offeredMechanisms());
        assertArrayEquals(new Symbol[] {SaslServer.PLAIN, SaslServer.ANONYMOUS},
                new SaslServer(USERS, true, null).offeredMechanisms());
        assertThrows(IllegalArgumentException.class, () -> new SaslServer(null, false, null));
    }

    @Test
    void aRefusingServerOffersExternalAndFailsEveryInitWithAuth() {
        SaslServer s = SaslServer.refusing("no certificate");
        assertArrayEquals(new Symbol[] {SaslServer.EXTERNAL}, s.offeredMechanisms()); // §5.3.3.1: never empty
        assertEquals(SaslServer.Step.OUTCOME, init(s, SaslServer.EXTERNAL, null));
        assertEquals(SaslOutcomeCode.AUTH, s.outcome());
        assertNull(s.identity());
        assertEquals("no certificate", s.failureReason());
        SaslServer anonymous = SaslServer.refusing("no certificate");
        init(anonymous, SaslServer.ANONYMOUS, null);
        assertEquals(SaslOutcomeCode.AUTH, anonymous.outcome());
    }

    @Test
    void plainWithGoodCredentialsSucceeds() {
        SaslServer s = new SaslServer(USERS, false, null);
        assertEquals(SaslServer.Step.OUTCOME, init(s, SaslServer.PLAIN, SaslPlain.initialResponse(null, "alice", "s3cret")));
        assertEquals(SaslOutcomeCode.OK, s.outcome());
        assertEquals("alice", s.identity());
    }

    @Test
    void plainWithWrongPasswordFailsWithAuth() {
        SaslServer s = new SaslServer(USERS, false, null);
        init(s, SaslServer.PLAIN, SaslPlain.initialResponse("", "alice", "guess"));
        assertEquals(SaslOutcomeCode.AUTH, s.outcome());
        assertNull(s.identity());
        assertTrue(s.failureReason().contains("alice"));
    }

    @Test
    void plainWithoutInitialResponseIsChallengedThenAnswered() {
        SaslServer s = new SaslServer(USERS, false, null);
        assertEquals(SaslServer.Step.CHALLENGE, init(s, SaslServer.PLAIN, null));
        byte[] r = SaslPlain.initialResponse(null, "alice", "s3cret");
        assertEquals(SaslServer.Step.OUTCOME, s.onResponse(r, 0, r.length));
        assertEquals(SaslOutcomeCode.OK, s.outcome());
    }

    @Test
    void malformedPlainResponsesFailWithAuth() {
        String[] bad = {"alice", "\0alice", "a\0b\0c\0d", "\0\0pass", "z\0" + "u".repeat(256) + "\0p"};
        for (String b : bad) {
            SaslServer s = new SaslServer(USERS, false, null);
            init(s, SaslServer.PLAIN, b.getBytes(StandardCharsets.UTF_8));
            assertEquals(SaslOutcomeCode.AUTH, s.outcome(), b);
        }
        SaslServer s = new SaslServer(USERS, false, null);
        init(s, SaslServer.PLAIN, new byte[] {0, 'a', 0, (byte) 0xC0, (byte) 0x80});
        assertEquals(SaslOutcomeCode.AUTH, s.outcome(), "overlong NUL is not UTF-8");
    }

    @Test
    void mechanismNotOfferedFails() {
        SaslServer s = new SaslServer(USERS, false, null);
        init(s, SaslServer.ANONYMOUS, new byte[0]);
        assertEquals(SaslOutcomeCode.AUTH, s.outcome());
    }

    @Test
    void anonymousWhenEnabled() {
        SaslServer s = new SaslServer(null, true, null);
        init(s, SaslServer.ANONYMOUS, "trace".getBytes(StandardCharsets.US_ASCII));
        assertEquals(SaslOutcomeCode.OK, s.outcome());
        assertEquals("anonymous", s.identity());
    }

    @Test
    void externalUsesTheTransportIdentityAndRejectsAnotherAuthzid() {
        SaslServer s = new SaslServer(null, false, "CN=client");
        init(s, SaslServer.EXTERNAL, new byte[0]);
        assertEquals("CN=client", s.identity());
        SaslServer t = new SaslServer(null, false, "CN=client");
        init(t, SaslServer.EXTERNAL, "CN=admin".getBytes(StandardCharsets.UTF_8));
        assertEquals(SaslOutcomeCode.AUTH, t.outcome());
    }

    @Test
    void authenticatorThatThrowsIsATemporarySystemError() {
        SaslServer s = new SaslServer((z, u, p) -> {
            throw new IllegalStateException("LDAP down");
        }, false, null);
        init(s, SaslServer.PLAIN, SaslPlain.initialResponse(null, "alice", "x"));
        assertEquals(SaslOutcomeCode.SYS_TEMP, s.outcome());
    }

    @Test
    void secondInitFails() {
        SaslServer s = new SaslServer(null, true, null);
        init(s, SaslServer.ANONYMOUS, null);
        init(s, SaslServer.ANONYMOUS, null);
        assertEquals(SaslOutcomeCode.AUTH, s.outcome());
    }
}
