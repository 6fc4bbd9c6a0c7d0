package io.amqpservlet.bench.codec;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import org.apache.qpid.proton.codec.WritableBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
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
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A request message as an HTTP-over-AMQP client sends it (docs/design.md §6): header, properties, five
 * application-properties and a 100-byte data section ({@link RequestValues}). Encode builds it from the field
 * values every time ({@code requestMessage_ours_encodePreencoded} with the constant names pre-encoded); decode takes out what a servlet bridge needs as Strings ({@link DecodedRequest}), every one
 * of them new; {@code requestMessage_ours_decodeCached} takes the same Strings the way the connector does, with
 * the method, content-type and header names from the shared cache of known strings;
 * {@code requestMessage_ours_scan} takes out the same fields as bytes, allocating nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RequestMessageBenchmark {
    private final DecodedRequest decoded = new DecodedRequest();
    private final ScannedRequest scanned = new ScannedRequest();

    private final AmqpWriter writer = new AmqpWriter(512);
    private final AmqpReader reader = new AmqpReader();
    private byte[] oursIn;

    private final ProtonJ2RequestCodec protonj2 = new ProtonJ2RequestCodec();
    private final ProtonBuffer j2Out = ProtonBufferAllocator.defaultAllocator().allocateHeapBuffer(512);
    private ProtonBuffer j2In;

    private final ByteBuffer pjOut = ByteBuffer.allocate(512);
    private final WritableBuffer pjOutWritable = WritableBuffer.ByteBufferWrapper.wrap(pjOut);
    private byte[] pjIn;

    /** Encodes with each codec and checks every decoder (and the scan) against every encoding. */
    @Setup(Level.Trial)
    public void setup() {
        requestMessage_ours_encode();
        byte[] ours = writer.toByteArray();
        requestMessage_protonj2_encode();
        byte[] j2 = new byte[j2Out.getReadableBytes()];
        j2Out.copyInto(j2Out.getReadOffset(), j2, 0, j2.length);
        requestMessage_protonj_encode();
        byte[] pj = Arrays.copyOf(pjOut.array(), pjOut.position());

        byte[][] encodings = {ours, j2, pj};
        String[] names = {"ours", "protonj2", "protonj"};
        for (int e = 0; e < encodings.length; e++) {
            useInput(encodings[e], encodings[e], encodings[e]);
            requestMessage_ours_decode().verify("ours decoding " + names[e]);
            requestMessage_ours_decodeCached().verify("ours decoding (cached) " + names[e]);
            requestMessage_ours_scan().verify("ours scanning " + names[e]);
            requestMessage_protonj2_decode().verify("protonj2 decoding " + names[e]);
            requestMessage_protonj_decode().verify("protonj decoding " + names[e]);
        }
        // In the measured runs each codec decodes what it encodes itself.
        useInput(ours, j2, pj);
    }

    private void useInput(byte[] forOurs, byte[] forProtonJ2, byte[] forProtonJ) {
        oursIn = forOurs;
        j2In = ProtonBufferAllocator.defaultAllocator().copy(forProtonJ2);
        pjIn = forProtonJ;
    }

    /** What our writer holds after the last of our encodes, for tests. */
    byte[] encodedOutput() {
        return writer.toByteArray();
    }

    /** The bytes each codec decodes in the measured runs, for tests. */
    byte[] encodedInput(String codec) {
        switch (codec) {
            case "ours":
                return oursIn.clone();
            case "protonj2":
                byte[] b = new byte[j2In.getWriteOffset()];
                j2In.copyInto(0, b, 0, b.length);
                return b;
            case "protonj":
                return pjIn.clone();
            default:
                throw new IllegalArgumentException(codec);
        }
    }

    // ------------------------------------------------------------------------------------------ encode

    @Benchmark
    public int requestMessage_ours_encode() {
        writer.clear();
        OursRequestCodec.encode(writer);
        return writer.length();
    }

    @Benchmark
    public int requestMessage_ours_encodePreencoded() {
        writer.clear();
        OursRequestCodec.encodePreencoded(writer);
        return writer.length();
    }

    @Benchmark
    public int requestMessage_protonj2_encode() {
        j2Out.clear();
        protonj2.encode(j2Out);
        return j2Out.getWriteOffset();
    }

    @Benchmark
    public int requestMessage_protonj_encode() {
        pjOut.clear();
        ProtonJRequestCodec.encode(pjOutWritable);
        return pjOut.position();
    }

    // ------------------------------------------------------------------------------------------ decode

    @Benchmark
    public DecodedRequest requestMessage_ours_decode() {
        OursRequestCodec.decode(reader, oursIn, 0, oursIn.length, decoded);
        return decoded;
    }

    @Benchmark
    public DecodedRequest requestMessage_ours_decodeCached() {
        OursRequestCodec.decodeCached(reader, oursIn, 0, oursIn.length, decoded);
        return decoded;
    }

    @Benchmark
    public ScannedRequest requestMessage_ours_scan() {
        OursRequestCodec.scan(reader, oursIn, 0, oursIn.length, scanned);
        return scanned;
    }

    @Benchmark
    public DecodedRequest requestMessage_protonj2_decode() {
        j2In.setReadOffset(0);
        protonj2.decode(j2In, decoded);
        return decoded;
    }

    @Benchmark
    public DecodedRequest requestMessage_protonj_decode() {
        ProtonJRequestCodec.decode(pjIn, 0, pjIn.length, decoded);
        return decoded;
    }
}
