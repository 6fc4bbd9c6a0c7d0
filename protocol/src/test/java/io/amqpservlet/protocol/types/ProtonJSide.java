package io.amqpservlet.protocol.types;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Outcome;
import org.apache.qpid.proton.amqp.messaging.Received;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.messaging.Terminus;
import org.apache.qpid.proton.amqp.messaging.TerminusDurability;
import org.apache.qpid.proton.amqp.messaging.TerminusExpiryPolicy;
import org.apache.qpid.proton.amqp.security.SaslChallenge;
import org.apache.qpid.proton.amqp.security.SaslCode;
import org.apache.qpid.proton.amqp.security.SaslInit;
import org.apache.qpid.proton.amqp.security.SaslMechanisms;
import org.apache.qpid.proton.amqp.security.SaslOutcome;
import org.apache.qpid.proton.amqp.security.SaslResponse;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transaction.Declared;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Close;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.Detach;
import org.apache.qpid.proton.amqp.transport.Disposition;
import org.apache.qpid.proton.amqp.transport.End;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.Flow;
import org.apache.qpid.proton.amqp.transport.Open;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.Role;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.amqp.transport.Transfer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.amqpservlet.protocol.types.Fields.binary;
import static io.amqpservlet.protocol.types.Fields.map;
import static io.amqpservlet.protocol.types.Fields.of;
import static io.amqpservlet.protocol.types.Fields.symbols;

/**
 * Test support: proton-j 0.35.0 objects built from the neutral form of {@link Fields}, and proton-j objects in
 * that form. proton-j keeps an omitted field as {@code null} where the spec gives a default (max-frame-size,
 * channel-max, handle-max, settle modes, terminus durability/expiry/timeout, modified's flags), so the spec's
 * default is applied here when reading. An attach's neutral form carries two more elements than
 * {@link OurSide}'s: the unsettled map and a coordinator target (see {@link ProtonJDifferentialTest}).
 */
final class ProtonJSide {
    private static final long UINT_MAX = 0xFFFF_FFFFL;

    private ProtonJSide() {
    }

    // ------------------------------------------------------------------------------------------ neutral to theirs

    private static String str(List<Object> f, int i) {
        return (String) f.get(i);
    }

    private static boolean flag(List<Object> f, int i) {
        return (Boolean) f.get(i);
    }

    private static UnsignedInteger uint(List<Object> f, int i) {
        Object v = f.get(i);
        return v == null ? null : UnsignedInteger.valueOf((Long) v);
    }

    private static Symbol sym(List<Object> f, int i) {
        Object v = f.get(i);
        return v == null ? null : Symbol.valueOf((String) v);
    }

