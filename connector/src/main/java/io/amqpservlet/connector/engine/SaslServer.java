package io.amqpservlet.connector.engine;

import io.amqpservlet.connector.sasl.PlainAuthenticator;
import io.amqpservlet.connector.sasl.SaslOutcomeCode;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.Symbol;

import java.util.ArrayList;
import java.util.List;

/**
 * The server side of one SASL exchange (AMQP 1.0 §5.3): which mechanisms to offer, and the verdict on the
 * client's sasl-init and sasl-response. It knows mechanisms, not frames: the engine decodes the frames and hands
 * over the mechanism name and response bytes.
 *
 * <ul>
 *   <li>PLAIN (RFC 4616): {@code [authzid] NUL authcid NUL passwd}, checked by a {@link PlainAuthenticator}. A
 *       sasl-init without an initial response gets an empty challenge, and the credentials come in the
 *       sasl-response.</li>
 *   <li>EXTERNAL (RFC 4422 appendix A): the identity established by the transport, e.g. a TLS client certificate;
 *       offered only when the transport has one.</li>
 *   <li>ANONYMOUS (RFC 4505): offered only when enabled; the identity is {@code anonymous}, the optional trace
 *       string is ignored.</li>
 * </ul>
 *
 * <p>One instance per connection; not thread-safe.
 */
final class SaslServer {
    public static final Symbol PLAIN = Symbol.of("PLAIN");
    public static final Symbol EXTERNAL = Symbol.of("EXTERNAL");
    public static final Symbol ANONYMOUS = Symbol.of("ANONYMOUS");

    /** RFC 4616 §2: each of the three fields is at most 255 octets. */
    static final int PLAIN_FIELD_MAX_BYTES = 255;

    /** What the engine must send next. */
    public enum Step {
        /** Send a sasl-challenge with an empty challenge and wait for a sasl-response. */
        CHALLENGE,
        /** Send sasl-outcome with {@link #outcome()}. */
        OUTCOME
    }

    private final PlainAuthenticator plain;
    private final boolean anonymousAllowed;
    private final String externalIdentity;
    private final Symbol[] offered;
    /** Why every client is refused ({@link #refusing}), or null. */
    private final String refusal;

    private Symbol chosen;
    private SaslOutcomeCode outcome;
    private String identity;
    private String failure;

    /**
     * @param plain checks PLAIN credentials, or {@code null} to not offer PLAIN
     * @param anonymousAllowed whether to offer ANONYMOUS
     * @param externalIdentity the identity the transport established (a TLS client certificate's subject), or
     *        {@code null} to not offer EXTERNAL
     */
    public SaslServer(PlainAuthenticator plain, boolean anonymousAllowed, String externalIdentity) {
        this.refusal = null;
        this.plain = plain;
        this.anonymousAllowed = anonymousAllowed;
        this.externalIdentity = externalIdentity;
        List<Symbol> list = new ArrayList<>(3);
        if (externalIdentity != null) {
            list.add(EXTERNAL);
        }
        if (plain != null) {
            list.add(PLAIN);
        }
        if (anonymousAllowed) {
            list.add(ANONYMOUS);
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("no SASL mechanism enabled");
        }
        this.offered = list.toArray(new Symbol[0]);
    }

    /**
     * A server that has no mechanism this client could pass (say EXTERNAL is the only one enabled and the client
     * presented no certificate): it still answers with SASL, so the client gets a clear {@code auth} outcome
     * rather than a dropped connection. AMQP 1.0 §5.3.3.1 forbids an empty mechanism list, so it offers EXTERNAL,
     * which RFC 4422 appendix A lets fail when the transport established no identity; every sasl-init fails.
     *
     * @param reason the failure reason the engine reports
     */
    public static SaslServer refusing(String reason) {
        return new SaslServer(reason);
    }

    private SaslServer(String refusal) {
        this.refusal = refusal;
        this.plain = null;
        this.anonymousAllowed = false;
        this.externalIdentity = null;
        this.offered = new Symbol[] {EXTERNAL};
    }

    /** The mechanisms for sasl-mechanisms, most preferred first. */
    public Symbol[] offeredMechanisms() {
        return offered.clone();
    }

