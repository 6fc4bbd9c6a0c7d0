package io.amqpservlet.connector.engine;

import io.amqpservlet.connector.sasl.SaslOutcomeCode;
import io.amqpservlet.connector.sasl.SaslPlain;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameWriter;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.types.sasl.SaslFrame;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.ErrorConditions;

/**
 * The part of a connection before open: protocol header exchange (AMQP 1.0 §2.2) and SASL (§5.3), for both roles.
 * A peer may pipeline everything (SASL header, sasl-init, AMQP header and open in one read); each step is taken
 * as soon as its bytes are there. An unsupported header is answered with the header we would have accepted, and
 * the transport is closed (§2.2).
 */
final class Handshake {
    private static final byte[] NONE = new byte[0];

    private final Engine engine;
    private final SaslServer saslServer;
    private boolean saslDone;

    Handshake(Engine engine, SaslServer saslServer) {
        this.engine = engine;
        this.saslServer = saslServer;
    }

    /** The header this side wants first. */
    private ProtocolHeader preferred() {
        return wantsSasl() && !saslDone ? ProtocolHeader.SASL : ProtocolHeader.AMQP;
    }

    private boolean wantsSasl() {
        EngineConfig c = engine.config;
        return engine.acceptor() ? saslServer != null && c.saslRequired() || saslServer != null
                : c.saslRequired() && c.saslMechanism() != null;
    }

    void startInitiator() {
        if (wantsSasl()) {
            engine.writeHeader(ProtocolHeader.SASL);
        } else {
            engine.writeHeader(ProtocolHeader.AMQP);
            engine.lifecycle.sendOpen();
        }
    }

    /** A protocol header arrived; {@code afterSasl} when SASL has finished and the AMQP header is due. */
    void onHeader(ProtocolHeader header, boolean afterSasl) {
        EngineConfig c = engine.config;
        if (!header.isSupported()) {
            rejectHeader(ErrorConditions.CONNECTION_FRAMING_ERROR, "unsupported protocol header " + header);
            return;
        }
        if (engine.acceptor()) {
            if (afterSasl) {
                if (header.protocolId() != ProtocolHeader.ID_AMQP) {
                    rejectHeader(ErrorConditions.CONNECTION_FRAMING_ERROR,
                            "expected the AMQP header after SASL, got " + header);
                    return;
                }
                engine.writeHeader(ProtocolHeader.AMQP);
                engine.lifecycle.expectOpen(false);
                return;
            }
            if (header.protocolId() == ProtocolHeader.ID_SASL && saslServer != null) {
                SaslFrames saslOut = engine.scratch().saslOut;
                engine.writeHeader(ProtocolHeader.SASL);
                AmqpWriter w = engine.writer();
                int start = FrameWriter.begin(w, FrameHeader.TYPE_SASL, 0);
                saslOut.mechanisms().clear().mechanisms().set(saslServer.offeredMechanisms());
                saslOut.mechanisms().encode(w);
                FrameWriter.end(w, start);
                trace(saslOut.mechanisms());
                engine.lifecycle.expectSasl();
            } else if (header.protocolId() == ProtocolHeader.ID_AMQP && !c.saslRequired()) {
                engine.writeHeader(ProtocolHeader.AMQP);
                engine.lifecycle.expectOpen(true);
            } else {
                // The AMQP header where SASL is required: a client that skips the login.
                rejectHeader(header.protocolId() == ProtocolHeader.ID_AMQP ? ErrorConditions.UNAUTHORIZED_ACCESS
                        : ErrorConditions.CONNECTION_FRAMING_ERROR, "protocol " + header + " not accepted here");
            }
            return;
        }
        // Initiator: the peer answers our header with the same one, or with the one it wants instead.
        if (header.protocolId() == ProtocolHeader.ID_SASL && !saslDone && wantsSasl()) {
            engine.lifecycle.expectSasl();
        } else if (header.protocolId() == ProtocolHeader.ID_AMQP && (saslDone || !wantsSasl())) {
            engine.lifecycle.expectOpen(!wantsSasl());
        } else {
            fail(ErrorConditions.UNAUTHORIZED_ACCESS, "peer answered with " + header);
        }
    }

    /** Answers with the header we would accept, then ends the transport (AMQP 1.0 §2.2). */
    void rejectHeader(Symbol condition, String why) {
        if (engine.acceptor()) {
            engine.writeHeader(preferred());
        }
        fail(condition, why);
    }

    void onSaslFrame(byte[] bytes, int bodyOffset, int bodyLength) {
        EngineScratch scratch = engine.scratch();
        scratch.reader.wrap(bytes, bodyOffset, bodyLength);
        SaslFrame f = scratch.saslIn.decode(scratch.reader);
        if (engine.tracer != null) {
            engine.tracer.received(0, f, 0);
        }
        if (engine.acceptor()) {
            onSaslFrameAtServer(f);
        } else {
            onSaslFrameAtClient(f);
        }
    }

