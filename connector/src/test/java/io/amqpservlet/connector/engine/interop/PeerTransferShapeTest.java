package io.amqpservlet.connector.engine.interop;

import io.amqpservlet.connector.engine.DirectTransferReading;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.types.transport.Performatives;
import io.amqpservlet.protocol.types.transport.Transfer;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.codec.CodecFactory;
import org.apache.qpid.protonj2.codec.Encoder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transfers protonj2 and proton-j send for ordinary messages have the shape the engine reads directly
 * ({@code FirstTransferReader}), and reading them directly gives what the generic decoder gives.
 */
class PeerTransferShapeTest {

    private static void assertReadDirectly(byte[] body) {
        AmqpReader reader = new AmqpReader();
        reader.wrap(body, 0, body.length);
        Transfer expected = (Transfer) new Performatives().decode(reader);
        Transfer actual = new Transfer();
        int payload = DirectTransferReading.read(body, actual);
        assertTrue(payload >= 0, "not read directly: " + expected + " " + Arrays.toString(body));
        assertEquals(expected.toString(), actual.toString());
        assertEquals(reader.position(), payload);
    }

    @Test
    void protonJ2TransfersAreReadDirectly() {
        Encoder encoder = CodecFactory.getDefaultEncoder();
        for (boolean settled : new boolean[] {false, true}) {
            for (long id : new long[] {0, 7, 300, 70_000, 0xFFFFFFFFL}) {
                org.apache.qpid.protonj2.types.transport.Transfer t = new org.apache.qpid.protonj2.types.transport.Transfer();
                t.setHandle(1).setDeliveryId(id).setDeliveryTag(new byte[] {0, 0, 0, 0, 0, 0, 0, 1})
                        .setMessageFormat(0).setSettled(settled).setMore(false);
                ProtonBuffer buffer = ProtonJ2Wire.ALLOCATOR.allocate(64);
                encoder.writeObject(buffer, encoder.newEncoderState(), t);
                byte[] b = new byte[buffer.getReadableBytes()];
                buffer.readBytes(b, 0, b.length);
                assertReadDirectly(b);
            }
        }
    }

    @Test
    void protonJTransfersAreReadDirectly() {
        DecoderImpl decoder = new DecoderImpl();
        EncoderImpl encoder = new EncoderImpl(decoder);
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
        for (boolean settled : new boolean[] {false, true}) {
            for (long id : new long[] {0, 7, 300, 70_000, 0xFFFFFFFFL}) {
                org.apache.qpid.proton.amqp.transport.Transfer t = new org.apache.qpid.proton.amqp.transport.Transfer();
                t.setHandle(UnsignedInteger.valueOf(1));
                t.setDeliveryId(UnsignedInteger.valueOf(id));
                t.setDeliveryTag(new Binary(new byte[] {0, 0, 0, 1}));
                t.setMessageFormat(UnsignedInteger.ZERO);
                t.setSettled(settled);
                t.setMore(false);
                ByteBuffer out = ByteBuffer.allocate(64);
                encoder.setByteBuffer(out);
                encoder.writeObject(t);
                out.flip();
                byte[] b = new byte[out.remaining()];
                out.get(b);
                assertReadDirectly(b);
            }
        }
    }
}
