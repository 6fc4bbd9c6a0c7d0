package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.Source;
import io.amqpservlet.protocol.types.messaging.Target;
import io.amqpservlet.protocol.types.messaging.Terminus;
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
import io.amqpservlet.protocol.types.transport.ReceiverSettleMode;
import io.amqpservlet.protocol.types.transport.Role;
import io.amqpservlet.protocol.types.transport.SenderSettleMode;
import io.amqpservlet.protocol.types.transport.Transfer;

import java.util.List;

import static io.amqpservlet.protocol.types.Fields.binary;
import static io.amqpservlet.protocol.types.Fields.map;
import static io.amqpservlet.protocol.types.Fields.of;
import static io.amqpservlet.protocol.types.Fields.symbols;
import static io.amqpservlet.protocol.types.Fields.text;
import static io.amqpservlet.protocol.types.Fields.uint;

/**
 * Test support for differential tests: random instances of our types, and our types in the neutral form of
 * {@link Fields}. The other implementations' sides mirror this.
 */
public final class OurSide {
    private OurSide() {
    }

    // ------------------------------------------------------------------------------------------ random values

    public static Open open(RandomValues r) {
        Open o = new Open().containerId(r.text()).hostname(r.textOrNull());
        if (r.chance()) {
            o.maxFrameSize(Integer.toUnsignedLong(r.uint()));
        }
        if (r.chance()) {
            o.channelMax(r.below(65536));
        }
        if (r.chance()) {
            o.idleTimeOutMillis(Integer.toUnsignedLong(r.uint()));
        }
        r.symbols(o.outgoingLocales());
        r.symbols(o.incomingLocales());
        r.symbols(o.offeredCapabilities());
        r.symbols(o.desiredCapabilities());
        Fields.putMap(o.properties(), r.mapOrNull());
        return o;
    }

    public static Begin begin(RandomValues r) {
        Begin b = new Begin().nextOutgoingId(r.uint()).incomingWindow(r.uint()).outgoingWindow(r.uint());
        if (r.chance()) {
            b.remoteChannel(r.below(65536));
        }
        if (r.chance()) {
            b.handleMax(r.uint());
        }
        r.symbols(b.offeredCapabilities());
        r.symbols(b.desiredCapabilities());
        Fields.putMap(b.properties(), r.mapOrNull());
        return b;
    }

    public static Attach attach(RandomValues r) {
        Attach a = new Attach().name(r.text()).handle(r.uint()).role(r.chance() ? Role.RECEIVER : Role.SENDER)
                .sndSettleMode(SenderSettleMode.values()[r.below(3)])
                .rcvSettleMode(ReceiverSettleMode.values()[r.below(2)]).incompleteUnsettled(r.chance());
        if (r.chance()) {
            source(r, a.source());
        }
        if (r.chance()) {
            target(r, a.target());
        }
        if (r.chance()) {
            a.initialDeliveryCount(r.uint());
        }
        if (r.chance()) {
            a.maxMessageSize(r.ulong());
        }
        r.symbols(a.offeredCapabilities());
        r.symbols(a.desiredCapabilities());
        Fields.putMap(a.properties(), r.mapOrNull());
        return a;
    }

    private static void terminus(RandomValues r, Terminus t) {
        t.present(true);
        if (r.chance()) {
            t.address(r.text());
        }
        t.durable(r.below(3)).expiryPolicy(r.below(4)).timeoutSeconds(Integer.toUnsignedLong(r.uint()))
                .dynamic(r.chance());
        Fields.putMap(t.dynamicNodeProperties(), r.mapOrNull());
        r.symbols(t.capabilities());
    }

    public static Source source(RandomValues r, Source s) {
        terminus(r, s);
        if (r.chance()) {
            s.distributionMode().set(r.chance() ? "move" : "copy");
        }
        Fields.putMap(s.filter(), r.mapOrNull());
        if (r.chance()) {
            outcome(r, s.defaultOutcome());
        }
        r.symbols(s.outcomes());
        return s;
    }

    public static Target target(RandomValues r, Target t) {
        terminus(r, t);
        return t;
    }

    public static Flow flow(RandomValues r) {
        Flow f = new Flow().incomingWindow(r.uint()).nextOutgoingId(r.uint()).outgoingWindow(r.uint())
                .drain(r.chance()).echo(r.chance());
        if (r.chance()) {
            f.nextIncomingId(r.uint());
        }
        if (r.chance()) {
            f.handle(r.uint()).deliveryCount(r.uint()).linkCredit(r.uint());
            if (r.chance()) {
                f.available(r.uint());
            }
        }
        Fields.putMap(f.properties(), r.mapOrNull());
        return f;
    }

    public static Transfer transfer(RandomValues r) {
        Transfer t = new Transfer().handle(r.uint()).more(r.chance()).resume(r.chance()).aborted(r.chance())
                .batchable(r.chance());
        if (r.chance()) {
            byte[] tag = r.bytes();
            t.deliveryId(r.uint()).deliveryTag(tag, 0, tag.length).messageFormat(r.uint()).settled(r.chance());
        }
        if (r.chance()) {
            t.rcvSettleMode(ReceiverSettleMode.values()[r.below(2)]);
        }
        if (r.chance()) {
            state(r, t.state());
        }
        return t;
    }