    @SuppressWarnings("unchecked")
    private static Symbol[] syms(List<Object> f, int i) {
        List<String> v = (List<String>) f.get(i);
        if (v == null) {
            return null;
        }
        Symbol[] out = new Symbol[v.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = Symbol.valueOf(v.get(k));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<Symbol, Object> symbolMap(List<Object> f, int i) {
        Map<String, String> v = (Map<String, String>) f.get(i);
        if (v == null) {
            return null;
        }
        Map<Symbol, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : v.entrySet()) {
            out.put(Symbol.valueOf(e.getKey()), e.getValue());
        }
        return out;
    }

    private static Binary bin(Object hex) {
        if (hex == null) {
            return null;
        }
        String s = ((String) hex).substring(2); // "b:<hex>"
        byte[] out = new byte[s.length() / 2];
        for (int k = 0; k < out.length; k++) {
            out[k] = (byte) Integer.parseInt(s.substring(2 * k, 2 * k + 2), 16);
        }
        return new Binary(out);
    }

    @SuppressWarnings("unchecked")
    private static Object nested(List<Object> f, int i) {
        return theirs((List<Object>) f.get(i));
    }

    /** The proton-j object for a neutral field list (null for null). */
    @SuppressWarnings("unchecked")
    static Object theirs(List<Object> f) {
        if (f == null) {
            return null;
        }
        switch (str(f, 0)) {
            case "open": {
                Open o = new Open();
                o.setContainerId(str(f, 1));
                o.setHostname(str(f, 2));
                o.setMaxFrameSize(uint(f, 3));
                o.setChannelMax(UnsignedShort.valueOf((short) (long) (Long) f.get(4)));
                o.setIdleTimeOut(uint(f, 5));
                o.setOutgoingLocales(syms(f, 6));
                o.setIncomingLocales(syms(f, 7));
                o.setOfferedCapabilities(syms(f, 8));
                o.setDesiredCapabilities(syms(f, 9));
                o.setProperties(symbolMap(f, 10));
                return o;
            }
            case "begin": {
                Begin b = new Begin();
                Object channel = f.get(1);
                b.setRemoteChannel(channel == null ? null : UnsignedShort.valueOf((short) (long) (Long) channel));
                b.setNextOutgoingId(uint(f, 2));
                b.setIncomingWindow(uint(f, 3));
                b.setOutgoingWindow(uint(f, 4));
                b.setHandleMax(uint(f, 5));
                b.setOfferedCapabilities(syms(f, 6));
                b.setDesiredCapabilities(syms(f, 7));
                b.setProperties(symbolMap(f, 8));
                return b;
            }
            case "attach":
                return attach(f);
            case "source": {
                Source s = new Source();
                terminus(s, f);
                s.setDistributionMode(sym(f, 7));
                s.setFilter(symbolMap(f, 8));
                s.setDefaultOutcome((Outcome) nested(f, 9));
                s.setOutcomes(syms(f, 10));
                s.setCapabilities(syms(f, 11));
                return s;
            }
            case "target": {
                Target t = new Target();
                terminus(t, f);
                t.setCapabilities(syms(f, 7));
                return t;
            }
            case "coordinator": {
                Coordinator c = new Coordinator();
                c.setCapabilities(syms(f, 1));
                return c;
            }
            case "flow": {
                Flow t = new Flow();
                t.setNextIncomingId(uint(f, 1));
                t.setIncomingWindow(uint(f, 2));
                t.setNextOutgoingId(uint(f, 3));
                t.setOutgoingWindow(uint(f, 4));
                t.setHandle(uint(f, 5));
                t.setDeliveryCount(uint(f, 6));
                t.setLinkCredit(uint(f, 7));
                t.setAvailable(uint(f, 8));
                t.setDrain(flag(f, 9));
                t.setEcho(flag(f, 10));
                t.setProperties(symbolMap(f, 11));
                return t;
            }
            case "transfer": {
                Transfer t = new Transfer();
                t.setHandle(uint(f, 1));
                t.setDeliveryId(uint(f, 2));
                t.setDeliveryTag(bin(f.get(3)));
                t.setMessageFormat(uint(f, 4));
                t.setSettled((Boolean) f.get(5));
                t.setMore(flag(f, 6));
                Object rcv = f.get(7);
                t.setRcvSettleMode(rcv == null ? null : ReceiverSettleMode.values()[(int) (long) (Long) rcv]);
                t.setState((DeliveryState) nested(f, 8));
                t.setResume(flag(f, 9));
                t.setAborted(flag(f, 10));
                t.setBatchable(flag(f, 11));
                return t;
            }
            case "disposition": {
                Disposition d = new Disposition();
                d.setRole(flag(f, 1) ? Role.RECEIVER : Role.SENDER);
                d.setFirst(uint(f, 2));
                d.setLast(uint(f, 3));
                d.setSettled(flag(f, 4));
                d.setState((DeliveryState) nested(f, 5));
                d.setBatchable(flag(f, 6));
                return d;
            }
            case "detach": {
                Detach d = new Detach();
                d.setHandle(uint(f, 1));
                d.setClosed(flag(f, 2));
                d.setError((ErrorCondition) nested(f, 3));
                return d;
            }
            case "end": {
                End e = new End();
                e.setError((ErrorCondition) nested(f, 1));
                return e;
            }
            case "close": {
                Close c = new Close();
                c.setError((ErrorCondition) nested(f, 1));
                return c;
            }
            case "error": {
                ErrorCondition e = new ErrorCondition(sym(f, 1), str(f, 2));
                e.setInfo(symbolMap(f, 3));
                return e;
            }
            default:
                return state(f);
        }
    }

    @SuppressWarnings("unchecked")
    private static Attach attach(List<Object> f) {
        Attach a = new Attach();
        a.setName(str(f, 1));
        a.setHandle(uint(f, 2));
        a.setRole(flag(f, 3) ? Role.RECEIVER : Role.SENDER);
        a.setSndSettleMode(SenderSettleMode.values()[(int) (long) (Long) f.get(4)]);
        a.setRcvSettleMode(ReceiverSettleMode.values()[(int) (long) (Long) f.get(5)]);
        a.setSource((Source) nested(f, 6));
        a.setTarget((Target) nested(f, 7));
        a.setIncompleteUnsettled(flag(f, 8));
        a.setInitialDeliveryCount(uint(f, 9));
        Object max = f.get(10);
        a.setMaxMessageSize(max == null ? null : UnsignedLong.valueOf((Long) max));
        a.setOfferedCapabilities(syms(f, 11));
        a.setDesiredCapabilities(syms(f, 12));
        a.setProperties(symbolMap(f, 13));
        Map<String, List<Object>> unsettled = (Map<String, List<Object>>) f.get(14);
        if (unsettled != null) {
            Map<Binary, DeliveryState> m = new LinkedHashMap<>();
            for (Map.Entry<String, List<Object>> e : unsettled.entrySet()) {
                m.put(bin(e.getKey()), (DeliveryState) theirs(e.getValue()));
            }
            a.setUnsettled(m);
        }
        if (f.get(15) != null) {
            a.setTarget((Coordinator) nested(f, 15));
        }
        return a;
    }

    private static void terminus(Terminus t, List<Object> f) {
        t.setAddress(str(f, 1));
        t.setDurable(TerminusDurability.get(uint(f, 2)));
        t.setExpiryPolicy(TerminusExpiryPolicy.valueOf(sym(f, 3)));
        t.setTimeout(uint(f, 4));
        t.setDynamic(flag(f, 5));
        t.setDynamicNodeProperties(symbolMap(f, 6));
    }

    private static Object state(List<Object> f) {
        switch (str(f, 0)) {
            case "received": {
                Received r = new Received();
                r.setSectionNumber(uint(f, 1));
                r.setSectionOffset(UnsignedLong.valueOf((Long) f.get(2)));
                return r;
            }
            case "accepted":
                return Accepted.getInstance();
            case "rejected": {
                Rejected r = new Rejected();
                r.setError((ErrorCondition) nested(f, 1));
                return r;
            }
            case "released":
                return Released.getInstance();
            case "modified": {
                Modified m = new Modified();
                m.setDeliveryFailed(flag(f, 1));
                m.setUndeliverableHere(flag(f, 2));
                m.setMessageAnnotations(symbolMap(f, 3));
                return m;
            }
            case "declared": {
                Declared d = new Declared();
                d.setTxnId(bin(f.get(1)));
                return d;
            }
            case "transactional-state": {
                TransactionalState t = new TransactionalState();
                t.setTxnId(bin(f.get(1)));
                t.setOutcome((Outcome) nested(f, 2));
                return t;
            }
            default:
                return sasl(f);
        }
    }

    private static Object sasl(List<Object> f) {
        switch (str(f, 0)) {
            case "sasl-mechanisms": {
                SaslMechanisms m = new SaslMechanisms();
                m.setSaslServerMechanisms(syms(f, 1));
                return m;
            }
            case "sasl-init": {
                SaslInit i = new SaslInit();
                i.setMechanism(sym(f, 1));
                i.setInitialResponse(bin(f.get(2)));
                i.setHostname(str(f, 3));
                return i;
            }
            case "sasl-challenge": {
                SaslChallenge c = new SaslChallenge();
                c.setChallenge(bin(f.get(1)));
                return c;
            }
            case "sasl-response": {
                SaslResponse r = new SaslResponse();
                r.setResponse(bin(f.get(1)));
                return r;
            }
            case "sasl-outcome": {
                SaslOutcome o = new SaslOutcome();
                o.setCode(SaslCode.valueOf(UnsignedByte.valueOf((byte) (long) (Long) f.get(1))));
                o.setAdditionalData(bin(f.get(2)));
                return o;
            }
            default:
                throw new IllegalArgumentException("no proton-j type for " + f);
        }
    }

    // ------------------------------------------------------------------------------------------ theirs to neutral

    private static Long num(UnsignedInteger v) {
        return v == null ? null : v.longValue();
    }

    private static Long num(UnsignedInteger v, long dflt) {
        return v == null ? dflt : v.longValue();
    }

    private static String name(Symbol s) {
        return s == null ? null : s.toString();
    }

    private static String hex(Binary b) {
        return b == null ? null : binary(b.getArray(), b.getArrayOffset(), b.getLength());
    }

    private static boolean orFalse(Boolean b) {
        return b != null && b;
    }

    /** The neutral form of a proton-j object (null for null). */
    static List<Object> fields(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Open) {
            Open o = (Open) v;
            // AMQP 1.0 §2.7.1 defaults: proton-j leaves omitted max-frame-size and channel-max null.
            return of("open", o.getContainerId(), o.getHostname(), num(o.getMaxFrameSize(), UINT_MAX),
                    o.getChannelMax() == null ? 65535L : (Long) o.getChannelMax().longValue(),
                    num(o.getIdleTimeOut()), symbols(o.getOutgoingLocales()), symbols(o.getIncomingLocales()),
                    symbols(o.getOfferedCapabilities()), symbols(o.getDesiredCapabilities()),
                    map(o.getProperties()));
        }
        if (v instanceof Begin) {
            Begin b = (Begin) v;
            return of("begin", b.getRemoteChannel() == null ? null : (Long) b.getRemoteChannel().longValue(),
                    num(b.getNextOutgoingId()), num(b.getIncomingWindow()), num(b.getOutgoingWindow()),
                    num(b.getHandleMax(), UINT_MAX), symbols(b.getOfferedCapabilities()),
                    symbols(b.getDesiredCapabilities()), map(b.getProperties()));
        }
        if (v instanceof Attach) {
            return attachFields((Attach) v);
        }
        if (v instanceof Source) {
            Source s = (Source) v;
            List<Object> out = terminusFields("source", s);
            out.add(name(s.getDistributionMode()));
            out.add(map(s.getFilter()));
            out.add(fields(s.getDefaultOutcome()));
            out.add(symbols(s.getOutcomes()));
            out.add(symbols(s.getCapabilities()));
            return out;
        }
        if (v instanceof Target) {
            List<Object> out = terminusFields("target", (Target) v);
            out.add(symbols(((Target) v).getCapabilities()));
            return out;
        }
        if (v instanceof Coordinator) {
            return of("coordinator", symbols(((Coordinator) v).getCapabilities()));
        }
        if (v instanceof Flow) {
            Flow f = (Flow) v;
            return of("flow", num(f.getNextIncomingId()), num(f.getIncomingWindow()), num(f.getNextOutgoingId()),
                    num(f.getOutgoingWindow()), num(f.getHandle()), num(f.getDeliveryCount()),
                    num(f.getLinkCredit()), num(f.getAvailable()), f.getDrain(), f.getEcho(),
                    map(f.getProperties()));
        }
        if (v instanceof Transfer) {
            Transfer t = (Transfer) v;
            return of("transfer", num(t.getHandle()), num(t.getDeliveryId()), hex(t.getDeliveryTag()),
                    num(t.getMessageFormat()), t.getSettled(), t.getMore(),
                    t.getRcvSettleMode() == null ? null : (Long) t.getRcvSettleMode().getValue().longValue(),
                    fields(t.getState()), t.getResume(), t.getAborted(), t.getBatchable());
        }
        if (v instanceof Disposition) {
            Disposition d = (Disposition) v;
            return of("disposition", d.getRole().getValue(), num(d.getFirst()), num(d.getLast()), d.getSettled(),
                    fields(d.getState()), d.getBatchable());
        }
        if (v instanceof Detach) {
            Detach d = (Detach) v;
            return of("detach", num(d.getHandle()), d.getClosed(), fields(d.getError()));
        }
        if (v instanceof End) {
            return of("end", fields(((End) v).getError()));
        }
        if (v instanceof Close) {
            return of("close", fields(((Close) v).getError()));
        }
        if (v instanceof ErrorCondition) {
            ErrorCondition e = (ErrorCondition) v;
            return of("error", name(e.getCondition()), e.getDescription(), map(e.getInfo()));
        }
        return stateFields(v);
    }

