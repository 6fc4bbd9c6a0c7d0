package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.sasl.SaslInit;
import io.amqpservlet.protocol.types.sasl.SaslMechanismNames;
import io.amqpservlet.protocol.types.sasl.SaslOutcome;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Steady-state decode and encode of every performative allocate nothing: the reusable instances, their field
 * holders, the reader and the writer are all warmed up first.
 */
class PerformativeAllocationTest {
    /** Iterations per run of a measured loop; it is run twice to warm up, then measured. */
    private static final int ITERATIONS = 10_000;

    private final Performatives performatives = new Performatives();
    private final AmqpReader reader = new AmqpReader();
    private final AmqpWriter writer = new AmqpWriter(4096);
    /** Escapes through a field so that the JIT cannot drop the measured work. */
    private long sink;

    /** Decodes {@code frame} with the dispatcher and re-encodes the instance it returned. */
    private int decodeAndEncode(byte[] frame) {
        reader.wrap(frame, 0, frame.length);
        Performative p = performatives.decode(reader);
        writer.clear();
        p.encode(writer);
        return writer.length();
    }

    /** Asserts that {@link #ITERATIONS} decodes and re-encodes of {@code sample}, once warmed up, allocate 0 bytes. */
    private void assertNoAllocation(DescribedList sample) {
        byte[] frame = encode(sample);
        Runnable loop = () -> {
            for (int i = 0; i < ITERATIONS; i++) {
                sink += decodeAndEncode(frame);
            }
        };
        sink = 0;
        loop.run();
        loop.run();
        assertEquals(2L * ITERATIONS * frame.length, sink, sample.typeName() + " re-encoded to the same size");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop), sample.typeName() + " decode + encode, bytes per "
                + ITERATIONS + " iterations");
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
        Runnable loop = () -> {
            for (int i = 0; i < ITERATIONS; i++) {
                sink += saslRound(frames, a, b);
            }
        };
        loop.run();
        loop.run();
        assertEquals(2L * ITERATIONS * (a.length + b.length), sink, "re-encoded to the same size");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop), "SASL decode + encode, bytes per " + ITERATIONS
                + " iterations");
        assertEquals(SaslOutcome.AUTH, frames.outcome().code());
    }
}
