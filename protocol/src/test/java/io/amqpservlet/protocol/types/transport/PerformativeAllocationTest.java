package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslMechanismNames;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Steady-state decode and encode of every performative allocate nothing: the reusable instances, their field
 * holders, the reader and the writer are all warmed up first.
 */
class PerformativeAllocationTest {
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 10_000;

    private final Performatives performatives = new Performatives();
    private final AmqpReader reader = new AmqpReader();
    private final AmqpWriter writer = new AmqpWriter(4096);

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static long allocatedBytes() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void measurementItselfAllocatesNothing() {
        for (int i = 0; i < 3; i++) {
            allocatedBytes();
        }
        long before = allocatedBytes();
        long after = allocatedBytes();
        assertEquals(0, after - before);
    }

    /** Decodes {@code frame} with the dispatcher and re-encodes the instance it returned. */
    private int decodeAndEncode(byte[] frame) {
        reader.wrap(frame, 0, frame.length);
        Performative p = performatives.decode(reader);
        writer.clear();
        p.encode(writer);
        return writer.length();
    }

    /**
     * Asserts that some round of {@link #MEASURED} iterations allocated 0 bytes. Several rounds are tried because
     * the JIT may recompile (and deoptimize, materializing scalar-replaced objects) once during a round; that is
     * a one-off of a few hundred bytes, whereas a per-iteration allocation shows in every round as at least
     * {@code MEASURED * 16} bytes.
     */
    private void assertNoAllocation(DescribedList sample) {
        byte[] frame = encode(sample);
        int sink = 0;
        for (int i = 0; i < WARM_UP; i++) {
            sink += decodeAndEncode(frame);
        }
        assertEquals(frame.length * (long) WARM_UP, sink, "re-encoded to the same size");
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5 && least > 0; round++) {
            long before = allocatedBytes();
            for (int i = 0; i < MEASURED; i++) {
                sink += decodeAndEncode(frame);
            }
            least = Math.min(least, allocatedBytes() - before);
        }
        assertEquals(0, least, sample.typeName() + " decode + encode allocated " + least + " bytes per "
                + MEASURED + " iterations in its best round");
    }

    @Test
    void transferAllocatesNothing() {
        Transfer t = new Transfer().handle(1).deliveryId(1234567).deliveryTag(new byte[16], 0, 16)
                .messageFormat(0).settled(false).more(true);
        t.state().received(1, 100);
        assertNoAllocation(t);
    }

    @Test
    void flowAllocatesNothing() {
        assertNoAllocation(FlowTest.full());
    }

    @Test
    void dispositionWithRejectedErrorAllocatesNothing() {
        assertNoAllocation(DispositionTest.full());
        Disposition modified = new Disposition().role(Role.RECEIVER).first(1).last(64).settled(true);
        modified.state().modified(true, false);
        assertNoAllocation(modified);
    }

    @Test
    void openAllocatesNothing() {
        assertNoAllocation(OpenTest.full());
    }

    @Test
    void attachWithSourceAndTargetAllocatesNothing() {
        assertNoAllocation(AttachTest.full());
    }

    @Test
    void beginDetachEndCloseAllocateNothing() {
        assertNoAllocation(BeginTest.full());
        Detach detach = new Detach().handle(2).closed(true);
        detach.error().condition(ErrorConditions.LINK_DETACH_FORCED).description("bye");
        assertNoAllocation(detach);
        End end = new End();
        end.error().condition(ErrorConditions.SESSION_UNATTACHED_HANDLE);
        assertNoAllocation(end);
        assertNoAllocation(new Close());
    }

    private int saslRound(SaslFrames frames, byte[] init, byte[] outcome) {
        reader.wrap(init, 0, init.length);
        writer.clear();
        frames.decode(reader).encode(writer);
        reader.wrap(outcome, 0, outcome.length);
        frames.decode(reader).encode(writer);
        return writer.length();
    }

    @Test
    void saslFramesAllocateNothing() {
        SaslFrames frames = new SaslFrames();
        SaslInit init = new SaslInit().mechanism(SaslMechanismNames.PLAIN);
        init.initialResponse().set(new byte[] {0, 'u', 0, 'p'}, 0, 4);
        init.hostname().set("host");
        byte[] a = encode(init);
        byte[] b = encode(new SaslOutcome().code(SaslOutcome.AUTH));
        long sink = 0;
        for (int i = 0; i < WARM_UP; i++) {
            sink += saslRound(frames, a, b);
        }
        assertEquals((long) WARM_UP * (a.length + b.length), sink, "re-encoded to the same size");
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5 && least > 0; round++) {
            long before = allocatedBytes();
            for (int i = 0; i < MEASURED; i++) {
                sink += saslRound(frames, a, b);
            }
            least = Math.min(least, allocatedBytes() - before);
        }
        assertEquals(0, least, "SASL decode + encode allocated " + least + " bytes in its best round");
        assertEquals(SaslOutcome.AUTH, frames.outcome().code());
    }
}