    private static List<Object> attachFields(Attach a) {
        // AMQP 1.0 §2.7.3 defaults: snd-settle-mode mixed, rcv-settle-mode first; proton-j keeps them null.
        List<Object> out = of("attach", a.getName(), num(a.getHandle()), a.getRole().getValue(),
                a.getSndSettleMode() == null ? 2L : (Long) a.getSndSettleMode().getValue().longValue(),
                a.getRcvSettleMode() == null ? 0L : (Long) a.getRcvSettleMode().getValue().longValue(),
                fields(a.getSource()), a.getTarget() instanceof Target ? fields(a.getTarget()) : null,
                a.getIncompleteUnsettled(), num(a.getInitialDeliveryCount()),
                a.getMaxMessageSize() == null ? null : (Long) a.getMaxMessageSize().longValue(),
                symbols(a.getOfferedCapabilities()), symbols(a.getDesiredCapabilities()), map(a.getProperties()));
        Map<String, List<Object>> unsettled = null;
        if (a.getUnsettled() != null) {
            unsettled = new LinkedHashMap<>();
            for (Object o : a.getUnsettled().entrySet()) {
                Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
                unsettled.put(hex((Binary) e.getKey()), fields(e.getValue()));
            }
        }
        out.add(unsettled);
        out.add(a.getTarget() instanceof Coordinator ? fields(a.getTarget()) : null);
        return out;
    }