    /**
     * Handles sasl-init.
     *
     * @param mechanism the bytes of the mechanism symbol the client chose
     * @param hasResponse whether sasl-init carried an initial-response (an empty one counts)
     */
    public Step onInit(byte[] mechanism, int mechanismOffset, int mechanismLength,
                       boolean hasResponse, byte[] response, int responseOffset, int responseLength) {
        if (chosen != null || outcome != null) {
            return fail(SaslOutcomeCode.AUTH, "sasl-init sent twice");
        }
        if (refusal != null) {
            return fail(SaslOutcomeCode.AUTH, refusal);
        }
        Symbol m = offered(mechanism, mechanismOffset, mechanismLength);
        if (m == null) {
            return fail(SaslOutcomeCode.AUTH, "mechanism not offered: "
                    + new String(mechanism, mechanismOffset, mechanismLength, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        chosen = m;
        if (m == PLAIN) {
            if (!hasResponse) {
                return Step.CHALLENGE;
            }
            return checkPlain(response, responseOffset, responseLength);
        }
        if (m == EXTERNAL) {
            // RFC 4422 appendix A: an authorization identity, if given, must be the one the transport established.
            if (hasResponse && responseLength > 0) {
                String requested = Utf8.firstInvalid(response, responseOffset, responseLength) < 0
                        ? Utf8.decode(response, responseOffset, responseLength) : null;
                if (!externalIdentity.equals(requested)) {
                    return fail(SaslOutcomeCode.AUTH, "EXTERNAL authorization identity does not match the certificate");
                }
            }
            return succeed(externalIdentity);
        }
        return succeed("anonymous");
    }

    /** {@return the offered mechanism these bytes name, or null when they name none of them} */
    public Symbol offered(byte[] mechanism, int mechanismOffset, int mechanismLength) {
        for (Symbol s : offered) {
            if (s.matches(mechanism, mechanismOffset, mechanismLength)) {
                return s;
            }
        }
        return null;
    }

    /** Whether no sasl-init has been handled yet: the next one starts the login. */
    public boolean awaitingInit() {
        return chosen == null && outcome == null;
    }

    /**
     * Refuses the login before its mechanism runs, because the application said so (say its source address has
     * failed too often): {@link SaslOutcomeCode#SYS_TEMP}, as the client may try again later, and nothing about
     * the credentials is learnt, since they are never looked at.
     *
     * @param mechanism the offered mechanism the client chose, or null
     * @param why the reason, for the server's log
     */
    public Step refuse(Symbol mechanism, String why) {
        chosen = mechanism;
        return fail(SaslOutcomeCode.SYS_TEMP, why);
    }

    /** Handles sasl-response, after a {@link Step#CHALLENGE}. */
    public Step onResponse(byte[] response, int offset, int length) {
        if (chosen != PLAIN || outcome != null) {
            return fail(SaslOutcomeCode.AUTH, "unexpected sasl-response");
        }
        return checkPlain(response, offset, length);
    }

    private Step checkPlain(byte[] b, int offset, int length) {
        int end = offset + length;
        int nul1 = indexOfNul(b, offset, end);
        int nul2 = nul1 < 0 ? -1 : indexOfNul(b, nul1 + 1, end);
        if (nul2 < 0 || indexOfNul(b, nul2 + 1, end) >= 0) {
            return fail(SaslOutcomeCode.AUTH, "PLAIN response is not [authzid] NUL authcid NUL passwd");
        }
        if (nul1 - offset > PLAIN_FIELD_MAX_BYTES || nul2 - nul1 - 1 > PLAIN_FIELD_MAX_BYTES
                || end - nul2 - 1 > PLAIN_FIELD_MAX_BYTES) {
            return fail(SaslOutcomeCode.AUTH, "PLAIN field longer than 255 bytes");
        }
        if (nul2 - nul1 - 1 == 0) {
            return fail(SaslOutcomeCode.AUTH, "PLAIN authcid is empty");
        }
        if (Utf8.firstInvalid(b, offset, length) >= 0) {
            return fail(SaslOutcomeCode.AUTH, "PLAIN response is not UTF-8");
        }
        String authzid = Utf8.decode(b, offset, nul1 - offset);
        String user = Utf8.decode(b, nul1 + 1, nul2 - nul1 - 1);
        String password = Utf8.decode(b, nul2 + 1, end - nul2 - 1);
        String who;
        try {
            who = plain.authenticate(authzid, user, password);
        } catch (RuntimeException e) {
            // An authenticator that fails is a system error, not bad credentials; the client may retry.
            return fail(SaslOutcomeCode.SYS_TEMP, "authenticator failed: " + e);
        }
        if (who == null) {
            return fail(SaslOutcomeCode.AUTH, "invalid credentials for " + user);
        }
        return succeed(who);
    }

    private static int indexOfNul(byte[] b, int from, int end) {
        for (int i = from; i < end; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private Step succeed(String who) {
        identity = who;
        outcome = SaslOutcomeCode.OK;
        return Step.OUTCOME;
    }

    private Step fail(SaslOutcomeCode code, String why) {
        outcome = code;
        failure = why;
        return Step.OUTCOME;
    }

    /** The verdict, once {@link Step#OUTCOME} was returned; null before. */
    public SaslOutcomeCode outcome() {
        return outcome;
    }

    /** The authenticated identity when the outcome is OK. */
    public String identity() {
        return identity;
    }

    /** Why authentication failed, for the server's log; never sent to the client. */
    public String failureReason() {
        return failure;
    }

    /** The mechanism the client chose, or null. */
    public Symbol mechanism() {
        return chosen;
    }
}
