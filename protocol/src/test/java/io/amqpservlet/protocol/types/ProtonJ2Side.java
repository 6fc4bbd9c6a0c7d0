package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.TerminusExpiryPolicy;
import io.amqpservlet.protocol.types.sasl.SaslChallenge;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslMechanisms;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import io.amqpservlet.protocol.types.sasl.SaslResponse;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Begin;
import io.amqpservlet.protocol.types.transport.Close;
import io.amqpservlet.protocol.types.transport.Detach;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.End;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Flow;
import io.amqpservlet.protocol.types.transport.Open;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.types.Binary;
import org.apache.qpid.protonj2.types.UnsignedByte;
import org.apache.qpid.protonj2.types.UnsignedInteger;
import org.apache.qpid.protonj2.types.UnsignedLong;
import org.apache.qpid.protonj2.types.messaging.Accepted;
import org.apache.qpid.protonj2.types.messaging.Modified;
import org.apache.qpid.protonj2.types.messaging.Outcome;
import org.apache.qpid.protonj2.types.messaging.Received;
import org.apache.qpid.protonj2.types.messaging.Rejected;
import org.apache.qpid.protonj2.types.messaging.Released;
import org.apache.qpid.protonj2.types.messaging.Source;
import org.apache.qpid.protonj2.types.messaging.Target;
import org.apache.qpid.protonj2.types.messaging.TerminusDurability;
import org.apache.qpid.protonj2.types.security.SaslCode;
import org.apache.qpid.protonj2.types.transport.ReceiverSettleMode;
import org.apache.qpid.protonj2.types.transport.SenderSettleMode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.amqpservlet.protocol.types.Fields.binary;
import static io.amqpservlet.protocol.types.Fields.map;
import static io.amqpservlet.protocol.types.Fields.of;
import static io.amqpservlet.protocol.types.Fields.symbols;

/** Test support: protonj2 1.1.0 objects built from ours, and protonj2 objects in the neutral form of {@link Fields}. */
final class ProtonJ2Side {
    private ProtonJ2Side() {
    }

    private static org.apache.qpid.protonj2.types.Symbol sym(MutableBytes b) {
        return b.isNull() ? null : org.apache.qpid.protonj2.types.Symbol.valueOf(b.toString());
    }

    private static org.apache.qpid.protonj2.types.Symbol[] syms(SymbolArray a) {
        if (a.isNull()) {
            return null;
        }
        org.apache.qpid.protonj2.types.Symbol[] out = new org.apache.qpid.protonj2.types.Symbol[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = org.apache.qpid.protonj2.types.Symbol.valueOf(a.get(i));
        }
        return out;
    }