    public static Disposition disposition(RandomValues r) {
        Disposition d = new Disposition().role(r.chance() ? Role.RECEIVER : Role.SENDER).first(r.uint())
                .settled(r.chance()).batchable(r.chance());
        if (r.chance()) {
            d.last(r.uint());
        }
        if (r.chance()) {
            state(r, d.state());
        }
        return d;
    }

    public static Detach detach(RandomValues r) {
        Detach d = new Detach().handle(r.uint()).closed(r.chance());
        if (r.chance()) {
            error(r, d.error());
        }
        return d;
    }

    public static End end(RandomValues r) {
        End e = new End();
        if (r.chance()) {
            error(r, e.error());
        }
        return e;
    }

    public static Close close(RandomValues r) {
        Close c = new Close();
        if (r.chance()) {
            error(r, c.error());
        }
        return c;
    }

    public static ErrorCondition error(RandomValues r, ErrorCondition e) {
        e.condition(Symbol.of("amqp:" + r.text().replace('"', 'q'))).description(r.textOrNull());
        Fields.putMap(e.info(), r.mapOrNull());
        return e;
    }

    /** A random terminal outcome (accepted, rejected, released, modified). */
    public static DeliveryState outcome(RandomValues r, DeliveryState s) {
        switch (r.below(4)) {
            case 0:
                return s.accepted();
            case 1:
                s.rejected();
                if (r.chance()) {
                    error(r, s.error());
                }
                return s;
            case 2:
                return s.released();
            default:
                s.modified(r.chance(), r.chance());
                Fields.putMap(s.messageAnnotations(), r.mapOrNull());
                return s;
        }
    }

    /** A random outcome or received state. */
    public static DeliveryState state(RandomValues r, DeliveryState s) {
        return r.below(5) == 0 ? s.received(r.uint(), r.ulong()) : outcome(r, s);
    }

    public static SaslMechanisms saslMechanisms(RandomValues r) {
        SaslMechanisms m = new SaslMechanisms();
        Symbol[] s = r.symbolsOrNull();
        m.mechanisms().set(s == null ? new Symbol[] {Symbol.of("PLAIN")} : s);
        return m;
    }

    public static SaslInit saslInit(RandomValues r) {
        SaslInit i = new SaslInit().mechanism(Symbol.of(r.text()));
        if (r.chance()) {
            byte[] b = r.bytes();
            i.initialResponse().set(b, 0, b.length);
        }
        i.hostname().set(r.textOrNull());
        return i;
    }

    public static SaslChallenge saslChallenge(RandomValues r) {
        SaslChallenge c = new SaslChallenge();
        byte[] b = r.bytes();
        c.challenge().set(b, 0, b.length);
        return c;
    }

    public static SaslResponse saslResponse(RandomValues r) {
        SaslResponse c = new SaslResponse();
        byte[] b = r.bytes();
        c.response().set(b, 0, b.length);
        return c;
    }

    public static SaslOutcome saslOutcome(RandomValues r) {
        SaslOutcome o = new SaslOutcome().code(r.below(5));
        if (r.chance()) {
            byte[] b = r.bytes();
            o.additionalData().set(b, 0, b.length);
        }
        return o;
    }

    // ------------------------------------------------------------------------------------------ neutral form