    private static List<Object> terminusFields(String type, Terminus t) {
        // AMQP 1.0 §3.5.3/§3.5.4 defaults: durable none, expiry-policy session-end, timeout 0.
        return of(type, t.getAddress(),
                t.getDurable() == null ? 0L : (Long) t.getDurable().getValue().longValue(),
                t.getExpiryPolicy() == null ? "session-end" : name(t.getExpiryPolicy().getPolicy()),
                num(t.getTimeout(), 0), t.getDynamic(), map(t.getDynamicNodeProperties()));
    }

    private static List<Object> stateFields(Object v) {
        if (v instanceof Received) {
            Received r = (Received) v;
            return of("received", num(r.getSectionNumber()), r.getSectionOffset().longValue());
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
            // AMQP 1.0 §3.4.5: both flags default to false; proton-j keeps an omitted one null.
            return of("modified", orFalse(m.getDeliveryFailed()), orFalse(m.getUndeliverableHere()),
                    map(m.getMessageAnnotations()));
        }
        if (v instanceof Declared) {
            return of("declared", hex(((Declared) v).getTxnId()));
        }
        if (v instanceof TransactionalState) {
            TransactionalState t = (TransactionalState) v;
            return of("transactional-state", hex(t.getTxnId()), fields(t.getOutcome()));
        }
        return saslFields(v);
    }

    private static List<Object> saslFields(Object v) {
        if (v instanceof SaslMechanisms) {
            return of("sasl-mechanisms", symbols(((SaslMechanisms) v).getSaslServerMechanisms()));
        }
        if (v instanceof SaslInit) {
            SaslInit i = (SaslInit) v;
            return of("sasl-init", name(i.getMechanism()), hex(i.getInitialResponse()), i.getHostname());
        }
        if (v instanceof SaslChallenge) {
            return of("sasl-challenge", hex(((SaslChallenge) v).getChallenge()));
        }
        if (v instanceof SaslResponse) {
            return of("sasl-response", hex(((SaslResponse) v).getResponse()));
        }
        if (v instanceof SaslOutcome) {
            SaslOutcome o = (SaslOutcome) v;
            return of("sasl-outcome", (long) o.getCode().getValue().intValue(), hex(o.getAdditionalData()));
        }
        throw new AssertionError("proton-j decoded an unexpected " + v.getClass().getName() + ": " + v);
    }
}