    private static Map<org.apache.qpid.protonj2.types.Symbol, Object> theirMap(EncodedValue v) {
        Map<String, String> m = map(v);
        if (m == null) {
            return null;
        }
        Map<org.apache.qpid.protonj2.types.Symbol, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : m.entrySet()) {
            out.put(org.apache.qpid.protonj2.types.Symbol.valueOf(e.getKey()), e.getValue());
        }
        return out;
    }

    private static String str(MutableBytes b) {
        return b.isNull() ? null : b.toString();
    }

    private static Binary bin(MutableBytes b) {
        return b.isNull() ? null : new Binary(b.toByteArray());
    }

    private static String hex(ProtonBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] bytes = new byte[b.getReadableBytes()];
        b.copyInto(b.getReadOffset(), bytes, 0, bytes.length);
        return binary(bytes, 0, bytes.length);
    }

    // ------------------------------------------------------------------------------------------ ours to theirs

    static Object theirs(DescribedList v) {
        if (v instanceof Open) {
            Open o = (Open) v;
            org.apache.qpid.protonj2.types.transport.Open t = new org.apache.qpid.protonj2.types.transport.Open();
            t.setContainerId(str(o.containerId()));
            if (!o.hostname().isNull()) {
                t.setHostname(str(o.hostname()));
            }
            t.setMaxFrameSize(o.maxFrameSize());
            t.setChannelMax(o.channelMax());
            if (o.hasIdleTimeOut()) {
                t.setIdleTimeout(o.idleTimeOutMillis());
            }
            t.setOutgoingLocales(syms(o.outgoingLocales()));
            t.setIncomingLocales(syms(o.incomingLocales()));
            t.setOfferedCapabilities(syms(o.offeredCapabilities()));
            t.setDesiredCapabilities(syms(o.desiredCapabilities()));
            t.setProperties(theirMap(o.properties()));
            return t;
        }
        if (v instanceof Begin) {
            Begin b = (Begin) v;
            org.apache.qpid.protonj2.types.transport.Begin t = new org.apache.qpid.protonj2.types.transport.Begin();
            if (b.hasRemoteChannel()) {
                t.setRemoteChannel(b.remoteChannel());
            }
            t.setNextOutgoingId(b.nextOutgoingId()).setIncomingWindow(b.incomingWindow())
                    .setOutgoingWindow(b.outgoingWindow()).setHandleMax(b.handleMax());
            t.setOfferedCapabilities(syms(b.offeredCapabilities()));
            t.setDesiredCapabilities(syms(b.desiredCapabilities()));
            t.setProperties(theirMap(b.properties()));
            return t;
        }
        if (v instanceof Attach) {
            Attach a = (Attach) v;
            org.apache.qpid.protonj2.types.transport.Attach t = new org.apache.qpid.protonj2.types.transport.Attach();
            t.setName(str(a.name())).setHandle(a.handle())
                    .setRole(org.apache.qpid.protonj2.types.transport.Role.valueOf(a.role() == Role.RECEIVER))
                    .setSenderSettleMode(SenderSettleMode.valueOf((byte) a.sndSettleMode().code()))
                    .setReceiverSettleMode(ReceiverSettleMode.valueOf((byte) a.rcvSettleMode().code()))
                    .setIncompleteUnsettled(a.incompleteUnsettled());
            if (!a.source().isNull()) {
                t.setSource((Source) theirs(a.source()));
            }
            if (!a.target().isNull()) {
                t.setTarget((Target) theirs(a.target()));
            }
            if (a.hasInitialDeliveryCount()) {
                t.setInitialDeliveryCount(a.initialDeliveryCount());
            }
            if (a.hasMaxMessageSize()) {
                t.setMaxMessageSize(new UnsignedLong(a.maxMessageSize()));
            }
            t.setOfferedCapabilities(syms(a.offeredCapabilities()));
            t.setDesiredCapabilities(syms(a.desiredCapabilities()));
            t.setProperties(theirMap(a.properties()));
            return t;
        }
        if (v instanceof io.amqpservlet.protocol.types.messaging.Source) {
            io.amqpservlet.protocol.types.messaging.Source s = (io.amqpservlet.protocol.types.messaging.Source) v;
            Source t = new Source();
            t.setAddress(str(s.address())).setDurable(TerminusDurability.valueOf(s.durable()))
                    .setExpiryPolicy(org.apache.qpid.protonj2.types.messaging.TerminusExpiryPolicy.valueOf(
                            org.apache.qpid.protonj2.types.Symbol.valueOf(TerminusExpiryPolicy.symbol(s.expiryPolicy()).toString())))
                    .setTimeout(UnsignedInteger.valueOf(s.timeoutSeconds())).setDynamic(s.dynamic())
                    .setDynamicNodeProperties(theirMap(s.dynamicNodeProperties()))
                    .setDistributionMode(sym(s.distributionMode())).setFilter(theirMap(s.filter()))
                    .setOutcomes(syms(s.outcomes())).setCapabilities(syms(s.capabilities()));
            if (!s.defaultOutcome().isNull()) {
                t.setDefaultOutcome((Outcome) theirs(s.defaultOutcome()));
            }
            return t;
        }
        if (v instanceof io.amqpservlet.protocol.types.messaging.Target) {
            io.amqpservlet.protocol.types.messaging.Target s = (io.amqpservlet.protocol.types.messaging.Target) v;
            Target t = new Target();
            t.setAddress(str(s.address())).setDurable(TerminusDurability.valueOf(s.durable()))
                    .setExpiryPolicy(org.apache.qpid.protonj2.types.messaging.TerminusExpiryPolicy.valueOf(
                            org.apache.qpid.protonj2.types.Symbol.valueOf(TerminusExpiryPolicy.symbol(s.expiryPolicy()).toString())))
                    .setTimeout(UnsignedInteger.valueOf(s.timeoutSeconds())).setDynamic(s.dynamic())
                    .setDynamicNodeProperties(theirMap(s.dynamicNodeProperties()))
                    .setCapabilities(syms(s.capabilities()));
            return t;
        }
        if (v instanceof Flow) {
            Flow f = (Flow) v;
            org.apache.qpid.protonj2.types.transport.Flow t = new org.apache.qpid.protonj2.types.transport.Flow();
            if (f.hasNextIncomingId()) {
                t.setNextIncomingId(f.nextIncomingId());
            }
            t.setIncomingWindow(f.incomingWindow()).setNextOutgoingId(f.nextOutgoingId())
                    .setOutgoingWindow(f.outgoingWindow());
            if (f.hasHandle()) {
                t.setHandle(f.handle());
            }
            if (f.hasDeliveryCount()) {
                t.setDeliveryCount(f.deliveryCount());
            }
            if (f.hasLinkCredit()) {
                t.setLinkCredit(f.linkCredit());
            }
            if (f.hasAvailable()) {
                t.setAvailable(f.available());
            }
            t.setDrain(f.drain()).setEcho(f.echo()).setProperties(theirMap(f.properties()));
            return t;
        }
        if (v instanceof Transfer) {
            Transfer f = (Transfer) v;
            org.apache.qpid.protonj2.types.transport.Transfer t = new org.apache.qpid.protonj2.types.transport.Transfer();
            t.setHandle(f.handle());
            if (f.hasDeliveryId()) {
                t.setDeliveryId(f.deliveryId());
            }
            if (!f.deliveryTag().isNull()) {
                t.setDeliveryTag(f.deliveryTag().toByteArray());
            }
            if (f.hasMessageFormat()) {
                t.setMessageFormat(f.messageFormat());
            }
            if (f.hasSettled()) {
                t.setSettled(f.settled());
            }
            t.setMore(f.more());
            if (f.rcvSettleMode() != null) {
                t.setRcvSettleMode(ReceiverSettleMode.valueOf((byte) f.rcvSettleMode().code()));
            }
            if (!f.state().isNull()) {
                t.setState((org.apache.qpid.protonj2.types.transport.DeliveryState) theirs(f.state()));
            }
            t.setResume(f.resume()).setAborted(f.aborted()).setBatchable(f.batchable());
            return t;
        }
        if (v instanceof Disposition) {
            Disposition d = (Disposition) v;
            org.apache.qpid.protonj2.types.transport.Disposition t = new org.apache.qpid.protonj2.types.transport.Disposition();
            t.setRole(org.apache.qpid.protonj2.types.transport.Role.valueOf(d.role() == Role.RECEIVER)).setFirst(d.first());
            if (d.hasLast()) {
                t.setLast(d.last());
            }
            t.setSettled(d.settled()).setBatchable(d.batchable());
            if (!d.state().isNull()) {
                t.setState((org.apache.qpid.protonj2.types.transport.DeliveryState) theirs(d.state()));
            }
            return t;
        }
        if (v instanceof Detach) {
            Detach d = (Detach) v;
            return new org.apache.qpid.protonj2.types.transport.Detach().setHandle(Integer.toUnsignedLong(d.handle()))
                    .setClosed(d.closed()).setError(error(d.error()));
        }
        if (v instanceof End) {
            return new org.apache.qpid.protonj2.types.transport.End().setError(error(((End) v).error()));
        }
        if (v instanceof Close) {
            return new org.apache.qpid.protonj2.types.transport.Close().setError(error(((Close) v).error()));
        }
        if (v instanceof ErrorCondition) {
            return error((ErrorCondition) v);
        }
        if (v instanceof DeliveryState) {
            return state((DeliveryState) v);
        }
        return sasl(v);
    }

    private static org.apache.qpid.protonj2.types.transport.ErrorCondition error(ErrorCondition e) {
        return e.isNull() ? null : new org.apache.qpid.protonj2.types.transport.ErrorCondition(
                sym(e.condition()), str(e.description()), theirMap(e.info()));
    }

    private static Object state(DeliveryState s) {
        switch (s.kind()) {
            case RECEIVED:
                return new Received().setSectionNumber(new UnsignedInteger(s.sectionNumber()))
                        .setSectionOffset(new UnsignedLong(s.sectionOffset()));
            case ACCEPTED:
                return Accepted.getInstance();
            case REJECTED:
                return new Rejected(error(s.error()));
            case RELEASED:
                return Released.getInstance();
            case MODIFIED:
                return new Modified(s.deliveryFailed(), s.undeliverableHere(), theirMap(s.messageAnnotations()));
            default:
                throw new IllegalArgumentException(s.toString());
        }
    }

    private static Object sasl(DescribedList v) {
        if (v instanceof SaslMechanisms) {
            return new org.apache.qpid.protonj2.types.security.SaslMechanisms()
                    .setSaslServerMechanisms(syms(((SaslMechanisms) v).mechanisms()));
        }
        if (v instanceof SaslInit) {
            SaslInit i = (SaslInit) v;
            org.apache.qpid.protonj2.types.security.SaslInit t = new org.apache.qpid.protonj2.types.security.SaslInit()
                    .setMechanism(sym(i.mechanism())).setHostname(str(i.hostname()));
            if (!i.initialResponse().isNull()) {
                t.setInitialResponse(bin(i.initialResponse()));
            }
            return t;
        }
        if (v instanceof SaslChallenge) {
            return new org.apache.qpid.protonj2.types.security.SaslChallenge().setChallenge(bin(((SaslChallenge) v).challenge()));
        }
        if (v instanceof SaslResponse) {
            return new org.apache.qpid.protonj2.types.security.SaslResponse().setResponse(bin(((SaslResponse) v).response()));
        }
        SaslOutcome o = (SaslOutcome) v;
        org.apache.qpid.protonj2.types.security.SaslOutcome t = new org.apache.qpid.protonj2.types.security.SaslOutcome()
                .setCode(SaslCode.valueOf(UnsignedByte.valueOf((byte) o.code())));
        if (!o.additionalData().isNull()) {
            t.setAdditionalData(bin(o.additionalData()));
        }
        return t;
    }

    // ------------------------------------------------------------------------------------------ theirs to neutral

    private static String sym(org.apache.qpid.protonj2.types.Symbol s) {
        return s == null ? null : s.toString();
    }

    static List<Object> fields(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Open) {
            org.apache.qpid.protonj2.types.transport.Open o = (org.apache.qpid.protonj2.types.transport.Open) v;
            return of("open", o.getContainerId(), o.getHostname(), o.getMaxFrameSize(), (long) o.getChannelMax(),
                    o.hasIdleTimeout() ? (Long) o.getIdleTimeout() : null, symbols(o.getOutgoingLocales()),
                    symbols(o.getIncomingLocales()), symbols(o.getOfferedCapabilities()),
                    symbols(o.getDesiredCapabilities()), map(o.getProperties()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Begin) {
            org.apache.qpid.protonj2.types.transport.Begin b = (org.apache.qpid.protonj2.types.transport.Begin) v;
            return of("begin", b.hasRemoteChannel() ? (Long) (long) b.getRemoteChannel() : null,
                    b.getNextOutgoingId(), b.getIncomingWindow(), b.getOutgoingWindow(), b.getHandleMax(),
                    symbols(b.getOfferedCapabilities()), symbols(b.getDesiredCapabilities()), map(b.getProperties()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Attach) {
            org.apache.qpid.protonj2.types.transport.Attach a = (org.apache.qpid.protonj2.types.transport.Attach) v;
            return of("attach", a.getName(), a.getHandle(), a.getRole().getValue(),
                    (long) a.getSenderSettleMode().byteValue(), (long) a.getReceiverSettleMode().byteValue(),
                    fields(a.getSource()), fields(a.getTarget()), a.getIncompleteUnsettled(),
                    a.hasInitialDeliveryCount() ? (Long) a.getInitialDeliveryCount() : null,
                    a.getMaxMessageSize() == null ? null : (Long) a.getMaxMessageSize().longValue(),
                    symbols(a.getOfferedCapabilities()), symbols(a.getDesiredCapabilities()), map(a.getProperties()));
        }
        if (v instanceof Source) {
            Source s = (Source) v;
            return of("source", s.getAddress(), s.getDurable().getValue().longValue(),
                    sym(s.getExpiryPolicy().getPolicy()), s.getTimeout().longValue(), s.isDynamic(),
                    map(s.getDynamicNodeProperties()), sym(s.getDistributionMode()), map(s.getFilter()),
                    fields(s.getDefaultOutcome()), symbols(s.getOutcomes()), symbols(s.getCapabilities()));
        }
        if (v instanceof Target) {
            Target t = (Target) v;
            return of("target", t.getAddress(), t.getDurable().getValue().longValue(),
                    sym(t.getExpiryPolicy().getPolicy()), t.getTimeout().longValue(), t.isDynamic(),
                    map(t.getDynamicNodeProperties()), symbols(t.getCapabilities()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Flow) {
            org.apache.qpid.protonj2.types.transport.Flow f = (org.apache.qpid.protonj2.types.transport.Flow) v;
            return of("flow", f.hasNextIncomingId() ? (Long) f.getNextIncomingId() : null, f.getIncomingWindow(),
                    f.getNextOutgoingId(), f.getOutgoingWindow(), f.hasHandle() ? (Long) f.getHandle() : null,
                    f.hasDeliveryCount() ? (Long) f.getDeliveryCount() : null,
                    f.hasLinkCredit() ? (Long) f.getLinkCredit() : null,
                    f.hasAvailable() ? (Long) f.getAvailable() : null, f.getDrain(), f.getEcho(),
                    map(f.getProperties()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Transfer) {
            org.apache.qpid.protonj2.types.transport.Transfer t = (org.apache.qpid.protonj2.types.transport.Transfer) v;
            byte[] tag = t.getDeliveryTag() == null ? null : t.getDeliveryTag().tagBytes();
            return of("transfer", t.getHandle(), t.hasDeliveryId() ? (Long) t.getDeliveryId() : null,
                    tag == null ? null : binary(tag, 0, tag.length),
                    t.hasMessageFormat() ? (Long) t.getMessageFormat() : null,
                    t.hasSettled() ? (Boolean) t.getSettled() : null, t.getMore(),
                    t.getRcvSettleMode() == null ? null : (Long) (long) t.getRcvSettleMode().byteValue(),
                    fields(t.getState()), t.getResume(), t.getAborted(), t.getBatchable());
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Disposition) {
            org.apache.qpid.protonj2.types.transport.Disposition d = (org.apache.qpid.protonj2.types.transport.Disposition) v;
            return of("disposition", d.getRole().getValue(), d.getFirst(), d.hasLast() ? (Long) d.getLast() : null,
                    d.getSettled(), fields(d.getState()), d.getBatchable());
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Detach) {
            org.apache.qpid.protonj2.types.transport.Detach d = (org.apache.qpid.protonj2.types.transport.Detach) v;
            return of("detach", d.getHandle(), d.getClosed(), fields(d.getError()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.End) {
            return of("end", fields(((org.apache.qpid.protonj2.types.transport.End) v).getError()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.Close) {
            return of("close", fields(((org.apache.qpid.protonj2.types.transport.Close) v).getError()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.transport.ErrorCondition) {
            org.apache.qpid.protonj2.types.transport.ErrorCondition e = (org.apache.qpid.protonj2.types.transport.ErrorCondition) v;
            return of("error", sym(e.getCondition()), e.getDescription(), map(e.getInfo()));
        }
        if (v instanceof Received) {
            Received r = (Received) v;
            return of("received", r.getSectionNumber().longValue(), r.getSectionOffset().longValue());
        }
        if (v instanceof Accepted) {
            return of("accepted");
        }
        if (v instanceof Rejected) {
            return of("rejected", fields(((Rejected) v).getError()));
        }
        if (v instanceof Released) {
            return of("released");
        }
        if (v instanceof Modified) {
            Modified m = (Modified) v;
            return of("modified", m.isDeliveryFailed(), m.isUndeliverableHere(), map(m.getMessageAnnotations()));
        }
        return saslFields(v);
    }

    private static List<Object> saslFields(Object v) {
        if (v instanceof org.apache.qpid.protonj2.types.security.SaslMechanisms) {
            return of("sasl-mechanisms",
                    symbols(((org.apache.qpid.protonj2.types.security.SaslMechanisms) v).getSaslServerMechanisms()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.security.SaslInit) {
            org.apache.qpid.protonj2.types.security.SaslInit i = (org.apache.qpid.protonj2.types.security.SaslInit) v;
            return of("sasl-init", sym(i.getMechanism()), hex(i.getInitialResponse()), i.getHostname());
        }
        if (v instanceof org.apache.qpid.protonj2.types.security.SaslChallenge) {
            return of("sasl-challenge", hex(((org.apache.qpid.protonj2.types.security.SaslChallenge) v).getChallenge()));
        }
        if (v instanceof org.apache.qpid.protonj2.types.security.SaslResponse) {
            return of("sasl-response", hex(((org.apache.qpid.protonj2.types.security.SaslResponse) v).getResponse()));
        }
        org.apache.qpid.protonj2.types.security.SaslOutcome o = (org.apache.qpid.protonj2.types.security.SaslOutcome) v;
        return of("sasl-outcome", (long) o.getCode().byteValue(), hex(o.getAdditionalData()));
    }
}
