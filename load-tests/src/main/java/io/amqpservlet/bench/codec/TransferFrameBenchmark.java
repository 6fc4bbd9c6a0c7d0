package io.amqpservlet.bench.codec;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.MutableBytes;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.ReadableBuffer;
import org.apache.qpid.proton.codec.WritableBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
import org.apache.qpid.protonj2.types.DeliveryTag;
import org.apache.qpid.protonj2.types.transport.Transfer;
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
 * A whole AMQP frame carrying the request message: 8-byte frame header (AMQP 1.0 §2.3.1: size, doff 2, type 0,
 * channel 0), a transfer performative (handle, delivery-id, 8-byte delivery-tag, message-format) and the message
 * sections. Encode writes the frame from field values; every codec reserves the header, encodes, and backfills
 * the size by hand in the same way, and writes the message straight after the transfer in the same buffer.
 * Decode parses the header, decodes the transfer's fields and finds the payload, without decoding the message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class TransferFrameBenchmark {
    /** AMQP 1.0 §2.3.1: the frame header is 8 bytes, doff counts 4-byte words, type 0 is an AMQP frame. */
    static final int HEADER_BYTES = 8;
    static final int DOFF = 2;
    static final int TYPE_AMQP = 0;

    private final DecodedTransfer decoded = new DecodedTransfer();

    private final AmqpWriter writer = new AmqpWriter(512);
    private final AmqpReader reader = new AmqpReader();
    private final MutableBytes oursTag = new MutableBytes();
    private byte[] oursIn;

    private final ProtonJ2RequestCodec protonj2 = new ProtonJ2RequestCodec();
    private final Transfer j2Transfer = new Transfer();
    private final DeliveryTag j2Tag = new DeliveryTag.ProtonDeliveryTag(DecodedTransfer.TAG);
    private final ProtonBuffer j2Out = ProtonBufferAllocator.defaultAllocator().allocateHeapBuffer(512);
    private ProtonBuffer j2In;

    private final DecoderImpl pjDecoder = new DecoderImpl();
    private final EncoderImpl pjEncoder = new EncoderImpl(pjDecoder);
    private final ByteBuffer pjOut = ByteBuffer.allocate(512);
    private final WritableBuffer pjOutWritable = WritableBuffer.ByteBufferWrapper.wrap(pjOut);
    private ByteBuffer pjIn;
    private ReadableBuffer pjInReadable;

    /** Encodes a frame with each codec and checks every decoder against every encoding. */
    @Setup(Level.Trial)
    public void setup() {
        AMQPDefinedTypes.registerAllTypes(pjDecoder, pjEncoder);
        transferFrame_ours_encode();
        byte[] ours = writer.toByteArray();
        transferFrame_protonj2_encode();
        byte[] j2 = new byte[j2Out.getReadableBytes()];
        j2Out.copyInto(j2Out.getReadOffset(), j2, 0, j2.length);
        transferFrame_protonj_encode();
        byte[] pj = Arrays.copyOf(pjOut.array(), pjOut.position());

        byte[][] encodings = {ours, j2, pj};
        String[] names = {"ours", "protonj2", "protonj"};
        DecodedRequest scratch = new DecodedRequest();
        for (int e = 0; e < encodings.length; e++) {
            byte[] frame = encodings[e];
            useInput(frame, frame, frame);
            transferFrame_ours_decode().verify("ours decoding " + names[e], frame, scratch);
            transferFrame_protonj2_decode().verify("protonj2 decoding " + names[e], frame, scratch);
            transferFrame_protonj_decode().verify("protonj decoding " + names[e], frame, scratch);
        }
        useInput(ours, j2, pj);
    }

    private void useInput(byte[] forOurs, byte[] forProtonJ2, byte[] forProtonJ) {
        oursIn = forOurs;
        j2In = ProtonBufferAllocator.defaultAllocator().copy(forProtonJ2);
        pjIn = ByteBuffer.wrap(forProtonJ);
        pjInReadable = ReadableBuffer.ByteBufferReader.wrap(pjIn);
    }

    /** The frame each codec decodes in the measured runs, for tests. */
    byte[] encodedInput(String codec) {
        switch (codec) {
            case "ours":
                return oursIn.clone();
            case "protonj2":
                byte[] b = new byte[j2In.getWriteOffset()];
                j2In.copyInto(0, b, 0, b.length);
                return b;
            case "protonj":
                return Arrays.copyOf(pjIn.array(), pjIn.capacity());
            default:
                throw new IllegalArgumentException(codec);
        }
    }

    // ------------------------------------------------------------------------------------------ encode

    @Benchmark
    public int transferFrame_ours_encode() {
        AmqpWriter w = writer.clear();
        int frame = w.reserve(HEADER_BYTES);
        // AMQP 1.0 §2.7.5 transfer: handle, delivery-id, delivery-tag, message-format; the rest omitted.
        w.writeDescriptor(Descriptors.TRANSFER);
        w.startList();
        w.writeUInt(DecodedTransfer.HANDLE);
        w.writeUInt(DecodedTransfer.DELIVERY_ID);
        w.writeBinary(DecodedTransfer.TAG, 0, DecodedTransfer.TAG.length);
        w.writeUInt(DecodedTransfer.MESSAGE_FORMAT);
        w.endList();
        OursRequestCodec.encode(w);
        int size = w.position() - frame;
        byte[] b = w.array();
        b[frame] = (byte) (size >>> 24);
        b[frame + 1] = (byte) (size >>> 16);
        b[frame + 2] = (byte) (size >>> 8);
        b[frame + 3] = (byte) size;
        b[frame + 4] = DOFF;
        b[frame + 5] = TYPE_AMQP;
        b[frame + 6] = 0; // channel
        b[frame + 7] = 0;
        return size;
    }

    @Benchmark
    public int transferFrame_protonj2_encode() {
        ProtonBuffer out = j2Out.clear();
        out.advanceWriteOffset(HEADER_BYTES);
        // protonj2's session reuses one Transfer for every outgoing transfer, and delivery tags come from a
        // tag generator: the same reuse here.
        Transfer t = j2Transfer.reset();
        t.setHandle(DecodedTransfer.HANDLE);
        t.setDeliveryId(DecodedTransfer.DELIVERY_ID);
        t.setDeliveryTag(j2Tag);
        t.setMessageFormat(DecodedTransfer.MESSAGE_FORMAT);
        protonj2.encoder.writeObject(out, protonj2.encoderState, t);
        protonj2.encode(out);
        int size = out.getWriteOffset();
        out.setInt(0, size);
        out.setByte(4, (byte) DOFF);
        out.setByte(5, (byte) TYPE_AMQP);
        out.setShort(6, (short) 0);
        return size;
    }

    @Benchmark
    public int transferFrame_protonj_encode() {
        ByteBuffer out = pjOut;
        out.clear();
        out.position(HEADER_BYTES);
        // proton-j's transport makes a Transfer per transfer, as here.
        org.apache.qpid.proton.amqp.transport.Transfer t = new org.apache.qpid.proton.amqp.transport.Transfer();
        t.setHandle(UnsignedInteger.valueOf(DecodedTransfer.HANDLE));
        t.setDeliveryId(UnsignedInteger.valueOf(DecodedTransfer.DELIVERY_ID));
        t.setDeliveryTag(new Binary(DecodedTransfer.TAG));
        t.setMessageFormat(UnsignedInteger.valueOf(DecodedTransfer.MESSAGE_FORMAT));
        pjEncoder.setByteBuffer(pjOutWritable);
        pjEncoder.writeObject(t);
        ProtonJRequestCodec.encode(pjOutWritable);
        int size = out.position();
        out.putInt(0, size);
        out.put(4, (byte) DOFF);
        out.put(5, (byte) TYPE_AMQP);
        out.putShort(6, (short) 0);
        return size;
    }

    // ------------------------------------------------------------------------------------------ decode

    @Benchmark
    public DecodedTransfer transferFrame_ours_decode() {
        DecodedTransfer d = decoded;
        d.reset();
        byte[] b = oursIn;
        int size = ((b[0] & 0xFF) << 24) | ((b[1] & 0xFF) << 16) | ((b[2] & 0xFF) << 8) | (b[3] & 0xFF);
        int bodyStart = checkHeader(size, b[4] & 0xFF, b[5] & 0xFF, b.length);
        d.frameSize = size;
        d.channel = ((b[6] & 0xFF) << 8) | (b[7] & 0xFF);
        AmqpReader r = reader.wrap(b, bodyStart, size - bodyStart);
        // AMQP 1.0 §2.7.5: the transfer is a described list; one call checks and enters it.
        if (r.enterDescribedList() != Descriptors.TRANSFER) {
            throw new InvalidEncodingException("frame body is not a transfer", r.valueStart());
        }
        r.nextField();
        d.handle = r.getUnsignedInt();
        r.nextField();
        d.deliveryId = r.getUnsignedInt();
        r.nextField();
        oursTag.read(r);
        d.tag = oursTag.array();
        d.tagOffset = 0;
        d.tagLength = oursTag.length();
        r.nextField();
        d.messageFormat = r.getUnsignedInt();
        r.exit();
        d.payloadOffset = r.position();
        d.payloadLength = size - d.payloadOffset;
        return d;
    }

    @Benchmark
    public DecodedTransfer transferFrame_protonj2_decode() {
        DecodedTransfer d = decoded;
        d.reset();
        ProtonBuffer in = j2In.setReadOffset(0);
        int size = in.readInt();
        int bodyStart = checkHeader(size, in.readByte() & 0xFF, in.readByte() & 0xFF, in.getWriteOffset());
        d.frameSize = size;
        d.channel = in.readShort() & 0xFFFF;
        in.setReadOffset(bodyStart);
        Transfer t = (Transfer) protonj2.decoder.readObject(in, protonj2.decoderState);
        d.handle = t.getHandle();
        d.deliveryId = t.getDeliveryId();
        d.tag = t.getDeliveryTag().tagBytes();
        d.tagOffset = 0;
        d.tagLength = d.tag.length;
        d.messageFormat = t.getMessageFormat();
        d.payloadOffset = in.getReadOffset();
        d.payloadLength = size - d.payloadOffset;
        return d;
    }

    @Benchmark
    public DecodedTransfer transferFrame_protonj_decode() {
        DecodedTransfer d = decoded;
        d.reset();
        ByteBuffer in = pjIn;
        in.clear();
        int size = in.getInt();
        int bodyStart = checkHeader(size, in.get() & 0xFF, in.get() & 0xFF, in.capacity());
        d.frameSize = size;
        d.channel = in.getShort() & 0xFFFF;
        in.position(bodyStart);
        in.limit(size);
        pjDecoder.setBuffer(pjInReadable);
        org.apache.qpid.proton.amqp.transport.Transfer t =
                (org.apache.qpid.proton.amqp.transport.Transfer) pjDecoder.readObject();
        d.handle = t.getHandle().longValue();
        d.deliveryId = t.getDeliveryId().longValue();
        Binary tag = t.getDeliveryTag();
        d.tag = tag.getArray();
        d.tagOffset = tag.getArrayOffset();
        d.tagLength = tag.getLength();
        d.messageFormat = t.getMessageFormat().longValue();
        d.payloadOffset = in.position();
        d.payloadLength = size - d.payloadOffset;
        return d;
    }

    /** Checks the frame header the same way for every codec; returns where the frame body starts. */
    private static int checkHeader(int size, int doff, int type, int available) {
        // AMQP 1.0 §2.3.1: doff is at least 2; the size covers the header.
        if (size < HEADER_BYTES || size > available || doff < DOFF || doff * 4 > size || type != TYPE_AMQP) {
            throw new InvalidEncodingException("bad frame header: size " + size + " doff " + doff + " type " + type
                    + " with " + available + " bytes", 0);
        }
        return doff * 4;
    }
}