    public static List<Object> fields(DescribedList v) {
        if (v instanceof Open) {
            Open o = (Open) v;
            return of("open", text(o.containerId()), text(o.hostname()), o.maxFrameSize(), (long) o.channelMax(),
                    o.hasIdleTimeOut() ? o.idleTimeOutMillis() : null, symbols(o.outgoingLocales()),
                    symbols(o.incomingLocales()), symbols(o.offeredCapabilities()),
                    symbols(o.desiredCapabilities()), map(o.properties()));
        }
        if (v instanceof Begin) {
            Begin b = (Begin) v;
            return of("begin", b.hasRemoteChannel() ? (Long) (long) b.remoteChannel() : null,
                    uint(b.nextOutgoingId()), uint(b.incomingWindow()), uint(b.outgoingWindow()),
                    uint(b.handleMax()), symbols(b.offeredCapabilities()), symbols(b.desiredCapabilities()),
                    map(b.properties()));
        }
        if (v instanceof Attach) {
            Attach a = (Attach) v;
            return of("attach", text(a.name()), uint(a.handle()), a.role() == Role.RECEIVER,
                    (long) a.sndSettleMode().code(), (long) a.rcvSettleMode().code(), nullable(a.source()),
                    nullable(a.target()), a.incompleteUnsettled(),
                    a.hasInitialDeliveryCount() ? uint(a.initialDeliveryCount()) : null,
                    a.hasMaxMessageSize() ? (Long) a.maxMessageSize() : null, symbols(a.offeredCapabilities()),
                    symbols(a.desiredCapabilities()), map(a.properties()));
        }
        if (v instanceof Source) {
            Source s = (Source) v;
            return of("source", text(s.address()), (long) s.durable(),
                    TerminusExpiryPolicy.symbol(s.expiryPolicy()).toString(), s.timeoutSeconds(), s.dynamic(),
                    map(s.dynamicNodeProperties()), text(s.distributionMode()), map(s.filter()),
                    nullable(s.defaultOutcome()), symbols(s.outcomes()), symbols(s.capabilities()));
        }
        if (v instanceof Target) {
            Target t = (Target) v;
            return of("target", text(t.address()), (long) t.durable(),
                    TerminusExpiryPolicy.symbol(t.expiryPolicy()).toString(), t.timeoutSeconds(), t.dynamic(),
                    map(t.dynamicNodeProperties()), symbols(t.capabilities()));
        }
        if (v instanceof Flow) {
            Flow f = (Flow) v;
            return of("flow", f.hasNextIncomingId() ? uint(f.nextIncomingId()) : null, uint(f.incomingWindow()),
                    uint(f.nextOutgoingId()), uint(f.outgoingWindow()), f.hasHandle() ? uint(f.handle()) : null,
                    f.hasDeliveryCount() ? uint(f.deliveryCount()) : null,
                    f.hasLinkCredit() ? uint(f.linkCredit()) : null, f.hasAvailable() ? uint(f.available()) : null,
                    f.drain(), f.echo(), map(f.properties()));
        }
        if (v instanceof Transfer) {
            Transfer t = (Transfer) v;
            return of("transfer", uint(t.handle()), t.hasDeliveryId() ? uint(t.deliveryId()) : null,
                    binary(t.deliveryTag()), t.hasMessageFormat() ? uint(t.messageFormat()) : null,
                    t.hasSettled() ? (Boolean) t.settled() : null, t.more(),
                    t.rcvSettleMode() == null ? null : (Long) (long) t.rcvSettleMode().code(), nullable(t.state()),
                    t.resume(), t.aborted(), t.batchable());
        }
        if (v instanceof Disposition) {
            Disposition d = (Disposition) v;
            return of("disposition", d.role() == Role.RECEIVER, uint(d.first()),
                    d.hasLast() ? uint(d.last()) : null, d.settled(), nullable(d.state()), d.batchable());
        }
        if (v instanceof Detach) {
            Detach d = (Detach) v;
            return of("detach", uint(d.handle()), d.closed(), nullable(d.error()));
        }
        if (v instanceof End) {
            return of("end", nullable(((End) v).error()));
        }
        if (v instanceof Close) {
            return of("close", nullable(((Close) v).error()));
        }
        if (v instanceof ErrorCondition) {
            ErrorCondition e = (ErrorCondition) v;
            return of("error", text(e.condition()), text(e.description()), map(e.info()));
        }
        if (v instanceof DeliveryState) {
            return stateFields((DeliveryState) v);
        }
        return saslFields(v);
    }

    private static List<Object> stateFields(DeliveryState s) {
        switch (s.kind()) {
            case RECEIVED:
                return of("received", uint(s.sectionNumber()), s.sectionOffset());
            case REJECTED:
                return of("rejected", nullable(s.error()));
            case MODIFIED:
                return of("modified", s.deliveryFailed(), s.undeliverableHere(), map(s.messageAnnotations()));
            case DECLARED:
                return of("declared", binary(s.txnId()));
            case TRANSACTIONAL:
                return transactionalFields(s.transactional());
            default:
                return of(s.typeName());
        }
    }

    /** AMQP 1.0 §4.5.8: we hold a transactional-state raw, so its txn-id and outcome are read here. */
    private static List<Object> transactionalFields(EncodedValue raw) {
        AmqpReader r = raw.reader(new AmqpReader());
        r.enter();
        r.next(); // the descriptor
        r.next();
        r.enter();
        r.nextField();
        String txnId = r.isNull() ? null : binary(r.buffer(), r.valueOffset(), r.valueLength());
        DeliveryState outcome = new DeliveryState();
        if (r.nextField() != FormatCode.NULL) {
            outcome.decode(r);
        }
        return of("transactional-state", txnId, nullable(outcome));
    }

    private static List<Object> saslFields(DescribedList v) {
        if (v instanceof SaslMechanisms) {
            return of("sasl-mechanisms", symbols(((SaslMechanisms) v).mechanisms()));
        }
        if (v instanceof SaslInit) {
            SaslInit i = (SaslInit) v;
            return of("sasl-init", text(i.mechanism()), binary(i.initialResponse()), text(i.hostname()));
        }
        if (v instanceof SaslChallenge) {
            return of("sasl-challenge", binary(((SaslChallenge) v).challenge()));
        }
        if (v instanceof SaslResponse) {
            return of("sasl-response", binary(((SaslResponse) v).response()));
        }
        SaslOutcome o = (SaslOutcome) v;
        return of("sasl-outcome", (long) o.code(), binary(o.additionalData()));
    }

    private static List<Object> nullable(DescribedList v) {
        return v.isNull() ? null : fields(v);
    }
}
