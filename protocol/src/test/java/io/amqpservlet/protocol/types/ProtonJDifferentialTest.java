package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.messaging.Source;
import io.amqpservlet.protocol.types.messaging.Target;
import io.amqpservlet.protocol.types.sasl.SaslChallenge;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.Disposition;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Differential tests against proton-j 0.35.0 (with its fast-path transfer, flow and disposition codecs, as a
 * proton-j peer uses them): random values of every type encoded by us and decoded by proton-j, and encoded by
 * proton-j and decoded by us, compare field by field in the neutral form of {@link Fields}. Each case names its
 * seed. Beyond the protonj2 test this covers what proton-j can represent and protonj2's test leaves out: an
 * attach's unsettled map and coordinator target, and the declared and transactional-state delivery states.
 * Nothing of ours is skipped: proton-j represents every field of every type tested.
 */
class ProtonJDifferentialTest {
    private static final int CASES = 300;
    private static final long SEED = 0x5EED_0002L;

    private final DecoderImpl decoder = new DecoderImpl();
    private final EncoderImpl encoder = new EncoderImpl(decoder);

    ProtonJDifferentialTest() {
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    }

    private Object theirDecode(byte[] bytes, String where) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        decoder.setByteBuffer(buffer);
        Object value = decoder.readObject();
        assertFalse(buffer.hasRemaining(), where + ": proton-j left bytes unread");
        return value;
    }

    private byte[] theirEncode(Object value) {
        ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        encoder.setByteBuffer(buffer);
        encoder.writeObject(value);
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    private void differential(String type, Function<RandomValues, DescribedList> random) {
        for (int i = 0; i < CASES; i++) {
            long seed = SEED + i;
            String where = type + " seed " + seed;
            DescribedList ours = random.apply(new RandomValues(seed));
            List<Object> expected = ourFields(ours);
            // Ours to theirs.
            Object decodedByThem = theirDecode(RoundTrip.encode(ours), where);
            assertEquals(expected, ProtonJSide.fields(decodedByThem), where + ": ours -> proton-j");
            // Theirs to ours; the first check only guards the test's own conversion.
            Object theirs = ProtonJSide.theirs(expected);
            assertEquals(expected, ProtonJSide.fields(theirs), where + ": building the proton-j value");
            byte[] bytes = theirEncode(theirs);
            DescribedList decodedByUs = newInstance(ours);
            AmqpReader reader = new AmqpReader().wrap(bytes, 0, bytes.length);
            reader.next();
            decodedByUs.decode(reader);
            assertFalse(reader.hasNext(), where + ": we left bytes unread");
            assertEquals(expected, ourFields(decodedByUs), where + ": proton-j -> ours");
        }
    }

    private static DescribedList newInstance(DescribedList like) {
        try {
            return like.getClass().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------------------------------ proton-j extras

    /** {@link OurSide#fields}, plus an attach's unsettled map and coordinator target (see {@link ProtonJSide}). */
    private static List<Object> ourFields(DescribedList v) {
        List<Object> out = OurSide.fields(v);
        if (v instanceof Attach) {
            Attach a = (Attach) v;
            out.add(unsettledFields(a.unsettled()));
            out.add(coordinatorFields(a.coordinator()));
        }
        return out;
    }

    private static Map<String, List<Object>> unsettledFields(EncodedValue v) {
        if (v.isNull()) {
            return null;
        }
        Map<String, List<Object>> out = new LinkedHashMap<>();
        AmqpReader r = v.reader(new AmqpReader());
        r.enter();
        while (r.hasNext()) {
            r.next();
            String tag = Fields.binary(r.buffer(), r.valueOffset(), r.valueLength());
            r.next();
            DeliveryState state = new DeliveryState();
            if (!r.isNull()) {
                state.decode(r);
            }
            out.put(tag, state.isNull() ? null : OurSide.fields(state));
        }
        r.exit();
        return out;
    }

    /** AMQP 1.0 §4.5.1: we hold a coordinator target raw, so its capabilities are read here. */
    private static List<Object> coordinatorFields(EncodedValue v) {
        if (v.isNull()) {
            return null;
        }
        AmqpReader r = v.reader(new AmqpReader());
        r.enter();
        r.next(); // the descriptor
        r.next();
        r.enter();
        r.nextField();
        return Fields.of("coordinator", Fields.symbols(new SymbolArray().read(r)));
    }

    /** A random attach that may also carry an unsettled map or a coordinator target instead of a target. */
    private static Attach attach(RandomValues r) {
        Attach a = OurSide.attach(r);
        if (r.below(4) == 0) {
            a.target().present(false);
            AmqpWriter w = new AmqpWriter();
            w.writeDescriptor(Descriptors.COORDINATOR);
            w.startList();
            SymbolArray capabilities = new SymbolArray();
            r.symbols(capabilities);
            capabilities.write(w);
            w.endList();
            a.coordinator().set(w);
        }
        if (r.chance()) {
            AmqpWriter w = new AmqpWriter();
            w.startMap();
            int n = r.below(4);
            for (int i = 0; i < n; i++) {
                byte[] random = r.bytes();
                byte[] tag = Arrays.copyOf(new byte[] {(byte) i}, 1 + random.length); // distinct keys
                System.arraycopy(random, 0, tag, 1, random.length);
                w.writeBinary(tag);
                if (r.below(5) == 0) {
                    w.writeNull();
                } else {
                    state(r, new DeliveryState()).encode(w);
                }
            }
            w.endMap();
            a.unsettled().set(w);
        }
        return a;
    }

    /** Any delivery state proton-j knows: {@link OurSide#state}, declared or transactional-state. */
    private static DeliveryState state(RandomValues r, DeliveryState s) {
        switch (r.below(6)) {
            case 0: {
                byte[] txnId = r.bytes();
                s.declared().txnId().set(txnId, 0, txnId.length);
                return s;
            }
            case 1: {
                // AMQP 1.0 §4.5.8: held raw by us, so built here as a peer would send it.
                AmqpWriter w = new AmqpWriter();
                w.writeDescriptor(Descriptors.TRANSACTIONAL_STATE);
                w.startList();
                w.writeBinary(r.bytes());
                if (r.chance()) {
                    OurSide.outcome(r, new DeliveryState()).encode(w);
                } else {
                    w.writeNull();
                }
                w.endList();
                return RoundTrip.decode(w.toByteArray(), s);
            }
            default:
                return OurSide.state(r, s);
        }
    }

    private static Transfer transfer(RandomValues r) {
        Transfer t = OurSide.transfer(r);
        if (r.below(3) == 0) {
            state(r, t.state());
        }
        return t;
    }

    private static Disposition disposition(RandomValues r) {
        Disposition d = OurSide.disposition(r);
        if (r.below(3) == 0) {
            state(r, d.state());
        }
        return d;
    }

    /** A SASL frame whose binary may exceed 255 bytes (a vbin32), as GSSAPI or SCRAM exchanges do. */
    private static DescribedList largeSasl(RandomValues r) {
        byte[] b = r.bytesUpTo(700);
        switch (r.below(3)) {
            case 0: {
                SaslInit i = OurSide.saslInit(r);
                i.initialResponse().set(b, 0, b.length);
                return i;
            }
            case 1: {
                SaslChallenge c = new SaslChallenge();
                c.challenge().set(b, 0, b.length);
                return c;
            }
            default: {
                SaslOutcome o = OurSide.saslOutcome(r);
                o.additionalData().set(b, 0, b.length);
                return o;
            }
        }
    }

    // ------------------------------------------------------------------------------------------ tests

    @Test
    void open() {
        differential("open", OurSide::open);
    }

    @Test
    void begin() {
        differential("begin", OurSide::begin);
    }

    @Test
    void attachWithSourceTargetCoordinatorAndUnsettled() {
        differential("attach", ProtonJDifferentialTest::attach);
    }

    @Test
    void flow() {
        differential("flow", OurSide::flow);
    }

    @Test
    void transferWithEveryDeliveryState() {
        differential("transfer", ProtonJDifferentialTest::transfer);
    }

    @Test
    void dispositionWithEveryDeliveryState() {
        differential("disposition", ProtonJDifferentialTest::disposition);
    }

    @Test
    void detachEndClose() {
        differential("detach", OurSide::detach);
        differential("end", OurSide::end);
        differential("close", OurSide::close);
    }

    @Test
    void errorCondition() {
        differential("error", r -> OurSide.error(r, new ErrorCondition()));
    }

    @Test
    void sourceAndTarget() {
        differential("source", r -> OurSide.source(r, new Source()));
        differential("target", r -> OurSide.target(r, new Target()));
    }

    @Test
    void deliveryStatesIncludingTransactional() {
        differential("delivery-state", r -> state(r, new DeliveryState()));
    }

    @Test
    void saslFrames() {
        differential("sasl-mechanisms", OurSide::saslMechanisms);
        differential("sasl-init", OurSide::saslInit);
        differential("sasl-challenge", OurSide::saslChallenge);
        differential("sasl-response", OurSide::saslResponse);
        differential("sasl-outcome", OurSide::saslOutcome);
        differential("sasl-large", ProtonJDifferentialTest::largeSasl);
    }

    /**
     * proton-j writes a field it holds as null as an explicit null (or leaves it out at the end), also where the
     * spec gives a default; we must read those as the default. The random cases always set such fields, and
     * never hold an empty symbol array or map.
     */
    @Test
    void protonJNullsReadAsSpecDefaultsAndEmptiesAsEmpty() {
        org.apache.qpid.proton.amqp.transport.Open open = new org.apache.qpid.proton.amqp.transport.Open();
        open.setContainerId("c");
        open.setMaxFrameSize(null);
        open.setChannelMax(null);
        open.setOfferedCapabilities(new org.apache.qpid.proton.amqp.Symbol[0]); // an empty array
        org.apache.qpid.proton.amqp.transport.Begin begin = new org.apache.qpid.proton.amqp.transport.Begin();
        begin.setNextOutgoingId(UnsignedInteger.ONE);
        begin.setIncomingWindow(UnsignedInteger.ZERO);
        begin.setOutgoingWindow(UnsignedInteger.MAX_VALUE);
        begin.setHandleMax(null);
        begin.setProperties(new LinkedHashMap<>()); // an empty map
        org.apache.qpid.proton.amqp.transport.Attach attach = new org.apache.qpid.proton.amqp.transport.Attach();
        attach.setName("n");
        attach.setHandle(UnsignedInteger.ZERO);
        attach.setRole(org.apache.qpid.proton.amqp.transport.Role.SENDER);
        attach.setSndSettleMode(null);
        attach.setRcvSettleMode(null);
        org.apache.qpid.proton.amqp.messaging.Source source = new org.apache.qpid.proton.amqp.messaging.Source();
        source.setDurable(null);
        source.setExpiryPolicy(null);
        source.setTimeout(null);
        attach.setSource(source);
        org.apache.qpid.proton.amqp.messaging.Target target = new org.apache.qpid.proton.amqp.messaging.Target();
        target.setDurable(null);
        target.setExpiryPolicy(null);
        target.setTimeout(null);
        attach.setTarget(target);
        org.apache.qpid.proton.amqp.transport.Disposition disposition =
                new org.apache.qpid.proton.amqp.transport.Disposition();
        disposition.setRole(org.apache.qpid.proton.amqp.transport.Role.RECEIVER);
        disposition.setFirst(UnsignedInteger.valueOf(7));
        disposition.setState(new org.apache.qpid.proton.amqp.messaging.Modified());
        Object[] theirs = {open, begin, attach, source, target, disposition};
        DescribedList[] ours = {new io.amqpservlet.protocol.types.transport.Open(),
                new io.amqpservlet.protocol.types.transport.Begin(), new Attach(), new Source(), new Target(),
                new Disposition()};
        for (int i = 0; i < theirs.length; i++) {
            List<Object> expected = ProtonJSide.fields(theirs[i]);
            assertEquals(expected, ourFields(RoundTrip.decode(theirEncode(theirs[i]), ours[i])),
                    "proton-j " + theirs[i]);
        }
    }
}