    private void onSaslFrameAtServer(SaslFrame f) {
        SaslFrames saslIn = engine.scratch().saslIn;
        SaslFrames saslOut = engine.scratch().saslOut;
        SaslServer.Step step;
        if (f == saslIn.init()) {
            SaslInit init = saslIn.init();
            MutableBytes m = init.mechanism();
            MutableBytes r = init.initialResponse();
            // The application may refuse a login before its mechanism runs (EngineHandler#onSaslInit).
            String refusal = null;
            Symbol mechanism = null;
            if (saslServer.awaitingInit()) {
                mechanism = saslServer.offered(m.array(), 0, m.length());
                refusal = engine.lifecycle.saslInitArrived(mechanism == null ? null : mechanism.toString());
            }
            step = refusal != null ? saslServer.refuse(mechanism, refusal)
                    : saslServer.onInit(m.array(), 0, m.length(), !r.isNull(), r.array(), 0, r.length());
        } else if (f == saslIn.response()) {
            MutableBytes r = saslIn.response().response();
            step = saslServer.onResponse(r.array(), 0, r.length());
        } else {
            fail(ErrorConditions.UNAUTHORIZED_ACCESS, "unexpected " + f.typeName() + " from a SASL client");
            return;
        }
        if (step == SaslServer.Step.CHALLENGE) {
            saslOut.challenge().clear().challenge().set(NONE, 0, 0);
            writeSasl(saslOut.challenge());
            return;
        }
        SaslOutcomeCode code = saslServer.outcome();
        // AMQP 1.0 §5.3.3.6: sasl-outcome is always sent, success or not.
        writeSasl(saslOut.outcome().clear().code(code.code()));
        if (code == SaslOutcomeCode.OK) {
            saslDone = true;
            engine.lifecycle.saslSucceeded(saslServer.identity());
        } else {
            Symbol mechanism = saslServer.mechanism();
            engine.lifecycle.saslFailed(mechanism == null ? null : mechanism.toString(), saslServer.failureReason());
            fail(ErrorConditions.UNAUTHORIZED_ACCESS, "SASL " + code + ": " + saslServer.failureReason());
        }
    }

    private void onSaslFrameAtClient(SaslFrame f) {
        SaslFrames saslIn = engine.scratch().saslIn;
        SaslFrames saslOut = engine.scratch().saslOut;
        EngineConfig c = engine.config;
        if (f == saslIn.mechanisms()) {
            Symbol wanted = Symbol.of(c.saslMechanism());
            if (!saslIn.mechanisms().mechanisms().contains(wanted)) {
                fail(ErrorConditions.UNAUTHORIZED_ACCESS,
                        "server does not offer " + wanted + ": " + saslIn.mechanisms().mechanisms());
                return;
            }
            SaslInit init = saslOut.init().clear().mechanism(wanted);
            if ("PLAIN".equals(c.saslMechanism())) {
                byte[] r = SaslPlain.initialResponse(null, c.saslUsername(), c.saslPassword());
                init.initialResponse().set(r, 0, r.length);
            } else if ("EXTERNAL".equals(c.saslMechanism())) {
                // RFC 4422 appendix A: the message is the authorization identity, empty to act as the identity the
                // transport established. Sent empty rather than left out: a server (Artemis) that gets no initial
                // response asks for it with a challenge.
                init.initialResponse().set(NONE, 0, 0);
            }
            if (c.hostname() != null) {
                init.hostname().set(c.hostname());
            }
            writeSasl(init);
        } else if (f == saslIn.outcome()) {
            int code = saslIn.outcome().code();
            if (code != SaslOutcomeCode.OK.code()) {
                fail(ErrorConditions.UNAUTHORIZED_ACCESS, "SASL authentication failed with code " + code);
                return;
            }
            saslDone = true;
            engine.lifecycle.expectAmqpHeader();
            engine.writeHeader(ProtocolHeader.AMQP);
            engine.lifecycle.sendOpen();
        } else {
            fail(ErrorConditions.UNAUTHORIZED_ACCESS, "unexpected " + f.typeName() + " from a SASL server");
        }
    }

    private void writeSasl(SaslFrame frame) {
        AmqpWriter w = engine.writer();
        int start = FrameWriter.begin(w, FrameHeader.TYPE_SASL, 0);
        frame.encode(w);
        FrameWriter.end(w, start);
        trace(frame);
    }

    private void trace(SaslFrame frame) {
        if (engine.tracer != null) {
            engine.tracer.sent(0, frame, 0);
        }
    }

    /**
     * Ends the transport before any AMQP connection exists: there is no close frame to send. The application hears
     * of it ({@link EngineHandler#onClosed}) with {@code condition}: {@code amqp:unauthorized-access} for a login
     * failed or skipped, {@code amqp:connection:framing-error} for bytes that are not the protocol, the condition of
     * a limit or an error found before the peer's header.
     */
    void fail(Symbol condition, String why) {
        ErrorCondition e = engine.out().close().clear().error();
        e.condition(condition).description(why);
        engine.lifecycle.failTransport(e);
    }
}
