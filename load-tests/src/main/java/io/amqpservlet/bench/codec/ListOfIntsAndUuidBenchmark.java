package io.amqpservlet.bench.codec;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.ReadableBuffer;
import org.apache.qpid.proton.codec.WritableBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
import org.apache.qpid.protonj2.codec.CodecFactory;
import org.apache.qpid.protonj2.codec.Decoder;
import org.apache.qpid.protonj2.codec.DecoderState;
import org.apache.qpid.protonj2.codec.Encoder;
import org.apache.qpid.protonj2.codec.EncoderState;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The seed benchmark (docs/design.md §6): a list of the ten ints 0, 1000, ..., 9000 followed by a UUID, encoded into a
 * reused buffer and decoded back to values (the ints summed, both UUID halves read). The peers encode a
 * {@code List<Object>} of Integer and UUID and decode to their List, as their users do.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ListOfIntsAndUuidBenchmark {
    static final int INT_COUNT = 10;
    static final UUID ID = UUID.fromString("d1b8a7b6-2f7e-4d0c-9a51-1f0e6e2b3c4d");
    static final long EXPECTED_SUM = 45_000;

    // The values, once as primitives for us and once as the List a peer's user holds.
    private final int[] ints = new int[INT_COUNT];
    private final long idMsb = ID.getMostSignificantBits();
    private final long idLsb = ID.getLeastSignificantBits();
    private final List<Object> list = new ArrayList<>();

    // Decoded values, written by every decode benchmark.
    long sum;
    long msb;
    long lsb;

    private final AmqpWriter writer = new AmqpWriter(256);
    private final AmqpReader reader = new AmqpReader();
    private byte[] oursEncoded;

    private final Encoder j2Encoder = CodecFactory.getEncoder();
    private final EncoderState j2EncoderState = j2Encoder.newEncoderState();
    private final Decoder j2Decoder = CodecFactory.getDecoder();
    private final DecoderState j2DecoderState = j2Decoder.newDecoderState();
    private final ProtonBuffer j2Out = ProtonBufferAllocator.defaultAllocator().allocateHeapBuffer(256);
    private ProtonBuffer j2In;

    private final DecoderImpl pjDecoder = new DecoderImpl();
    private final EncoderImpl pjEncoder = new EncoderImpl(pjDecoder);
    private final ByteBuffer pjOut = ByteBuffer.allocate(256);
    private final WritableBuffer pjOutWritable = WritableBuffer.ByteBufferWrapper.wrap(pjOut);
    private ByteBuffer pjIn;
    private ReadableBuffer pjInReadable;

    /** Builds the values, encodes them with each codec, and checks every decoder against every encoding. */
    @Setup(Level.Trial)
    public void setup() {
        AMQPDefinedTypes.registerAllTypes(pjDecoder, pjEncoder);
        list.clear();
        for (int i = 0; i < INT_COUNT; i++) {
            ints[i] = i * 1000;
            list.add(ints[i]);
        }
        list.add(ID);

        listOfIntsAndUuid_ours_encode();
        byte[] ours = writer.toByteArray();
        listOfIntsAndUuid_protonj2_encode();
        byte[] protonj2 = new byte[j2Out.getReadableBytes()];
        j2Out.copyInto(j2Out.getReadOffset(), protonj2, 0, protonj2.length);
        listOfIntsAndUuid_protonj_encode();
        byte[] protonj = java.util.Arrays.copyOf(pjOut.array(), pjOut.position());

        byte[][] encodings = {ours, protonj2, protonj};
        String[] names = {"ours", "protonj2", "protonj"};
        for (int e = 0; e < encodings.length; e++) {
            useInput(encodings[e]);
            listOfIntsAndUuid_ours_decode();
            verifyDecoded("ours decoding " + names[e]);
            listOfIntsAndUuid_protonj2_decode();
            verifyDecoded("protonj2 decoding " + names[e]);
            listOfIntsAndUuid_protonj_decode();
            verifyDecoded("protonj decoding " + names[e]);
        }
        // Each codec decodes what it encodes itself in the measured runs.
        oursEncoded = ours;
        j2In = ProtonBufferAllocator.defaultAllocator().copy(protonj2);
        pjIn = ByteBuffer.wrap(protonj);
        pjInReadable = ReadableBuffer.ByteBufferReader.wrap(pjIn);
    }

    private void useInput(byte[] encoded) {
        oursEncoded = encoded;
        j2In = ProtonBufferAllocator.defaultAllocator().copy(encoded);
        pjIn = ByteBuffer.wrap(encoded);
        pjInReadable = ReadableBuffer.ByteBufferReader.wrap(pjIn);
    }

    private void verifyDecoded(String who) {
        if (sum != EXPECTED_SUM || msb != idMsb || lsb != idLsb) {
            throw new AssertionError(who + ": sum " + sum + " uuid " + new UUID(msb, lsb) + ", expected "
                    + EXPECTED_SUM + " and " + ID);
        }
        sum = msb = lsb = 0;
    }

    /** The bytes a codec produced, for tests. */
    byte[] encodedInput(String codec) {
        switch (codec) {
            case "ours":
                return oursEncoded.clone();
            case "protonj2":
                byte[] b = new byte[j2In.getWriteOffset()];
                j2In.copyInto(0, b, 0, b.length);
                return b;
            case "protonj":
                return java.util.Arrays.copyOf(pjIn.array(), pjIn.limit());
            default:
                throw new IllegalArgumentException(codec);
        }
    }

    // ------------------------------------------------------------------------------------------ encode

    @Benchmark
    public int listOfIntsAndUuid_ours_encode() {
        AmqpWriter w = writer.clear();
        w.startList();
        for (int i = 0; i < INT_COUNT; i++) {
            w.writeInt(ints[i]);
        }
        w.writeUuid(idMsb, idLsb);
        w.endList();
        return w.length();
    }

    @Benchmark
    public int listOfIntsAndUuid_protonj2_encode() {
        j2Out.clear();
        j2Encoder.writeList(j2Out, j2EncoderState, list);
        return j2Out.getWriteOffset();
    }

    @Benchmark
    public int listOfIntsAndUuid_protonj_encode() {
        pjOut.clear();
        pjEncoder.setByteBuffer(pjOutWritable);
        pjEncoder.writeList(list);
        return pjOut.position();
    }

    // ------------------------------------------------------------------------------------------ decode

    @Benchmark
    public long listOfIntsAndUuid_ours_decode() {
        AmqpReader r = reader.wrap(oursEncoded, 0, oursEncoded.length);
        r.next();
        r.enter();
        long s = 0;
        for (int i = 0; i < INT_COUNT; i++) {
            s += r.nextInt(); // next() and getInt() in one call
        }
        r.next();
        msb = r.getUuidMostSignificantBits();
        lsb = r.getUuidLeastSignificantBits();
        r.exit();
        sum = s;
        return s ^ msb ^ lsb;
    }

    @Benchmark
    public long listOfIntsAndUuid_protonj2_decode() {
        j2In.setReadOffset(0);
        List<Object> decoded = j2Decoder.readList(j2In, j2DecoderState);
        return sumList(decoded);
    }

    @Benchmark
    public long listOfIntsAndUuid_protonj_decode() {
        pjIn.clear();
        pjDecoder.setBuffer(pjInReadable);
        @SuppressWarnings("unchecked")
        List<Object> decoded = pjDecoder.readList();
        return sumList(decoded);
    }

    private long sumList(List<Object> decoded) {
        long s = 0;
        for (int i = 0; i < INT_COUNT; i++) {
            s += (Integer) decoded.get(i);
        }
        UUID id = (UUID) decoded.get(INT_COUNT);
        msb = id.getMostSignificantBits();
        lsb = id.getLeastSignificantBits();
        sum = s;
        return s ^ msb ^ lsb;
    }
}
